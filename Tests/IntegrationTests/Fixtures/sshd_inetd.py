#!/usr/bin/python3
"""Debian's sshd on a loopback port the kernel picks, race-free, for the tests
and the bench: makes a host key and a user key (ssh-keygen) and sshd's
configuration in DIR, listens (port 0), writes DIR/ssh_options (ssh's
options to log in there as this user, one a line, none of the machine's
configuration read) once it listens, and runs `sshd -i` (inetd mode: one
connection on its stdin and stdout) for each connection; sshd logs to
DIR/sshd.log. sshd accepts OIDC_SOCK from the client (AcceptEnv), as an
administrator who wants forwarded agents found would set it.

  sshd_inetd.py DIR
"""
import os
import socket
import subprocess
import sys

d = sys.argv[1]
os.makedirs(d, mode=0o700, exist_ok=True)
for key in ("host_key", "user_key"):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(d, key)], check=True)
with open(os.path.join(d, "user_key.pub")) as f, open(os.path.join(d, "authorized_keys"), "w") as out:
    out.write(f.read())
with open(os.path.join(d, "sshd_config"), "w") as f:
    f.write(f"""HostKey {d}/host_key
AuthorizedKeysFile {d}/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowStreamLocalForwarding yes
StreamLocalBindUnlink yes
AcceptEnv OIDC_SOCK
PidFile none
""")

listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
options = ["-F", "/dev/null", "-p", str(listener.getsockname()[1]), "-i", f"{d}/user_key",
           "-o", "IdentitiesOnly=yes", "-o", f"UserKnownHostsFile={d}/known_hosts",
           "-o", "StrictHostKeyChecking=accept-new", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"]
with open(os.path.join(d, "ssh_options.part"), "w") as f:
    f.write("\n".join(options) + "\n")
os.rename(os.path.join(d, "ssh_options.part"), os.path.join(d, "ssh_options"))
children = []
while True:
    conn, _ = listener.accept()
    with open(os.path.join(d, "sshd.log"), "ab") as err:
        children.append(subprocess.Popen(["/usr/sbin/sshd", "-i", "-e", "-f", f"{d}/sshd_config"],
                                         stdin=conn, stdout=conn, stderr=err))
    conn.close()
    children = [c for c in children if c.poll() is None]
