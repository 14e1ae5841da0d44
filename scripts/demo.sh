#!/usr/bin/env bash
# The project's main job, for now: the JSON-RPC layer talks to a real MCP server — the
# reference "everything" server — over stdio and then over streamable HTTP: initialize,
# initialized, tools/list, tools/call (echo, get-sum, get-roots-list, which makes the
# server ask us for our roots).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/install-peers.sh
# shellcheck source=peers/env.sh
source scripts/peers/env.sh
cargo build --quiet -p mcp-jsonrpc --example talk_to_server
demo=target/debug/examples/talk_to_server

echo "== stdio: node server-everything stdio"
"$demo" stdio node "$EVERYTHING_JS" stdio

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp)
PORT=$port node "$EVERYTHING_JS" streamableHttp 2>"$log" >/dev/null &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do
  grep -q "listening on port" "$log" && break
  sleep 0.1
done
echo
echo "== streamable HTTP: http://127.0.0.1:$port/mcp"
"$demo" http "http://127.0.0.1:$port/mcp"
