#!/usr/bin/python3
"""Reads one client as Glewlwyd's administrator sees it (glewlwyd_provider.py's
admin REST API, on Glewlwyd's own origin), so a test can see what a
registration made there and whether a deletion took: prints the client's JSON
({"enabled": false} once RFC 7592 deleted it), or {} when there is none.

glewlwyd_admin.py --provider INFO.json --client ID
"""
import argparse, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from glewlwyd_provider import ADMIN, Api  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--provider", required=True)
    p.add_argument("--client", required=True)
    a = p.parse_args()
    info = json.loads(open(a.provider).readline())
    api = Api(f"http://127.0.0.1:{info['port']}")
    api.call("POST", "/api/auth/", {"username": ADMIN[0], "password": ADMIN[1]})
    found = api.call("GET", "/api/client/" + a.client, ok=(200, 404))
    print(json.dumps(found if isinstance(found, dict) else {}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
