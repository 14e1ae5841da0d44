//! The person's side of the authorization code flow: showing the authorization URL and
//! receiving the redirect back. [`AuthorizationAgent`] is the seam an application fills with
//! its own UI; [`LoopbackAgent`] is the CLI's (a listener on 127.0.0.1, the URL handed to a
//! browser); [`HeadlessAgent`] serves authorization servers that approve without a person
//! (test servers, the conformance suite).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use url::Url;

/// The future of [`AuthorizationAgent::authorize`].
pub type AgentFuture<'a> = Pin<Box<dyn Future<Output = Result<Url, String>> + Send + 'a>>;

/// Shows a person the authorization URL and brings back where the authorization server
/// redirected them.
pub trait AuthorizationAgent: Send + Sync + 'static {
    /// The redirect URI, registered with the authorization server and sent with every
    /// authorization request.
    fn redirect_uri(&self) -> String;

    /// Lets the person authorize at `url` (already checked against the trust policy), and
    /// returns the URL the authorization server redirected to (the redirect URI with `code`,
    /// `state` and `iss`, or `error`). An error is a message for the user.
    fn authorize<'a>(&'a self, url: &'a Url) -> AgentFuture<'a>;

    /// The same agent redirected to `port` (a server's `oauth.redirect_port`), for agents
    /// that listen on one; `None` (the default) keeps this one.
    fn on_port(&self, port: u16) -> Option<Arc<dyn AuthorizationAgent>> {
        let _ = port;
        None
    }
}

/// For an authorization server that approves at once: GETs the authorization URL without
/// following the redirect, and takes the redirect's target. Nothing listens on the redirect
/// URI.
#[derive(Debug, Clone)]
pub struct HeadlessAgent {
    redirect_uri: String,
    http: reqwest::Client,
}

impl HeadlessAgent {
    /// An agent that registers `redirect_uri`.
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(super::fetch::EXCHANGE_TIMEOUT)
            .build()
            .unwrap_or_default();
        Self {
            redirect_uri: redirect_uri.into(),
            http,
        }
    }
}

impl AuthorizationAgent for HeadlessAgent {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, url: &'a Url) -> AgentFuture<'a> {
        Box::pin(async move {
            let response =
                self.http.get(url.clone()).send().await.map_err(|e| {
                    format!("the authorization request failed: {}", e.without_url())
                })?;
            let status = response.status();
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .filter(|_| status.is_redirection())
                .ok_or_else(|| {
                    format!(
                        "the authorization server answered HTTP {status} without redirecting \
                         back: it needs a person (use a browser)"
                    )
                })?;
            url.join(location)
                .map_err(|e| format!("the authorization server redirected to a bad URL: {e}"))
        })
    }
}

/// What [`LoopbackAgent`] does with the authorization URL: open a browser, print it, or both.
pub type ShowUrl = Arc<dyn Fn(&Url) + Send + Sync>;

/// The default port of the loopback redirect (`http://127.0.0.1:PORT/callback`). A fixed
/// port, because authorization servers match redirect URIs exactly.
pub const DEFAULT_REDIRECT_PORT: u16 = 33418;

/// How long [`LoopbackAgent`] waits for the person to finish.
pub const LOOPBACK_WAIT: Duration = Duration::from_secs(300);

/// The CLI's agent: listens on `127.0.0.1:PORT` while the person authorizes in a browser,
/// and takes the first request to `/callback`.
#[derive(Clone)]
pub struct LoopbackAgent {
    port: u16,
    show: ShowUrl,
    wait: Duration,
}

impl std::fmt::Debug for LoopbackAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackAgent")
            .field("port", &self.port)
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

impl LoopbackAgent {
    /// An agent on `port` that hands the authorization URL to `show`.
    pub fn new(port: u16, show: ShowUrl) -> Self {
        Self {
            port,
            show,
            wait: LOOPBACK_WAIT,
        }
    }

    /// Waits `wait` for the redirect instead of [`LOOPBACK_WAIT`].
    pub fn with_wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }
}

impl AuthorizationAgent for LoopbackAgent {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn on_port(&self, port: u16) -> Option<Arc<dyn AuthorizationAgent>> {
        Some(Arc::new(Self {
            port,
            ..self.clone()
        }))
    }

    fn authorize<'a>(&'a self, url: &'a Url) -> AgentFuture<'a> {
        Box::pin(async move {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port))
                .await
                .map_err(|e| {
                    format!(
                        "cannot listen for the redirect on 127.0.0.1:{}: {e} (another login \
                         running? set the server's oauth.redirect_port)",
                        self.port
                    )
                })?;
            (self.show)(url);
            tokio::time::timeout(self.wait, receive_callback(&listener, self.port))
                .await
                .map_err(|_| {
                    format!(
                        "no redirect came back within {}s: the authorization was not completed",
                        self.wait.as_secs()
                    )
                })?
        })
    }
}

/// Answers requests on `listener` until one reaches `/callback`; returns its URL.
async fn receive_callback(listener: &tokio::net::TcpListener, port: u16) -> Result<Url, String> {
    loop {
        let (mut stream, _) = listener
            .accept()
            .await
            .map_err(|e| format!("the redirect listener failed: {e}"))?;
        let mut buffer = vec![0u8; 8 * 1024];
        let mut filled = 0;
        let target = loop {
            let Ok(read) = stream.read(&mut buffer[filled..]).await else {
                break None;
            };
            if read == 0 {
                break None;
            }
            filled += read;
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut request = httparse::Request::new(&mut headers);
            match request.parse(&buffer[..filled]) {
                Ok(httparse::Status::Complete(_)) => {
                    break request.path.map(str::to_owned);
                }
                Ok(httparse::Status::Partial) if filled < buffer.len() => {}
                _ => break None,
            }
        };
        let callback = target
            .as_deref()
            .and_then(|t| Url::parse(&format!("http://127.0.0.1:{port}{t}")).ok())
            .filter(|u| u.path() == "/callback");
        let (status, page) = match callback {
            Some(_) => (
                "200 OK",
                "<!doctype html><title>mcp-kit</title><p>Authorization received. You can close \
                 this window and return to the terminal.</p>",
            ),
            None => ("404 Not Found", "<!doctype html><p>Not found.</p>"),
        };
        let answer = format!(
            "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: \
             {}\r\nconnection: close\r\ncache-control: no-store\r\n\r\n{page}",
            page.len()
        );
        let _ = stream.write_all(answer.as_bytes()).await;
        let _ = stream.shutdown().await;
        if let Some(callback) = callback {
            return Ok(callback);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_loopback_agent_returns_the_callback_and_ignores_other_paths() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let (shown, mut seen) = tokio::sync::mpsc::unbounded_channel();
        let agent = LoopbackAgent::new(
            port,
            Arc::new(move |url: &Url| {
                let _ = shown.send(url.clone());
            }),
        );
        assert_eq!(
            agent.redirect_uri(),
            format!("http://127.0.0.1:{port}/callback")
        );
        let authorization = Url::parse("https://auth.example.com/authorize?x=1").unwrap();
        let waiting = tokio::spawn(async move { agent.authorize(&authorization).await });
        assert_eq!(
            seen.recv().await.unwrap().as_str(),
            "https://auth.example.com/authorize?x=1"
        );
        let browser = reqwest::Client::new();
        let favicon = browser
            .get(format!("http://127.0.0.1:{port}/favicon.ico"))
            .send()
            .await
            .unwrap();
        assert_eq!(favicon.status(), 404);
        let page = browser
            .get(format!("http://127.0.0.1:{port}/callback?code=c1&state=s1"))
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 200);
        let url = waiting.await.unwrap().unwrap();
        assert_eq!(url.query(), Some("code=c1&state=s1"));
    }
}
