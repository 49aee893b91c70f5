#!/usr/bin/env python3
"""oidc-agent's Python client library (liboidcagent 0.6.0 from PyPI, the
encrypted form on PyNaCl) asking $OIDC_SOCK, as a user's program would; prints
one JSON line: {"token": …, "issuer": …, "expires_at": …} or {"error": …, "help": …}.

  liboidcagent_client.py account NAME [SCOPE]
  liboidcagent_client.py issuer URL
  liboidcagent_client.py infos
"""
import json
import sys

import liboidcagent as agent
from liboidcagent.liboidcagent import get_account_infos  # not re-exported by the package in 0.6.0

try:
    if sys.argv[1] == "account":
        scope = sys.argv[3] if len(sys.argv) > 3 else None
        token, issuer, expires = agent.get_token_response(sys.argv[2], 60, "liboidcagent-test", scope)
        print(json.dumps({"token": token, "issuer": issuer, "expires_at": expires}))
    elif sys.argv[1] == "issuer":
        token, issuer, expires = agent.get_token_response_by_issuer_url(sys.argv[2], 0, "liboidcagent-test")
        print(json.dumps({"token": token, "issuer": issuer, "expires_at": expires}))
    elif sys.argv[1] == "infos":
        print(json.dumps({"infos": get_account_infos()}))
except agent.OidcAgentError as e:
    print(json.dumps({"error": e.message, "help": e.help, "kind": type(e).__name__}))
except Exception as e:  # anything else the library raised, said rather than lost
    print(json.dumps({"exception": repr(e), "kind": type(e).__name__}))
