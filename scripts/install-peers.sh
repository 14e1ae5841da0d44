#!/usr/bin/env bash
# Installs the third-party MCP peers that the tests talk to, pinned, into a cache folder:
#   - @modelcontextprotocol/server-everything 2026.8.31  (a real server)
#   - @modelcontextprotocol/sdk 1.32.2                    (the TypeScript SDK: client and server)
#   - @modelcontextprotocol/conformance 0.2.0-alpha.12    (the official conformance suite)
#   - oidc-provider 9.13.3                                 (an OAuth 2.1 authorization server)
#   - mcp 2.3.0 from PyPI                                  (the Python SDK: client and server)
#   - mcp 1.30.0 from PyPI, in a venv of its own           (FastMCP 1.x: a legacy server)
# Needs: node >= 20 with npm, python3 (>= 3.10) with venv; reaches only the npm registry and PyPI.
# Idempotent: a stamp per part records what was installed; a changed pin reinstalls that part.
# Usage: scripts/install-peers.sh        then: source scripts/peers/env.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
peers_dir=${MCP_PEERS_DIR:-$HOME/.cache/mcp-toolkit/peers}
mkdir -p "$peers_dir"

need() {
  command -v "$1" >/dev/null 2>&1 || {
    echo "install-peers: '$1' is missing. $2" >&2
    exit 1
  }
}

# Reinstalls part $1 when the checksum of its pin files ($2…) differs from its stamp.
stale() {
  local part=$1; shift
  local want
  want=$(cat "$@" | sha256sum | cut -d' ' -f1)
  [ "$(cat "$peers_dir/$part.stamp" 2>/dev/null)" != "$want" ] && echo "$want"
}

if want=$(stale node "$here/peers/npm/package.json" "$here/peers/npm/package-lock.json"); then
  need node "Install Node.js 20 or newer with npm (Debian: apt-get install nodejs npm)."
  need npm "Install npm (Debian: apt-get install npm)."
  echo "install-peers: npm packages → $peers_dir/node" >&2
  rm -rf "$peers_dir/node"
  mkdir -p "$peers_dir/node"
  cp "$here/peers/npm/package.json" "$here/peers/npm/package-lock.json" "$peers_dir/node/"
  (cd "$peers_dir/node" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$peers_dir/node.stamp"
fi

# Installs the pinned requirements $3 into the venv $peers_dir/$2 (part $1, shown as $4), when
# its stamp is stale.
python_venv() {
  local part=$1 venv=$peers_dir/$2 requirements=$3 label=$4 want
  want=$(stale "$part" "$requirements") || return 0
  need python3 "Install Python 3.10 or newer (Debian: apt-get install python3 python3-venv)."
  echo "install-peers: $label → $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv" || {
    echo "install-peers: python3 -m venv failed. Debian: apt-get install python3-venv" >&2
    exit 1
  }
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
  echo "$want" > "$peers_dir/$part.stamp"
}

python_venv python venv "$here/peers/python-requirements.txt" "Python SDK"
python_venv python-mcp1 venv-mcp1 "$here/peers/python-mcp1-requirements.txt" "Python SDK 1.x"

echo "install-peers: peers ready in $peers_dir" >&2
