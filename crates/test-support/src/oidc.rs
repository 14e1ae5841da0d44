//! A real authorization server for the OAuth tests: oidc-provider (panva/node-oidc-provider)
//! run by `fixtures/oidc_as.mjs`, and a [`Browser`] that signs in and consents there over
//! plain HTTP, as a person would in a browser.

use std::process::Stdio;
use std::time::Duration;

use reqwest::Url;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::{fixture, node_command, oidc_provider_dir};

/// The authorization server: the fixture as a child process (killed when dropped).
pub struct AuthorizationServer {
    _child: tokio::process::Child,
    /// Its issuer (`http://127.0.0.1:PORT`).
    pub issuer: String,
    http: reqwest::Client,
}

impl AuthorizationServer {
    /// Starts it with access tokens that live `access_token_ttl` seconds. Fails, saying what
    /// to install, without Node.js or the peers.
    pub async fn start(access_token_ttl: u64) -> Self {
        let mut command = node_command();
        command
            .arg(fixture("oidc_as.mjs"))
            .args(["--port", "0"])
            .args(["--access-token-ttl", &access_token_ttl.to_string()])
            .arg("--oidc-provider")
            .arg(oidc_provider_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().unwrap_or_else(|e| {
            panic!(
                "cannot run node ({e}): install Node.js 20 or newer, then run \
                 scripts/install-peers.sh"
            )
        });
        let stderr = child.stderr.take().expect("piped stderr");
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("[oidc_as] {line}");
            }
        });
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let ready = tokio::time::timeout(Duration::from_secs(30), stdout.next_line())
            .await
            .expect("the authorization server said it was ready within 30 s")
            .expect("its stdout is readable")
            .unwrap_or_else(|| {
                panic!(
                    "the authorization server exited before it was ready (its stderr is above; \
                     is oidc-provider installed? run scripts/install-peers.sh)"
                )
            });
        let issuer = ready
            .strip_prefix("ready ")
            .unwrap_or_else(|| panic!("not the ready line: {ready}"))
            .to_owned();
        Self {
            _child: child,
            issuer,
            http: reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("a client"),
        }
    }

    /// What it saw: registrations, authorization requests, token requests, documents.
    pub async fn log(&self) -> Value {
        let body = self
            .http
            .get(format!("{}/_test/log", self.issuer))
            .send()
            .await
            .expect("the authorization server answers")
            .bytes()
            .await
            .expect("its log is read");
        serde_json::from_slice(&body).expect("its log is JSON")
    }

    /// The token requests of `grant_type` answered `200`.
    pub async fn granted(&self, grant_type: &str) -> usize {
        self.log().await["tokens"]
            .as_array()
            .expect("a list of token requests")
            .iter()
            .filter(|t| t["grant_type"] == grant_type && t["status"] == 200)
            .count()
    }
}

/// A person at a browser: follows the authorization server's redirects with a cookie jar,
/// signs in as `alice`, consents, and stops at the redirect to the client (returned, not
/// requested). The prompts met in each authorization are recorded.
pub struct Browser {
    http: reqwest::Client,
    prompts: std::sync::Mutex<Vec<Vec<String>>>,
}

impl Default for Browser {
    fn default() -> Self {
        Self::new()
    }
}

impl Browser {
    /// A browser with an empty cookie jar.
    pub fn new() -> Self {
        Self {
            http: reqwest::Client::builder()
                .no_proxy()
                .cookie_store(true)
                .redirect(reqwest::redirect::Policy::none())
                .timeout(Duration::from_secs(15))
                .build()
                .expect("a client"),
            prompts: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The prompts of each authorization so far (`[["login", "consent"], …]`).
    pub fn prompts(&self) -> Vec<Vec<String>> {
        self.prompts.lock().expect("not poisoned").clone()
    }

    /// Authorizes at `url` until the authorization server redirects to `redirect_uri`: that
    /// URL (with `code`, `state`, `iss`) is returned without being requested.
    pub async fn authorize(&self, url: &Url, redirect_uri: &str) -> Result<Url, String> {
        self.prompts.lock().expect("not poisoned").push(Vec::new());
        let mut next = url.clone();
        for _ in 0..12 {
            let mut bare = next.clone();
            bare.set_query(None);
            if bare.as_str() == redirect_uri {
                return Ok(next);
            }
            next = self.send(self.http.get(next.clone()), &next).await?;
        }
        Err(format!("too many redirects, the last to {next}"))
    }

    /// GETs `url` (a redirect to a client's loopback listener, say): its status and body.
    pub async fn open(&self, url: &Url) -> Result<(u16, String), String> {
        let response = self
            .http
            .get(url.clone())
            .send()
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        let status = response.status().as_u16();
        Ok((status, response.text().await.unwrap_or_default()))
    }

    /// Sends a request: a redirect's target, or, for a login or consent page, the target of
    /// submitting its form.
    async fn send(&self, request: reqwest::RequestBuilder, url: &Url) -> Result<Url, String> {
        let response = request.send().await.map_err(|e| format!("{url}: {e}"))?;
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| format!("{url}: HTTP {status} without a Location"))?;
            return url.join(location).map_err(|e| e.to_string());
        }
        let body = response.text().await.unwrap_or_default();
        if !status.is_success() {
            return Err(format!("{url}: HTTP {status}: {body}"));
        }
        let prompt = between(&body, "<meta name=\"prompt\" content=\"", "\"")
            .ok_or_else(|| format!("{url}: a page that is no form of the fixture's: {body}"))?;
        let action = between(&body, "action=\"", "\"")
            .ok_or_else(|| format!("{url}: the {prompt} page has no form"))?;
        if let Some(last) = self.prompts.lock().expect("not poisoned").last_mut() {
            last.push(prompt.to_owned());
        }
        let target = url.join(action).map_err(|e| e.to_string())?;
        let form: &[(&str, &str)] = match prompt {
            "login" => &[("login", "alice")],
            _ => &[],
        };
        let body = reqwest::Url::parse_with_params("http://form.invalid/", form)
            .ok()
            .and_then(|u| u.query().map(str::to_owned))
            .unwrap_or_default();
        let post = self
            .http
            .post(target.clone())
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body);
        Box::pin(self.send(post, &target)).await
    }
}

/// The text between `start` and the next `end` in `text`.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}
