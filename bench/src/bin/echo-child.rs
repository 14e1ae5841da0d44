//! The benchmark's echo MCP server as a standalone program (the benchmark itself spawns
//! `jsonrpc-bench echo-child`, the same server, so that it never runs a stale build).

fn main() -> std::io::Result<()> {
    mcp_jsonrpc_bench::echo::run_stdio()
}
