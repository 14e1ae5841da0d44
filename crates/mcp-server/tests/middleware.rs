//! The middleware chain over real HTTP: timeouts, the concurrency limit (and its queue
//! metric), the rate limit reached and recovered (429 with Retry-After), a custom middleware,
//! and `/metrics` scraped and parsed after known traffic.

mod http_support;

use std::sync::Arc;
use std::time::Duration;

use http_support::*;
use mcp_server::middleware::{
    ConcurrencyLimit, Middleware, MiddlewareFuture, Next, RateLimit, Request, RequestLog, Timeout,
};
use mcp_server::{Error, HttpOptions, NoArguments, Server, ToolDef};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Refuses calls of the tool `forbidden` before they reach it.
struct Forbid;

impl Middleware for Forbid {
    fn handle<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> MiddlewareFuture<'a> {
        Box::pin(async move {
            if request.target() == Some("forbidden") {
                return Err(Error::invalid_params("that tool is off limits"));
            }
            next.run(request).await
        })
    }
}

fn call(id: i64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}})
}

fn tools(
    builder: mcp_server::ServerBuilder,
    entered: Arc<Notify>,
    gate: Arc<Notify>,
) -> mcp_server::ServerBuilder {
    builder
        .tool("fast", "Answers at once", |_: NoArguments, _| async {
            Ok("fast")
        })
        .tool("forbidden", "Never reached", |_: NoArguments, _| async {
            Ok("reached")
        })
        .tool_def(ToolDef::new(
            "gated",
            "Waits for the gate",
            move |_: NoArguments, _| {
                let (entered, gate) = (entered.clone(), gate.clone());
                async move {
                    entered.notify_one();
                    gate.notified().await;
                    Ok("gated")
                }
            },
        ))
}

/// `name{labels} value` lines of a Prometheus text page.
fn sample(page: &str, name: &str, labels: &[&str]) -> Option<f64> {
    page.lines()
        .filter(|l| !l.starts_with('#'))
        .find(|l| l.starts_with(name) && labels.iter().all(|lab| l.contains(lab)))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

async fn send(c: &reqwest::Client, url: &str, sid: &str, body: &Value) -> reqwest::Response {
    in_session(c, url, sid).json(body).send().await.unwrap()
}

async fn scrape(c: &reqwest::Client, http: &mcp_server::HttpServer) -> String {
    let page = c
        .get(format!("http://{}/metrics", http.local_addr()))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    page.text().await.unwrap()
}

#[tokio::test]
async fn the_concurrency_limit_refuses_with_503_when_its_queue_is_full() {
    let (entered, gate) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let server = tools(
        Server::builder("mw", "1.0.0"),
        entered.clone(),
        gate.clone(),
    )
    .metrics()
    .middleware(ConcurrencyLimit::new(1, 0))
    .build();
    let http = start(&server, HttpOptions::default()).await;
    let (url, c) = (http.url(), client());
    let sid = initialize(&c, &url).await;
    let running = {
        let (c, url, sid) = (c.clone(), url.clone(), sid.clone());
        tokio::spawn(async move { send(&c, &url, &sid, &call(2, "gated")).await })
    };
    entered.notified().await;
    let refused = send(&c, &url, &sid, &call(3, "fast")).await;
    assert_eq!(refused.status(), 503);
    assert_eq!(refused.headers()["retry-after"], "1");
    let (_, body, code) = outcome(refused).await;
    assert_eq!(code, Some(-32012), "{body}");
    gate.notify_one();
    let (status, body, _) = outcome(running.await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(text_of(&body), "gated");
    let (status, _, _) = outcome(send(&c, &url, &sid, &call(4, "fast")).await).await;
    assert_eq!(status, 200, "the permit was given back");
    let page = scrape(&c, &http).await;
    assert_eq!(
        sample(&page, "mcp_errors_total", &["code=\"-32012\""]),
        Some(1.0),
        "{page}"
    );
    assert_eq!(sample(&page, "mcp_queue_length", &[]), Some(0.0), "{page}");
}

#[tokio::test]
async fn the_rate_limit_answers_429_then_recovers_and_metrics_count_it_all() {
    let (entered, gate) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let server = tools(Server::builder("mw", "1.0.0"), entered, gate)
        .metrics()
        .middleware(RequestLog)
        .middleware(Forbid)
        .middleware(RateLimit::new(5.0, 3))
        .build();
    let http = start(&server, HttpOptions::default()).await;
    let (url, c) = (http.url(), client());
    let sid = initialize(&c, &url).await;

    // A custom middleware answers instead of the tool (and spends a token).
    let (status, body, code) = outcome(send(&c, &url, &sid, &call(1, "forbidden")).await).await;
    assert_eq!((status, code), (200, Some(-32602)), "{body}");
    // Burst 3: two more pass, the next is refused.
    for id in 2..4 {
        let (status, _, _) = outcome(send(&c, &url, &sid, &call(id, "fast")).await).await;
        assert_eq!(status, 200);
    }
    let limited = send(&c, &url, &sid, &call(4, "fast")).await;
    assert_eq!(limited.status(), 429);
    assert_eq!(limited.headers()["retry-after"], "1");
    let (_, body, code) = outcome(limited).await;
    assert_eq!(code, Some(-32010));
    let wait = body["error"]["data"]["retryAfterMs"].as_u64().unwrap();
    assert!((1..=200).contains(&wait), "{body}");
    // The limit is defined in time: waiting what the server asked is the recovery.
    tokio::time::sleep(Duration::from_millis(wait)).await;
    let (status, body, _) = outcome(send(&c, &url, &sid, &call(5, "fast")).await).await;
    assert_eq!(status, 200, "{body}");

    let page = scrape(&c, &http).await;
    let count = |labels: &[&str]| sample(&page, "mcp_requests_total", labels);
    assert_eq!(
        count(&["tool=\"fast\"", "outcome=\"ok\""]),
        Some(3.0),
        "{page}"
    );
    assert_eq!(
        count(&["tool=\"fast\"", "outcome=\"error\""]),
        Some(1.0),
        "{page}"
    );
    assert_eq!(
        count(&["tool=\"forbidden\"", "outcome=\"error\""]),
        Some(1.0),
        "{page}"
    );
    assert_eq!(
        count(&["method=\"initialize\"", "outcome=\"ok\""]),
        Some(1.0),
        "{page}"
    );
    assert_eq!(
        sample(&page, "mcp_errors_total", &["code=\"-32602\""]),
        Some(1.0),
        "{page}"
    );
    assert_eq!(
        sample(&page, "mcp_errors_total", &["code=\"-32010\""]),
        Some(1.0),
        "{page}"
    );
    assert_eq!(
        sample(&page, "mcp_active_sessions", &[]),
        Some(1.0),
        "{page}"
    );
    assert_eq!(
        sample(
            &page,
            "mcp_request_duration_seconds_count",
            &["tool=\"fast\""]
        ),
        Some(4.0),
        "{page}"
    );
    assert!(
        page.contains("mcp_request_duration_seconds_bucket"),
        "a histogram: {page}"
    );
}

#[tokio::test]
async fn a_slow_request_times_out_and_metrics_can_be_off() {
    let (entered, gate) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let server = tools(Server::builder("mw", "1.0.0"), entered, gate)
        .middleware(Timeout(Duration::from_millis(50)))
        .build();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize(&c, &url).await;
    let (status, body, code) = outcome(
        in_session(&c, &url, &sid)
            .json(&call(1, "gated"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, code), (200, Some(-32011)), "{body}");
    assert_eq!(body["error"]["data"]["timeoutMs"], 50);
    let page = c
        .get(format!("http://{}/metrics", http.local_addr()))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 404);
}

#[tokio::test]
async fn idempotent_reads_are_cached_until_the_registry_changes() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let reads = Arc::new(AtomicUsize::new(0));
    let counter = reads.clone();
    let server = Server::builder("cache", "1.0.0")
        .resource(mcp_server::ResourceDef::new(
            "test://costly",
            "costly",
            Some("text/plain"),
            move |_| {
                let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
                async move { Ok(format!("read {n}")) }
            },
        ))
        .middleware(mcp_server::middleware::ResponseCache::new(
            Duration::from_secs(60),
            100,
        ))
        .build();
    let http = start(&server, HttpOptions::default()).await;
    let (url, c) = (http.url(), client());
    let read = |id: i64| {
        stateless(
            &c,
            &url,
            id,
            "resources/read",
            json!({"uri": "test://costly"}),
        )
    };
    let text = |body: &Value| {
        body["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (_, first, _) = outcome(read(1).send().await.unwrap()).await;
    let (_, second, _) = outcome(read(2).send().await.unwrap()).await;
    assert_eq!(
        (text(&first), text(&second)),
        ("read 1".into(), "read 1".into())
    );
    assert_eq!(second["id"], 2, "the cached result answers the new request");
    assert_eq!(second["result"]["resultType"], "complete");
    assert_eq!(reads.load(Ordering::SeqCst), 1);
    // A change empties the cache.
    server.notify_resource_updated("test://costly");
    let (_, third, _) = outcome(read(3).send().await.unwrap()).await;
    assert_eq!(text(&third), "read 2");
}
