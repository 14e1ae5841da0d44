#!/usr/bin/env bash
# The project's main job: an MCP client driven by a configuration, safe by default.
#
# Part 1 (needs only cargo): mcpctl and the repository's .mcp.json, whose `demo` server is the
# `demo_server` example (a tiny stdio server with the tools `echo` and `add`). The untrusted
# default refuses to spawn it; --trust allows it; then tools are listed and called.
#
# Part 2 (installs the third-party peers on first use, see scripts/install-peers.sh): the same
# client against the reference "everything" server over streamable HTTP on 127.0.0.1, reached
# without --trust by relaxing only what a local http:// server needs (--allow-http
# --allow-private-ip).
#
#   scripts/demo.sh           both parts
#   scripts/demo.sh --local   part 1 only (no Node.js or Python needed)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

local_only=false
case ${1:-} in
  --local) local_only=true ;;
  "") ;;
  *) echo "usage: scripts/demo.sh [--local]" >&2; exit 2 ;;
esac

echo "== building mcpctl and the examples" >&2
cargo build --quiet -p mcp-kit --features cli --examples --bin mcpctl
mcpctl=target/debug/mcpctl

# Shows a command, then runs it.
run() {
  echo
  echo "\$ mcpctl $*"
  "$mcpctl" "$@"
}

echo
echo "== part 1: the demo server of .mcp.json (transport=stdio)"
run list-servers

# Untrusted by default: spawning the configured argv would run code from the repository.
echo
echo "\$ mcpctl list-tools demo"
status=0
"$mcpctl" list-tools demo || status=$?
echo "(refused, exit code $status: stdio servers need --trust)"
if [[ $status -ne 3 ]]; then
  echo "demo.sh: expected exit code 3 (refused by the trust policy), got $status" >&2
  exit 1
fi

run --trust list-tools demo
run --trust call demo echo message=hello
run --trust call demo add a=2 b=40

if $local_only; then
  exit 0
fi

echo
echo "== part 2: the reference everything server over streamable HTTP"
scripts/install-peers.sh
# shellcheck source=peers/env.sh
source scripts/peers/env.sh

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
work=$(mktemp -d)
PORT=$port node "$EVERYTHING_JS" streamableHttp 2>"$work/server.log" >/dev/null &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  grep -q "listening on port" "$work/server.log" && break
  sleep 0.1
done
cat >"$work/mcp.json" <<JSON
{
  "version": 1,
  "servers": {
    "everything": { "transport": "streamable_http", "url": "http://127.0.0.1:$port/mcp" }
  }
}
JSON

echo
echo "\$ mcpctl --root $work list-tools everything"
status=0
"$mcpctl" --root "$work" list-tools everything || status=$?
echo "(refused, exit code $status: untrusted mode wants https on a public host)"
if [[ $status -ne 3 ]]; then
  echo "demo.sh: expected exit code 3 (refused by the trust policy), got $status" >&2
  exit 1
fi

relaxed=(--root "$work" --allow-http --allow-private-ip)
run "${relaxed[@]}" server-info everything
run "${relaxed[@]}" list-tools everything
run "${relaxed[@]}" call everything echo message=hello
run "${relaxed[@]}" call everything get-sum a=2 b=40
