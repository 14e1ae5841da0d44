//! A client whose trust policy comes from the command line, as `mcpctl`'s does.
//!
//! ```text
//! cargo run -p mcp-kit --example client_with_policy -- [flags] <server>
//!
//! flags:
//!   --trust              trust the configuration fully (stdio, unix, secrets, auth headers)
//!   --allow-http         untrusted: allow http:// URLs
//!   --allow-localhost    untrusted: allow localhost, *.localhost, *.local, *.localdomain and
//!                        single-label hosts
//!   --allow-private-ip   untrusted: allow non-global IP literals (loopback, private, …)
//!   --allow-host HOST    untrusted: only allow HOST and its subdomains (repeatable)
//!   --dns-check          untrusted: refuse hostnames that resolve to non-global addresses
//! ```
//!
//! The `--allow-*` and `--dns-check` flags build an [`UntrustedStreamableHttpPolicy`]; they
//! only concern `transport=streamable_http` servers. stdio and unix servers need `--trust`.
//! The arguments are parsed by hand to keep the example free of dependencies.

mod common;

use std::time::Duration;

use mcp_kit::{Config, Manager, TrustMode, UntrustedStreamableHttpPolicy};

const USAGE: &str = "usage: client_with_policy [--trust] [--allow-http] [--allow-localhost] \
                     [--allow-private-ip] [--allow-host HOST]... [--dns-check] <server>";

/// What the command line asks for.
struct Options {
    trust: TrustMode,
    policy: UntrustedStreamableHttpPolicy,
    server: String,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut trust = TrustMode::Untrusted;
    let mut policy = UntrustedStreamableHttpPolicy::default();
    let mut server = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--trust" => trust = TrustMode::Trusted,
            "--allow-http" => policy.require_https = false,
            "--allow-localhost" => policy.allow_localhost = true,
            "--allow-private-ip" => policy.allow_private_ips = true,
            "--allow-host" => match args.next() {
                Some(host) => policy.allowed_hosts.push(host),
                None => return Err("--allow-host needs a HOST".into()),
            },
            "--dns-check" => policy.dns_check = true,
            "-h" | "--help" => return Err(USAGE.into()),
            flag if flag.starts_with('-') => return Err(format!("unknown flag {flag}\n{USAGE}")),
            name if server.is_none() => server = Some(name.to_owned()),
            extra => return Err(format!("unexpected argument {extra}\n{USAGE}")),
        }
    }
    let server = server.ok_or_else(|| USAGE.to_owned())?;
    Ok(Options {
        trust,
        policy,
        server,
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };

    let root = std::env::current_dir()?;
    let config = Config::load(&root, None).await?;
    let manager = Manager::new(config, root)
        .with_client_info("client-with-policy", "0.1.0")
        .with_timeout(Duration::from_secs(30))
        .with_trust_mode(options.trust)
        .with_untrusted_streamable_http_policy(options.policy);

    match manager.list_tools(&options.server).await {
        Ok(tools) => {
            common::print_tools(&tools);
            Ok(())
        }
        // A refusal by the trust policy: the message names the rule and the flag that lifts it.
        Err(error) if error.is_refused() => {
            eprintln!("{error}");
            std::process::exit(3);
        }
        Err(error) => Err(error.into()),
    }
}
