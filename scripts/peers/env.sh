# source scripts/peers/env.sh — after scripts/install-peers.sh. Exports:
#   MCP_PEERS_DIR   where the peers live (default ~/.cache/mcp-toolkit/peers)
#   EVERYTHING_JS   node "$EVERYTHING_JS" stdio | PORT=N node "$EVERYTHING_JS" streamableHttp
#   CONFORMANCE     "$CONFORMANCE" server --url http://127.0.0.1:N/mcp … | client --command "…"
#   PEERS_PYTHON    a python with the official `mcp` package
#   PEERS_PYTHON_MCP1  a python with `mcp` 1.x (FastMCP 1.x, a legacy server)
#   NODE_PATH       resolves the TypeScript SDK for `require`
#   NODE_OPTIONS    preloads: host-less listen() binds 127.0.0.1; fs.globSync on Node < 22
_mcp_peers_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export MCP_PEERS_DIR=${MCP_PEERS_DIR:-$HOME/.cache/mcp-toolkit/peers}
export EVERYTHING_JS="$MCP_PEERS_DIR/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
export CONFORMANCE="$MCP_PEERS_DIR/node/node_modules/.bin/conformance"
export PEERS_PYTHON="$MCP_PEERS_DIR/venv/bin/python"
export PEERS_PYTHON_MCP1="$MCP_PEERS_DIR/venv-mcp1/bin/python"
export NODE_PATH="$MCP_PEERS_DIR/node/node_modules${NODE_PATH:+:$NODE_PATH}"
export NODE_OPTIONS="-r $_mcp_peers_here/listen-loopback.cjs --import $_mcp_peers_here/node20-fs-glob.mjs${NODE_OPTIONS:+ $NODE_OPTIONS}"
unset _mcp_peers_here
