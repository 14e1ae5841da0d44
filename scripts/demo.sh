#!/usr/bin/env bash
# The project's main job: an MCP client driven by a configuration, safe by default.
#
# Part 1 (needs only cargo): mcpctl and the repository's .mcp.json, whose `demo` server is the
# `example_server` of mcp-server (a stdio server with the tools `echo`, `add`, `count`, `greet`
# and `touch`, a resource and a prompt). The untrusted default refuses to spawn it; --trust
# allows it; then tools are listed and called, and called once more with the server's command
# typed after `--` (no configuration). The same server then serves streamable HTTP on 127.0.0.1
# and mcpctl reaches it there, in the 2026-07-28 era and pinned to 2025-11-25, and by its URL.
#
# Then mcpx, the proxy, in front of the same demo server: check, inspect, exec, tokens.
#
# Part 2 (installs the third-party peers on first use, see scripts/install-peers.sh): the same
# client against the reference "everything" server over streamable HTTP on 127.0.0.1, reached
# without --trust by relaxing only what a local http:// server needs (--allow-http
# --allow-private-ip); then mcpx in front of both servers.
#
# Part 3 (installs bubblewrap on first use, see scripts/install-system-deps.sh): mcp-sandbox,
# the code-execution server, over streamable HTTP: Python state that persists across calls, a
# command in the same workspace, a produced file read as a resource, an escape attempt that
# fails; then mcpx in front of it.
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

echo "== building mcpctl, mcpx, mcp-sandbox and the examples" >&2
cargo build --quiet -p mcp-kit --features cli --bin mcpctl
cargo build --quiet -p mcpx --bin mcpx
cargo build --quiet -p mcp-sandbox --bin mcp-sandbox
cargo build --quiet -p mcp-server --examples
mcpctl=target/debug/mcpctl
mcpx=target/debug/mcpx

# Shows an mcpx command, then runs it.
run_mcpx() {
  echo
  echo "\$ mcpx $*"
  "$mcpx" "$@"
}

# Shows a command, then runs it.
run() {
  echo
  echo "\$ mcpctl $*"
  "$mcpctl" "$@"
}

echo
echo "== part 1: the demo server of .mcp.json (mcp-server's example_server, transport=stdio)"
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

# No configuration file needed: a server command typed after `--` is trusted (you typed it).
run call echo message=typed -- target/debug/examples/example_server

# What the server sends during a call: progress and log lines on stderr (a bar on a
# terminal), and its questions: `greet` asks for a name (a form on a terminal; here the
# answer comes from a file).
run --output table --log-level debug call count steps=3 -- target/debug/examples/example_server
answer=$(mktemp)
echo '{"name": "Ada"}' >"$answer"
run --output table call greet --elicit "json=$answer" -- target/debug/examples/example_server
rm -f "$answer"

echo
echo "== the same server over streamable HTTP (mcp-server), both protocol eras"
work=$(mktemp -d)
# Port 0: the system picks a free port; the server prints the URL it listens on.
target/debug/examples/example_server --http 0 2>"$work/ours.log" &
ours=$!
trap 'kill $ours 2>/dev/null || true; rm -rf "$work"' EXIT
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$work/ours.log" || true)
  [[ -n $url ]] && break
  sleep 0.1
done
if [[ -z $url ]]; then
  echo "demo.sh: example_server did not start:" >&2
  cat "$work/ours.log" >&2
  exit 1
fi
cat >"$work/mcp.json" <<JSON
{
  "version": 1,
  "servers": {
    "example": { "transport": "streamable_http", "url": "$url" }
  }
}
JSON
relaxed=(--root "$work" --allow-http --allow-private-ip)
run "${relaxed[@]}" server-info example
run "${relaxed[@]}" --protocol-version 2025-11-25 server-info example
run "${relaxed[@]}" call example add a=2 b=40
# The URL typed on the command line: no configuration, no --allow-* flags.
run call "$url" add a=1 b=1
kill $ours 2>/dev/null || true

echo
echo "== mcpx: the same demo server behind the proxy, which shows agents two tools"
# mcpx finds .mcp.json in the working directory: untrusted, like mcpctl, until --trust.
run_mcpx --trust check
run_mcpx --trust inspect demo add
run_mcpx --trust exec demo add a=2 b=40
run_mcpx --trust tokens

if $local_only; then
  exit 0
fi

echo
echo "== part 2: the reference everything server over streamable HTTP"
scripts/install-peers.sh
# shellcheck source=peers/env.sh
source scripts/peers/env.sh

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PORT=$port node "$EVERYTHING_JS" streamableHttp 2>"$work/server.log" >/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
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

echo
echo "== mcpx in front of both: the everything server (HTTP) and the demo server (stdio)"
cat >"$work/mcpx.json" <<JSON
{
  "mcpServers": {
    "everything": { "url": "http://127.0.0.1:$port/mcp" },
    "demo": { "command": "$PWD/target/debug/examples/example_server" }
  }
}
JSON
# A configuration named with --config is the operator's own: trusted.
run_mcpx --config "$work/mcpx.json" check
run_mcpx --config "$work/mcpx.json" inspect --query "add two numbers"
run_mcpx --config "$work/mcpx.json" exec everything get-sum a=2 b=40
run_mcpx --config "$work/mcpx.json" tokens

echo
echo "== part 3: mcp-sandbox, code execution in isolated sessions (bubblewrap, cgroups, seccomp)"
scripts/install-system-deps.sh
sandbox_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
MCP_SERVER_PORT=$sandbox_port MSB_WORKSPACE_ROOT=$work RUST_LOG=info \
  target/debug/mcp-sandbox 2>"$work/sandbox.log" &
sandbox=$!
trap 'kill $server $sandbox 2>/dev/null || true; wait $sandbox 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  grep -q "MCP server listening" "$work/sandbox.log" && break
  sleep 0.1
done
if ! grep -q "MCP server listening" "$work/sandbox.log"; then
  echo "demo.sh: mcp-sandbox did not start:" >&2
  cat "$work/sandbox.log" >&2
  exit 1
fi
cat >"$work/mcp.json" <<JSON
{
  "version": 1,
  "servers": {
    "sandbox": { "transport": "streamable_http", "url": "http://127.0.0.1:$sandbox_port/mcp" }
  }
}
JSON
run "${relaxed[@]}" server-info sandbox
echo
echo "\$ mcpctl ${relaxed[*]} --json call sandbox execute_code code='import math; radius = 2; area = math.pi * radius ** 2'"
session=$("$mcpctl" "${relaxed[@]}" --json call sandbox execute_code \
  code='import math; radius = 2; area = math.pi * radius ** 2' |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["structuredContent"]["session_id"])')
echo "(a new session: $session)"
# The same session: variables and imports are still there; files are shared with commands.
run "${relaxed[@]}" call sandbox execute_code session_id="$session" \
  code='open("area.txt", "w").write(f"{area:.2f}"); round(area, 2)'
run "${relaxed[@]}" call sandbox execute_command session_id="$session" command='ls -l && cat area.txt'
run "${relaxed[@]}" read-resource sandbox "sandbox://$session/area.txt"
# Isolation: no network, not even the host's loopback, and nothing of the host's files.
echo
escape="import socket
try:
    socket.create_connection(('127.0.0.1', $sandbox_port), 2)
    print('reached the host')
except OSError as e:
    print('the host loopback:', e.strerror)
try:
    open('/etc/shadow')
except OSError as e:
    print('/etc/shadow:', e.strerror)"
run "${relaxed[@]}" call sandbox execute_code code="$escape"
echo "(refused: the sandbox has a loopback of its own and no /etc/shadow)"
run "${relaxed[@]}" call sandbox get_sessions

echo
echo "== mcpx in front of the sandbox"
cat >"$work/mcpx.json" <<JSON
{ "mcpServers": { "sandbox": { "url": "http://127.0.0.1:$sandbox_port/mcp" } } }
JSON
run_mcpx --config "$work/mcpx.json" inspect sandbox execute_code
run_mcpx --config "$work/mcpx.json" exec sandbox execute_code code='sum(range(101))'
kill $sandbox 2>/dev/null || true
wait $sandbox 2>/dev/null || true
