//! How an HTTP endpoint accepts connections: plain TCP, or TLS (rustls, feature `tls`) in
//! front of the same router.
//!
//! Every accepted socket gets `TCP_NODELAY` before anything is read or written, so neither a
//! TLS handshake nor a response waits for Nagle's algorithm. TLS handshakes run in their own
//! tasks (a slow or silent client never holds up the others) and are abandoned after
//! [`HANDSHAKE_TIMEOUT`].

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};

/// The certificate chain and private key of an HTTPS endpoint, as PEM files
/// ([`HttpOptions::tls`](crate::HttpOptions::tls); needs the crate feature `tls`).
///
/// Both files are read when the endpoint binds; a missing, unreadable or empty file, a key
/// that is not a private key, or a key that does not belong to the certificate is an error
/// then, naming the file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TlsConfig {
    /// PEM file with the certificate chain, the server's own certificate first.
    pub cert: PathBuf,
    /// PEM file with the private key (PKCS#8, PKCS#1/RSA or SEC1/EC).
    pub key: PathBuf,
}

impl TlsConfig {
    /// The certificate chain at `cert` and the private key at `key` (PEM files).
    pub fn new(cert: impl Into<PathBuf>, key: impl Into<PathBuf>) -> Self {
        Self {
            cert: cert.into(),
            key: key.into(),
        }
    }
}

/// How long a client may take to complete the TLS handshake.
#[cfg_attr(not(feature = "tls"), allow(dead_code))]
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Handshakes in progress at most; beyond it no connection is accepted until one finishes.
#[cfg_attr(not(feature = "tls"), allow(dead_code))]
const MAX_PENDING_HANDSHAKES: usize = 1024;

/// A bound listener: plain TCP, or TCP with TLS.
pub(super) struct Listener {
    tcp: TcpListener,
    #[cfg(feature = "tls")]
    tls: Option<Handshakes>,
}

#[cfg(feature = "tls")]
struct Handshakes {
    acceptor: tokio_rustls::TlsAcceptor,
    pending: tokio::task::JoinSet<Option<(tokio_rustls::server::TlsStream<TcpStream>, SocketAddr)>>,
}

impl Listener {
    /// Reads the TLS files (when given), then binds `addr`.
    pub(super) async fn bind(
        addr: impl ToSocketAddrs,
        tls: Option<&TlsConfig>,
    ) -> io::Result<Self> {
        #[cfg(feature = "tls")]
        let tls = match tls {
            Some(files) => Some(Handshakes {
                acceptor: acceptor(files)?,
                pending: tokio::task::JoinSet::new(),
            }),
            None => None,
        };
        #[cfg(not(feature = "tls"))]
        if let Some(files) = tls {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "TLS is configured (certificate {}) but mcp-server was built without its \
                     `tls` feature: enable it (mcp-server = {{ features = [\"tls\"] }}) or remove \
                     the TLS settings",
                    files.cert.display()
                ),
            ));
        }
        let tcp = TcpListener::bind(addr).await?;
        Ok(Self {
            tcp,
            #[cfg(feature = "tls")]
            tls,
        })
    }

    /// The address bound.
    pub(super) fn local_addr(&self) -> io::Result<SocketAddr> {
        self.tcp.local_addr()
    }

    /// `https` with TLS, `http` without.
    pub(super) fn scheme(&self) -> &'static str {
        #[cfg(feature = "tls")]
        if self.tls.is_some() {
            return "https";
        }
        "http"
    }
}

impl axum::serve::Listener for Listener {
    type Io = Conn;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Conn, SocketAddr) {
        #[cfg(feature = "tls")]
        if let Some(tls) = &mut self.tls {
            return accept_tls(&self.tcp, tls).await;
        }
        loop {
            match self.tcp.accept().await {
                Ok((tcp, addr)) => {
                    no_delay(&tcp);
                    return (Conn::Left(tcp), addr);
                }
                Err(e) => accept_failed(e).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.tcp.local_addr()
    }
}

/// Accepts TCP connections and hands back the first one whose handshake completed.
/// Cancel-safe: a dropped call loses no connection (finished handshakes stay in `pending`).
#[cfg(feature = "tls")]
async fn accept_tls(tcp: &TcpListener, tls: &mut Handshakes) -> (Conn, SocketAddr) {
    loop {
        tokio::select! {
            biased;
            Some(done) = tls.pending.join_next(), if !tls.pending.is_empty() => {
                if let Ok(Some((stream, addr))) = done {
                    return (Conn::Right(Box::new(stream)), addr);
                }
            }
            accepted = tcp.accept(), if tls.pending.len() < MAX_PENDING_HANDSHAKES => {
                match accepted {
                    Ok((stream, addr)) => {
                        no_delay(&stream);
                        let acceptor = tls.acceptor.clone();
                        tls.pending.spawn(async move {
                            match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                                Ok(Ok(stream)) => Some((stream, addr)),
                                Ok(Err(e)) => {
                                    tracing::debug!(%addr, "TLS handshake failed: {e}");
                                    None
                                }
                                Err(_) => {
                                    tracing::debug!(%addr, "TLS handshake timed out");
                                    None
                                }
                            }
                        });
                    }
                    Err(e) => accept_failed(e).await,
                }
            }
        }
    }
}

fn no_delay(tcp: &TcpStream) {
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!("TCP_NODELAY could not be set: {e}");
    }
}

/// What `accept` failing means: a connection that went away before it was accepted is
/// nothing; anything else (out of file descriptors) is logged and retried a moment later,
/// as axum's own listener does.
async fn accept_failed(e: io::Error) {
    if matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!("accepting a connection failed: {e}");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

/// Reads the certificate chain and key and makes the acceptor (HTTP/1.1 by ALPN).
#[cfg(feature = "tls")]
fn acceptor(files: &TlsConfig) -> io::Result<tokio_rustls::TlsAcceptor> {
    use std::sync::Arc;
    use tokio_rustls::rustls;
    use tokio_rustls::rustls::pki_types::pem::{self, PemObject};
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

    let invalid = |message: String| io::Error::new(io::ErrorKind::InvalidInput, message);
    let read = |path: &PathBuf, what: &str| {
        std::fs::read(path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot read the TLS {what} file {}: {e}", path.display()),
            )
        })
    };
    let cert_pem = read(&files.cert, "certificate")?;
    let certs = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<Vec<_>, pem::Error>>()
        .map_err(|e| {
            invalid(format!(
                "the TLS certificate file {} is not valid PEM: {e}",
                files.cert.display()
            ))
        })?;
    if certs.is_empty() {
        return Err(invalid(format!(
            "the TLS certificate file {} holds no certificate (expected PEM blocks \
             `-----BEGIN CERTIFICATE-----`)",
            files.cert.display()
        )));
    }
    let key_pem = read(&files.key, "key")?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
        let detail = match e {
            pem::Error::NoItemsFound => "it holds no private key (expected a PEM block \
                 `-----BEGIN PRIVATE KEY-----`, `RSA PRIVATE KEY` or `EC PRIVATE KEY`)"
                .to_owned(),
            other => format!("it is not valid PEM: {other}"),
        };
        invalid(format!(
            "the TLS key file {} cannot be used: {detail}",
            files.key.display()
        ))
    })?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| io::Error::other(format!("TLS setup failed: {e}")))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| {
            let detail = match e {
                rustls::Error::InconsistentKeys(_) => {
                    "the key is not the certificate's (check that both files come from the same \
                     certificate request)"
                        .to_owned()
                }
                other => other.to_string(),
            };
            invalid(format!(
                "the TLS certificate {} and key {} cannot be used together: {detail}",
                files.cert.display(),
                files.key.display()
            ))
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// The TLS side of a [`Conn`].
#[cfg(feature = "tls")]
type TlsStream = Box<tokio_rustls::server::TlsStream<TcpStream>>;
/// Without the `tls` feature no connection is TLS: the right side of [`Conn`] is never built.
#[cfg(not(feature = "tls"))]
type TlsStream = TcpStream;

/// An accepted connection: plain (left) or TLS (right).
pub(super) type Conn = tokio_util::either::Either<TcpStream, TlsStream>;
