# Sourced by the scripts: the toolchain on PATH, and the repository as the working directory.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
