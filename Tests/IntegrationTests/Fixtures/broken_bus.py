#!/usr/bin/env python3
"""A UNIX socket that is not a working D-Bus bus, for the faults of linkctl's
front's own bus connection: `close` accepts and closes at once; `reject`
reads the client's AUTH line and answers REJECTED, as a bus that does not
take the client's credentials would. Writes PATH.ready once listening."""
import os
import socket
import sys

path, mode = sys.argv[1], sys.argv[2]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(16)
open(path + ".ready", "w").close()
while True:
    client, _ = server.accept()
    if mode == "reject":
        data = b""
        while b"\r\n" not in data:
            chunk = client.recv(4096)
            if not chunk:
                break
            data += chunk
        client.sendall(b"REJECTED EXTERNAL\r\n")
        client.recv(4096)
    client.close()
