//! Scale-out (issue 16), first the ground it stands on: the real `haproxy` and `redis-server`
//! the replica tests run with (`mcp_test_support::scale_out`). The balancer must send each
//! request of one keep-alive client to the next replica in turn (no stickiness: what the
//! replicas share is what makes a session work), and route around a replica that is gone;
//! the store must answer, stop, and come back on its port.

use std::time::Duration;

use axum::Router;
use axum::routing::get;
use mcp_test_support::scale_out::{Haproxy, Redis};

/// A replica stand-in: answers `GET /who` with its name.
async fn backend(name: &'static str) -> (u16, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = Router::new().route("/who", get(move || async move { name }));
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (port, task)
}

#[tokio::test]
async fn the_balancer_takes_turns_per_request_and_routes_around_a_dead_replica() {
    let dir = tempfile::tempdir().unwrap();
    let (first, first_task) = backend("r1").await;
    let (second, _second_task) = backend("r2").await;
    let balancer = Haproxy::start(&[first, second], dir.path()).await;
    // One client, one kept-alive connection to the balancer.
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let who = || async {
        client
            .get(format!("{}/who", balancer.origin()))
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let mut seen = Vec::new();
    for _ in 0..4 {
        seen.push(who().await);
    }
    assert!(
        seen == ["r1", "r2", "r1", "r2"] || seen == ["r2", "r1", "r2", "r1"],
        "each request goes to the next replica: {seen:?}"
    );
    // r1 goes away: its connections are refused, and the balancer retries on r2.
    first_task.abort();
    let _ = first_task.await;
    for _ in 0..4 {
        assert_eq!(who().await, "r2");
    }
}

#[tokio::test]
async fn the_store_answers_stops_and_comes_back_on_its_port() {
    let dir = tempfile::tempdir().unwrap();
    let mut redis = Redis::start(dir.path()).await;
    assert!(redis.ping().await);
    redis.stop().await;
    assert!(!redis.ping().await, "a stopped store does not answer");
    redis.restart().await;
    assert!(redis.ping().await);
    assert!(redis.url.starts_with("redis://127.0.0.1:"), "{}", redis.url);
}
