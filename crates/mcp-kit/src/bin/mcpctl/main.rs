//! `mcpctl`: the command-line MCP client (being written).

fn main() {
    eprintln!("mcpctl: not available in this build yet");
    std::process::exit(2);
}
