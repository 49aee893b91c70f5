#!/usr/bin/python3
"""Catches ONE OAuth redirect on a loopback port, like google-auth-oauthlib's
InstalledAppFlow.run_local_server (a benchmark floor for linkrouter's listener).

loopback_catcher.py [--port N] [--host 127.0.0.1] [--path /callback] [--timeout S]
                    [--port-file FILE]

Binds before printing anything; prints {"listening": URL, "port": N} (and writes
the port to --port-file if given), then serves until one GET on PATH arrives,
answers it 200 with a small "You may close this window" page, and prints
{"url", "query" (name -> first value), "received_at" (epoch s),
"served_seconds" (request line read -> response sent), "user_agent"} and
exits 0. Other paths (e.g. /favicon.ico) get 404 and are not counted.
Exit 1 on timeout (no redirect).
"""
import argparse, html, http.server, json, os, sys, threading, time, urllib.parse

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Signed in</title>
<style>body{{font-family:sans-serif;margin:3em;background:#f4fff4}}h1{{color:#1a7f37}}code{{background:#eee;padding:2px 4px}}</style>
</head><body><h1>Signed in</h1><p>The application received the redirect. You may close this window.</p>
<p>state: <code>{state}</code></p><p>code: <code>{code}</code></p><p>iss: <code>{iss}</code></p></body></html>"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--path", default="/callback")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--port-file")
    a = p.parse_args()
    caught = {}
    done = threading.Event()
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        timeout = 10  # a browser's idle preconnect must not hold a thread forever

        def do_GET(self):
            t0 = time.time()
            u = urllib.parse.urlsplit(self.path)
            with lock:
                first = u.path == a.path and not caught
                if first:
                    caught["pending"] = True
            if not first:
                self.send_error(404)
                return
            q = {k: v[0] for k, v in urllib.parse.parse_qs(u.query, keep_blank_values=True).items()}
            body = PAGE.format(**{k: html.escape(q.get(k, "")) for k in ("state", "code", "iss")}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            caught.pop("pending")
            caught.update(url=f"http://{a.host}:{port}{self.path}", query=q, received_at=t0,
                          served_seconds=round(time.time() - t0, 6), user_agent=self.headers.get("User-Agent"))
            done.set()

    # Threads: a speculative connection that never sends a request (Chromium
    # preconnects) must not keep the real redirect waiting.
    server = http.server.ThreadingHTTPServer((a.host, a.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(f"{port}\n")
        os.replace(a.port_file + ".tmp", a.port_file)
    print(json.dumps({"listening": f"http://{a.host}:{port}{a.path}", "port": port}), flush=True)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    done.wait(a.timeout)
    server.shutdown()
    server.server_close()
    if not done.is_set():
        print("loopback_catcher: no redirect arrived before the timeout", file=sys.stderr)
        return 1
    print(json.dumps(caught), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
