#!/usr/bin/env bash
# Installs the Debian packages the tests and the demo need that are not Rust, Node or Python:
#   - bubblewrap   mcp-sandbox's local backend (namespaces, seccomp)
#   - python3      the pseudo-terminal driver of mcpctl's terminal tests (and the sandbox's
#                  Python sessions)
#   - redis-server the shared session store of several mcp-server replicas (scale-out tests;
#                  the tests start their own on a free port, never the system's)
#   - haproxy      the round-robin load balancer in front of those replicas
# Idempotent: does nothing when every command is there. Runs apt-get as root (or through sudo);
# elsewhere, says what to install.
set -euo pipefail

declare -A packages=([bwrap]=bubblewrap [python3]=python3 [redis-server]=redis-server [haproxy]=haproxy)
missing=()
for command in "${!packages[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${packages[$command]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-system-deps: missing ${missing[*]}: install them with your package manager" \
    "(Fedora: dnf install ${missing[*]}; Alpine: apk add ${missing[*]}), then run this again." >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || {
    echo "install-system-deps: missing ${missing[*]}; run as root: apt-get install ${missing[*]}" >&2
    exit 1
  }
  sudo=(sudo)
fi
echo "install-system-deps: apt-get install ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
