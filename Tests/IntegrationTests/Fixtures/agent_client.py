#!/usr/bin/python3
"""A plain-JSON client of oidc-agent's protocol, as the Rust crate oidc_agent_rs
is one: connect to $OIDC_SOCK, send one message in one write, read to EOF, and
print what came back as one JSON line: {"answer": TEXT} or {"error": WHY}.

  agent_client.py send JSON            one request
  agent_client.py send-file PATH       the bytes of PATH as the request
  agent_client.py as-nobody JSON       the request from uid/gid 65534 (run as root)
  agent_client.py many N JSON          N connections at once, each sending JSON; prints a summary
  agent_client.py stall                connect, send nothing; prints how long until the agent closed
"""
import json
import os
import socket
import sys
import threading
import time


def ask(payload: bytes, timeout=30.0) -> dict:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        # A blocking connect, as liboidc-agent's: it waits for room in the agent's backlog.
        s.connect(os.environ["OIDC_SOCK"])
        s.settimeout(timeout)
        try:
            s.sendall(payload)
        except BrokenPipeError:
            pass  # The agent answered before taking it all (a request too large): its answer is still there to read.
        chunks = []
        while True:
            part = s.recv(65536)
            if not part:
                break
            chunks.append(part)
        return {"answer": b"".join(chunks).decode("utf-8", "replace")}
    except OSError as e:
        return {"error": str(e)}
    finally:
        s.close()


def main() -> None:
    mode = sys.argv[1]
    if mode == "send":
        print(json.dumps(ask(sys.argv[2].encode())))
    elif mode == "send-file":
        with open(sys.argv[2], "rb") as f:
            print(json.dumps(ask(f.read())))
    elif mode == "as-nobody":
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
        print(json.dumps(ask(sys.argv[2].encode())))
    elif mode == "many":
        n = int(sys.argv[2])
        payload = sys.argv[3].encode()
        results = [None] * n
        start = threading.Barrier(n)

        def one(i):
            start.wait()
            results[i] = ask(payload, timeout=60.0)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        summary = {}
        for r in results:
            if "error" in r:
                key = "connection error: " + r["error"]
            else:
                try:
                    a = json.loads(r["answer"])
                    key = a.get("status", "?") + (": " + a["error"] if "error" in a else "")
                except ValueError:
                    key = "not JSON: " + r["answer"][:80]
            summary[key] = summary.get(key, 0) + 1
        print(json.dumps({"summary": summary}))
    elif mode == "stall":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(os.environ["OIDC_SOCK"])
        began = time.monotonic()
        print(json.dumps({"connected": True}), flush=True)
        s.settimeout(60.0)
        try:
            data = s.recv(65536)
        except OSError as e:
            data = str(e).encode()
        print(json.dumps({"closed_after": time.monotonic() - began, "answer": data.decode("utf-8", "replace")}))
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
