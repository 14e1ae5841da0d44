//! The command line shared by the benchmarked Rust servers:
//! `--transport stdio|http`, `--port N` (HTTP on 127.0.0.1, path `/mcp`), and for rmcp
//! `--stateless` (no sessions, JSON responses) and `--nagle` (accepted sockets keep Nagle's
//! algorithm, as plain `axum::serve` leaves them).

use std::process::ExitCode;

/// How the server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// One JSON-RPC message per line on stdin/stdout.
    Stdio,
    /// Streamable HTTP at `http://127.0.0.1:{port}/mcp`.
    Http,
}

/// The parsed command line.
#[derive(Debug, Clone, Copy)]
pub struct PeerArgs {
    /// The transport.
    pub transport: Transport,
    /// The TCP port (HTTP only).
    pub port: u16,
    /// `--stateless` was given.
    pub stateless: bool,
    /// `--nagle` was given.
    pub nagle: bool,
}

/// Parses the process's arguments; on an error prints the usage of `program` and returns
/// the exit code to end with. `--stateless` and `--nagle` are accepted only when
/// `rmcp_flags` is set.
pub fn parse(program: &str, rmcp_flags: bool) -> Result<PeerArgs, ExitCode> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    parse_from(&args, rmcp_flags).map_err(|e| {
        let extra = if rmcp_flags {
            " [--stateless] [--nagle]"
        } else {
            ""
        };
        eprintln!("{program}: {e}\nusage: {program} --transport stdio|http [--port N]{extra}");
        ExitCode::from(2)
    })
}

/// Parses `args` (without the program name).
pub fn parse_from(args: &[String], rmcp_flags: bool) -> Result<PeerArgs, String> {
    let mut transport = None;
    let mut port = None;
    let mut stateless = false;
    let mut nagle = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--transport" => {
                transport = Some(match args.next().map(String::as_str) {
                    Some("stdio") => Transport::Stdio,
                    Some("http") => Transport::Http,
                    other => return Err(format!("--transport takes stdio or http, not {other:?}")),
                });
            }
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                port = Some(
                    value
                        .parse::<u16>()
                        .map_err(|e| format!("--port {value:?}: {e}"))?,
                );
            }
            "--stateless" if rmcp_flags => stateless = true,
            "--nagle" if rmcp_flags => nagle = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let transport = transport.ok_or("--transport is required")?;
    let port = match (transport, port) {
        (Transport::Http, None) => return Err("--transport http needs --port".into()),
        (_, port) => port.unwrap_or(0),
    };
    Ok(PeerArgs {
        transport,
        port,
        stateless,
        nagle,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn parses_both_transports_and_refuses_the_rest() {
        let stdio = parse_from(&args(&["--transport", "stdio"]), false).unwrap();
        assert_eq!(stdio.transport, Transport::Stdio);
        let http = parse_from(&args(&["--transport", "http", "--port", "9"]), true).unwrap();
        assert_eq!((http.transport, http.port), (Transport::Http, 9));
        assert!(parse_from(&args(&["--transport", "http"]), false).is_err());
        assert!(parse_from(&args(&["--transport", "stdio", "--stateless"]), false).is_err());
        assert!(parse_from(&args(&["--transport", "tcp"]), false).is_err());
    }
}
