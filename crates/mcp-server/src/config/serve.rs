//! Serving as configured.

use std::io;

use super::ServerConfig;
use crate::{HttpServer, Server, ServerBuilder, SkillError};

impl ServerBuilder {
    /// Applies a deployment's configuration: its limits
    /// ([`ServerConfig::server_options`]) and, when it says so, metrics. Serve the server
    /// with [`Server::serve_config`].
    pub fn config(self, config: &ServerConfig) -> Self {
        let builder = self.options(config.server_options());
        if config.metrics {
            builder.metrics()
        } else {
            builder
        }
    }
}

impl ServerBuilder {
    /// Serves the skills of every folder the configuration names
    /// ([`ServerConfig::skills_dirs`]: `[skills] dirs`, `MCP_SKILLS_DIR`), as
    /// [`ServerBuilder::skills_dir`] does; with none named, nothing changes.
    ///
    /// # Errors
    ///
    /// A folder or one of its skills cannot be loaded (the error names the skill and the rule).
    pub fn config_skills(self, config: &ServerConfig) -> Result<Self, SkillError> {
        config
            .skills_dirs
            .iter()
            .try_fold(self, |builder, dir| builder.skills_dir(dir))
    }
}

impl Server {
    /// Binds [`ServerConfig::bind_address`] with [`ServerConfig::http_options`] (HTTPS when
    /// [`ServerConfig::tls`] is set) and serves in the background, like
    /// [`Server::bind_http`].
    ///
    /// Build the server with [`ServerConfig::server_options`] so that the page size and
    /// message limit apply too (a server built with other values is logged as a warning).
    ///
    /// # Errors
    ///
    /// The TLS files cannot be used, or the address cannot be bound (the message names it).
    pub async fn bind_config(&self, config: &ServerConfig) -> io::Result<HttpServer> {
        let options = self.options();
        if options.page_size != config.page_size
            || options.max_message_bytes != config.max_message_bytes
            || config.metrics != self.metrics().is_some()
        {
            tracing::warn!(
                "the server was built with page_size {}, max_message_bytes {} and metrics {}, \
                 the configuration says {}, {} and {}: build it with \
                 ServerBuilder::config(&config)",
                options.page_size,
                options.max_message_bytes,
                self.metrics().is_some(),
                config.page_size,
                config.max_message_bytes,
                config.metrics
            );
        }
        if matches!(config.host.as_str(), "0.0.0.0" | "::") && config.allowed_hosts.is_none() {
            tracing::warn!(
                "listening on every interface ({}) with the loopback-only Host allowlist: \
                 requests naming this machine otherwise are refused; set http.allowed_hosts \
                 (MCP_ALLOWED_HOSTS)",
                config.host
            );
        }
        self.bind_http((config.host.as_str(), config.port), config.http_options())
            .await
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot serve on {}: {e}", config.bind_address()),
                )
            })
    }

    /// Serves as `config` says until [`Server::shutdown`] (which
    /// [`Server::shutdown_on_signals`] calls on SIGINT/SIGTERM): logs the URL (`tracing`, info
    /// level), and returns once requests in flight finished or
    /// [`ServerConfig::shutdown_grace`] passed.
    ///
    /// ```no_run
    /// # async fn run(server: mcp_server::Server) -> std::io::Result<()> {
    /// let config = mcp_server::ServerConfig::load("mcp.toml")?;
    /// server.shutdown_on_signals()?;
    /// server.serve_config(&config).await
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Server::bind_config`].
    pub async fn serve_config(&self, config: &ServerConfig) -> io::Result<()> {
        let http = self.bind_config(config).await?;
        tracing::info!(url = %http.url(), "MCP server listening");
        http.wait().await
    }

    /// Serves as a small server's command line says: no arguments, stdio; `--http PORT`,
    /// streamable HTTP on `127.0.0.1:PORT` (port 0: the system picks one), announced on
    /// stderr as `MCP server listening on http://127.0.0.1:PORT/mcp`, until SIGINT or SIGTERM
    /// (requests in flight finish first); with `MCP_REDIS_URL` set (feature `redis`), its
    /// sessions are shared through that Redis with the other replicas. The examples' `main`
    /// is one call:
    ///
    /// ```no_run
    /// # async fn run(server: mcp_server::Server) -> std::io::Result<()> {
    /// server.serve_args(std::env::args().skip(1)).await
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// Other arguments (the message gives the usage), a port that cannot be bound, or an I/O
    /// error of the transport.
    pub async fn serve_args(&self, args: impl IntoIterator<Item = String>) -> io::Result<()> {
        let args: Vec<String> = args.into_iter().collect();
        match args.as_slice() {
            [] => self.serve_stdio().await,
            [flag, port] if flag == "--http" => {
                let port: u16 = port.parse().map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("invalid port `{port}`: {e}"),
                    )
                })?;
                self.shutdown_on_signals()?;
                let options = crate::HttpOptions::default().session_store_from_env()?;
                let http = self.bind_http(("127.0.0.1", port), options).await?;
                eprintln!("MCP server listening on {}", http.url());
                http.wait().await
            }
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "usage: [--http PORT] (no arguments: stdio)",
            )),
        }
    }
}
