#!/usr/bin/python3
"""Debian's sshd on a loopback port the kernel picks, race-free: this listens
(port 0), writes the port to PORT_FILE once it listens, and runs `sshd -i` (inetd
mode: one connection on its stdin and stdout) for each connection.

  sshd_inetd.py CONFIG PORT_FILE LOG
"""
import socket
import subprocess
import sys

config, port_file, log = sys.argv[1:4]
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
with open(port_file + ".part", "w") as f:
    f.write(str(listener.getsockname()[1]) + "\n")
import os
os.rename(port_file + ".part", port_file)
children = []
while True:
    conn, _ = listener.accept()
    with open(log, "ab") as err:
        children.append(subprocess.Popen(["/usr/sbin/sshd", "-i", "-e", "-f", config], stdin=conn, stdout=conn, stderr=err))
    conn.close()
    children = [c for c in children if c.poll() is None]
