#!/usr/bin/env bash
# The one benchmark command: builds bench/, the mcpx programs, mcp-sandbox and the example server
# with the Redis store (release), runs the MCP server comparison (server-bench), the JSON-RPC
# benchmark (jsonrpc-bench), the mcpx benchmark (mcpx-bench), the sandbox benchmark
# (sandbox-bench) and the scale-out benchmark (scaleout-bench), writes docs/benchmarks.md with
# all five and regenerates llms.txt. About 12 minutes on 2 cores; run it on an otherwise idle
# machine, after scripts/install-peers.sh (the TypeScript and Python SDK peers) and
# scripts/install-system-deps.sh (bubblewrap, redis-server, haproxy), with the tool catalogs of
# scripts/fetch-spec.sh.
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
    echo "usage: bench/run.sh [--quick]  (options of the programs: bench/README.md)" >&2
    exit 2
    ;;
esac

command -v node >/dev/null 2>&1 || { echo "run.sh: node is missing (Node.js 20 or newer)" >&2; exit 1; }
command -v bwrap >/dev/null 2>&1 || { echo "run.sh: bubblewrap is missing: run scripts/install-system-deps.sh" >&2; exit 1; }
for program in redis-server haproxy; do
  command -v "$program" >/dev/null 2>&1 || [[ -x /usr/sbin/$program ]] ||
    { echo "run.sh: $program is missing: run scripts/install-system-deps.sh" >&2; exit 1; }
done
peers=${MCP_PEERS_DIR:-$HOME/.cache/mcp-toolkit/peers}
if [[ ! -d $peers/node/node_modules/@modelcontextprotocol/sdk || ! -x $peers/venv/bin/python ]]; then
  echo "run.sh: the SDK peers are not installed in $peers: run scripts/install-peers.sh" >&2
  exit 1
fi
# shellcheck source=../scripts/peers/env.sh
source scripts/peers/env.sh

echo "== building bench/, the mcpx programs, mcp-sandbox and the example server (release)" >&2
cargo build --release --locked --manifest-path bench/Cargo.toml --bins
# mcpx-bench, sandbox-bench and scaleout-bench run the root workspace's programs (they find them
# in target/release).
cargo build --release --locked -p mcpx -p mcp-sandbox --bin mcpx --bin mcp-sandbox --example replay_server
# The example server with the Redis store, whose replicas scaleout-bench runs (mcpx-bench runs
# it too, without MCP_REDIS_URL: its sessions stay in memory).
cargo build --release --locked -p mcp-server --features redis --example example_server
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
  "$bin/scaleout-bench" "${root_bins[@]}" --quick --out "$work/scaleout.md" >/dev/null
  "$bin/server-bench" --quick --include "$work/jsonrpc.md" --include "$work/mcpx.md" \
    --include "$work/sandbox.md" --include "$work/scaleout.md"
else
  echo "== jsonrpc-bench" >&2
  "$bin/jsonrpc-bench" --warmup 0.5 --measure 2 --out "$work/jsonrpc.md" >/dev/null
  echo "== mcpx-bench" >&2
  "$bin/mcpx-bench" "${root_bins[@]}" --out "$work/mcpx.md" >/dev/null
  echo "== sandbox-bench" >&2
  "$bin/sandbox-bench" "${root_bins[@]}" --out "$work/sandbox.md" >/dev/null
  echo "== scaleout-bench" >&2
  "$bin/scaleout-bench" "${root_bins[@]}" --out "$work/scaleout.md" >/dev/null
  echo "== server-bench" >&2
  "$bin/server-bench" --include "$work/jsonrpc.md" --include "$work/mcpx.md" \
    --include "$work/sandbox.md" --include "$work/scaleout.md" --out docs/benchmarks.md >/dev/null
  scripts/gen-llms-txt.sh
fi
