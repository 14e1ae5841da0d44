#!/usr/bin/env bash
# The one benchmark command: builds bench/, the mcpx programs and mcp-sandbox (release), runs the
# MCP server comparison (server-bench), the JSON-RPC benchmark (jsonrpc-bench), the mcpx
# benchmark (mcpx-bench) and the sandbox benchmark (sandbox-bench), writes docs/benchmarks.md
# with all four and regenerates llms.txt. About 10 minutes on 2 cores; run it on an otherwise
# idle machine, after scripts/install-peers.sh (the TypeScript and Python SDK peers) and
# scripts/install-system-deps.sh (bubblewrap), with the tool catalogs of scripts/fetch-spec.sh.
#
#   bench/run.sh           the full run; writes docs/benchmarks.md
#   bench/run.sh --quick   everything once, briefly; prints the page, writes nothing
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

quick=false
case ${1:-} in
  "") ;;
  --quick) quick=true ;;
  *)
    echo "usage: bench/run.sh [--quick]  (options of the two programs: bench/README.md)" >&2
    exit 2
    ;;
esac

command -v node >/dev/null 2>&1 || { echo "run.sh: node is missing (Node.js 20 or newer)" >&2; exit 1; }
command -v bwrap >/dev/null 2>&1 || { echo "run.sh: bubblewrap is missing: run scripts/install-system-deps.sh" >&2; exit 1; }
peers=${MCP_PEERS_DIR:-$HOME/.cache/mcp-toolkit/peers}
if [[ ! -d $peers/node/node_modules/@modelcontextprotocol/sdk || ! -x $peers/venv/bin/python ]]; then
  echo "run.sh: the SDK peers are not installed in $peers: run scripts/install-peers.sh" >&2
  exit 1
fi
# shellcheck source=../scripts/peers/env.sh
source scripts/peers/env.sh

echo "== building bench/, the mcpx programs and mcp-sandbox (release)" >&2
cargo build --release --locked --manifest-path bench/Cargo.toml --bins
# mcpx-bench and sandbox-bench run the root workspace's programs (they find them in
# target/release).
cargo build --release --locked -p mcpx -p mcp-server -p mcp-sandbox --bin mcpx --bin mcp-sandbox \
  --example example_server --example replay_server
bin=bench/target/release
root_bins=(--bin-dir "${CARGO_TARGET_DIR:-target}/release")
# 1,000 connected sessions need as many sockets on each side.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if $quick; then
  "$bin/jsonrpc-bench" --quick --out "$work/jsonrpc.md" >/dev/null
  "$bin/mcpx-bench" "${root_bins[@]}" --quick --out "$work/mcpx.md" >/dev/null
  "$bin/sandbox-bench" "${root_bins[@]}" --quick --out "$work/sandbox.md" >/dev/null
  "$bin/server-bench" --quick --include "$work/jsonrpc.md" --include "$work/mcpx.md" \
    --include "$work/sandbox.md"
else
  echo "== jsonrpc-bench" >&2
  "$bin/jsonrpc-bench" --warmup 0.5 --measure 2 --out "$work/jsonrpc.md" >/dev/null
  echo "== mcpx-bench" >&2
  "$bin/mcpx-bench" "${root_bins[@]}" --out "$work/mcpx.md" >/dev/null
  echo "== sandbox-bench" >&2
  "$bin/sandbox-bench" "${root_bins[@]}" --out "$work/sandbox.md" >/dev/null
  echo "== server-bench" >&2
  "$bin/server-bench" --include "$work/jsonrpc.md" --include "$work/mcpx.md" \
    --include "$work/sandbox.md" --out docs/benchmarks.md >/dev/null
  scripts/gen-llms-txt.sh
fi
