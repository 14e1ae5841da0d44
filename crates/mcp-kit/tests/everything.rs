//! `Manager` against the reference "everything" server (TypeScript SDK), over stdio and over
//! streamable HTTP: every always-present tool, resources and templates, prompts, completion,
//! logging, progress, resource subscriptions, and the server's own `roots/list`,
//! `sampling/createMessage` and `elicitation/create` answered by handlers.

use std::sync::Arc;
use std::time::Duration;

use mcp_kit::mcp::{CompleteRequestParams, LoggingLevel, Reference};
use mcp_kit::{
    Config, Manager, Root, ServerConfig, ServerNotificationContext, ServerRequestContext,
    ServerRequestOutcome, TrustMode, UntrustedStreamableHttpPolicy,
};
use mcp_test_support as support;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(20);

fn args(value: Value) -> Option<Map<String, Value>> {
    value.as_object().cloned()
}

/// What the handlers saw.
struct Observed {
    notifications: mpsc::UnboundedReceiver<(String, Value)>,
    requests: mpsc::UnboundedReceiver<String>,
}

fn manager(config: Config) -> (Manager, Observed) {
    let (notes_tx, notifications) = mpsc::unbounded_channel();
    let (requests_tx, requests) = mpsc::unbounded_channel();
    let manager = Manager::new(config, std::env::temp_dir())
        .with_client_info("mcp-kit-tests", "0.0.0")
        .with_timeout(WAIT)
        .with_roots(vec![Root {
            uri: "file:///work/project".into(),
            name: Some("project".into()),
        }])
        .with_capabilities(json!({ "sampling": {}, "elicitation": { "form": {} } }))
        .with_server_request_handler(Arc::new(move |ctx: ServerRequestContext| {
            let requests_tx = requests_tx.clone();
            Box::pin(async move {
                let _ = requests_tx.send(ctx.method.clone());
                match ctx.method.as_str() {
                    "sampling/createMessage" => ServerRequestOutcome::Ok(json!({
                        "role": "assistant",
                        "content": { "type": "text", "text": "sampled by the test" },
                        "model": "test-model",
                        "stopReason": "endTurn"
                    })),
                    "elicitation/create" => ServerRequestOutcome::Ok(json!({
                        "action": "accept",
                        "content": { "name": "Ada Lovelace", "check": true, "integer": 7 }
                    })),
                    _ => ServerRequestOutcome::MethodNotFound,
                }
            }) as _
        }))
        .with_server_notification_handler(Arc::new(move |ctx: ServerNotificationContext| {
            let _ = notes_tx.send((ctx.method, ctx.params.unwrap_or(Value::Null)));
            Box::pin(async {}) as _
        }));
    (
        manager,
        Observed {
            notifications,
            requests,
        },
    )
}

async fn notification(
    observed: &mut Observed,
    what: &str,
    pred: impl Fn(&str, &Value) -> bool,
) -> Value {
    timeout(WAIT, async {
        loop {
            let (method, params) = observed.notifications.recv().await.expect("handler alive");
            if pred(&method, &params) {
                return params;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {what} notification"))
}

fn text(result: &mcp_kit::mcp::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

async fn scenario(manager: Manager, mut observed: Observed) {
    let s = "everything";

    // The handshake and the server's own roots/list, answered by the built-in handler.
    let session = manager.session(s).await.expect("connect");
    assert_eq!(session.protocol_version(), "2025-11-25");
    assert_eq!(
        session.initialize_result()["serverInfo"]["name"],
        "mcp-servers/everything"
    );
    notification(&mut observed, "roots confirmation", |m, p| {
        m == "notifications/message" && p["data"].as_str().is_some_and(|d| d.contains("1 root(s)"))
    })
    .await;

    // Every tool that is always there, listed and called.
    let tools = manager.list_tools(s).await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let calls = [
        ("echo", json!({ "message": "hi" })),
        (
            "get-annotated-message",
            json!({ "messageType": "success", "includeImage": true }),
        ),
        ("get-env", json!({})),
        ("get-resource-links", json!({ "count": 2 })),
        (
            "get-resource-reference",
            json!({ "resourceType": "Text", "resourceId": 1 }),
        ),
        ("get-structured-content", json!({ "location": "Chicago" })),
        ("get-sum", json!({ "a": 2, "b": 40 })),
        ("get-tiny-image", json!({})),
        (
            "gzip-file-as-resource",
            json!({ "name": "hello.txt.gz", "data": "data:text/plain;base64,aGVsbG8=" }),
        ),
        ("get-roots-list", json!({})),
        (
            "trigger-sampling-request",
            json!({ "prompt": "say hi", "maxTokens": 10 }),
        ),
        ("trigger-elicitation-request", json!({})),
    ];
    for (name, arguments) in &calls {
        assert!(names.contains(name), "{name} missing from {names:?}");
        let result = manager
            .call_tool(s, name, args(arguments.clone()))
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_ne!(
            result.is_error,
            Some(true),
            "{name}: {}",
            serde_json::to_string(&result).unwrap()
        );
        match *name {
            "echo" => assert_eq!(text(&result), "Echo: hi"),
            "get-sum" => assert_eq!(text(&result), "The sum of 2 and 40 is 42."),
            "get-structured-content" => assert!(result.structured_content.is_some()),
            "get-roots-list" => assert!(text(&result).contains("file:///work/project")),
            "trigger-sampling-request" => assert!(
                serde_json::to_string(&result)
                    .unwrap()
                    .contains("sampled by the test")
            ),
            "trigger-elicitation-request" => assert!(
                serde_json::to_string(&result)
                    .unwrap()
                    .contains("Ada Lovelace")
            ),
            _ => {}
        }
    }
    // The server asked, and the handler answered.
    let mut asked = Vec::new();
    while let Ok(method) = observed.requests.try_recv() {
        asked.push(method);
    }
    assert!(
        asked.contains(&"sampling/createMessage".to_owned()),
        "{asked:?}"
    );
    assert!(
        asked.contains(&"elicitation/create".to_owned()),
        "{asked:?}"
    );
    // A tool that runs only as a task (the 2025-11-25 experimental tasks): called as one,
    // polled, its question (asked while tasks/result waits) answered by the handler.
    while observed.requests.try_recv().is_ok() {}
    let report = manager
        .call_tool(
            s,
            "simulate-research-query",
            args(json!({ "topic": "rust", "ambiguous": true })),
        )
        .await
        .expect("the task's result");
    let report = text(&report);
    assert!(report.contains("# Research Report: rust"), "{report}");
    assert!(report.contains("Stage 4: Generating report"), "{report}");
    assert_eq!(
        observed.requests.try_recv().ok().as_deref(),
        Some("elicitation/create"),
        "the clarification was asked"
    );

    // Resources and templates.
    let resources = manager.list_resources(s).await.expect("resources/list");
    assert!(!resources.is_empty());
    let first = resources[0].uri.clone();
    let read = manager.read_resource(s, &first).await.expect("read");
    assert_eq!(
        serde_json::to_value(&read.contents).unwrap()[0]["uri"],
        first.as_str()
    );
    let templates = manager.list_resource_templates(s).await.expect("templates");
    let template = &templates[0].uri_template;
    let dynamic = template.replace("{resourceId}", "3");
    let read = manager
        .read_resource(s, &dynamic)
        .await
        .expect("templated read");
    assert_eq!(
        serde_json::to_value(&read.contents).unwrap()[0]["uri"],
        dynamic.as_str()
    );

    // Prompts.
    let prompts = manager.list_prompts(s).await.expect("prompts/list");
    assert!(prompts.iter().any(|p| p.name == "args-prompt"));
    let prompt = manager
        .get_prompt(
            s,
            "args-prompt",
            args(json!({ "city": "Paris", "state": "IDF" })),
        )
        .await
        .expect("prompts/get");
    assert!(
        serde_json::to_string(&prompt.messages)
            .unwrap()
            .contains("Paris")
    );

    // Completion.
    assert!(Arc::ptr_eq(&session, &manager.session(s).await.unwrap()));
    let completion = session
        .complete(CompleteRequestParams::new(
            Reference::prompt("completable-prompt"),
            "department",
            "E",
        ))
        .await
        .expect("completion/complete");
    assert!(!completion.completion.values.is_empty(), "{completion:?}");

    // Logging: set the level, switch the simulated logs on, receive one.
    session
        .set_logging_level(LoggingLevel::Debug)
        .await
        .expect("setLevel");
    session
        .call_tool("toggle-simulated-logging", None)
        .await
        .expect("toggle logging");
    notification(&mut observed, "log", |m, p| {
        m == "notifications/message"
            && p["data"]
                .as_str()
                .is_some_and(|d| d.contains("-level message") || d.contains("level-message"))
    })
    .await;
    session
        .call_tool("toggle-simulated-logging", None)
        .await
        .expect("toggle logging off");

    // Progress of a long-running operation, as a stream.
    let (mut progress, call) = session.call_tool_with_progress(
        "trigger-long-running-operation",
        args(json!({ "duration": 1, "steps": 3 })),
    );
    let result = timeout(WAIT, call)
        .await
        .expect("in time")
        .expect("long-running");
    assert_ne!(result.is_error, Some(true));
    let mut updates = Vec::new();
    while let Ok(update) = progress.try_recv() {
        updates.push(update.progress.as_f64().unwrap());
    }
    assert_eq!(updates, [1.0, 2.0, 3.0], "one update per step");

    // Resource subscription: updates arrive for the subscribed URI.
    session
        .subscribe_resource(&first)
        .await
        .expect("resources/subscribe");
    session
        .call_tool("toggle-subscriber-updates", None)
        .await
        .expect("toggle updates");
    let updated = notification(&mut observed, "resource update", |m, _| {
        m == "notifications/resources/updated"
    })
    .await;
    assert_eq!(updated["uri"], first.as_str());
    session
        .call_tool("toggle-subscriber-updates", None)
        .await
        .expect("toggle updates off");
    session
        .unsubscribe_resource(&first)
        .await
        .expect("resources/unsubscribe");

    // Unknown methods are JSON-RPC errors, and the connection survives them.
    let error = manager
        .request(s, "no/such/method", None)
        .await
        .expect_err("unknown method");
    assert_eq!(error.rpc_error().map(|e| e.code), Some(-32601));
    assert!(manager.is_connected(s));
    assert_eq!(manager.connected_server_names(), [s]);
    manager.ping(s).await.expect("ping");

    // A session still shared is not handed over; once the last clone is gone it is, and
    // handing it over removes it from the manager.
    assert!(manager.take_session(s).is_none());
    assert!(manager.is_connected(s));
    drop(session);
    let mut session = manager.take_session(s).expect("session");
    assert!(!manager.is_connected(s));
    let status = session
        .peer_mut()
        .wait_with_timeout(
            Duration::from_secs(5),
            mcp_jsonrpc::WaitOnTimeout::Kill {
                kill_timeout: Duration::from_secs(5),
            },
        )
        .await
        .expect("the server stops");
    let _ = status;
}

#[tokio::test]
async fn manager_against_the_everything_server_over_stdio() {
    let config = Config::default().with_server(
        "everything",
        ServerConfig::stdio([
            "node".to_owned(),
            support::everything_js().display().to_string(),
            "stdio".into(),
        ]),
    );
    let (manager, observed) = manager(config);
    scenario(manager.with_trust_mode(TrustMode::Trusted), observed).await;
}

#[tokio::test]
async fn manager_against_the_everything_server_over_streamable_http() {
    let server = support::start_everything_http().await;
    let config = Config::default().with_server(
        "everything",
        ServerConfig::streamable_http(server.url.clone()),
    );
    let (manager, observed) = manager(config);
    // Untrusted, with exactly the relaxations a local plain-HTTP server needs.
    let manager = manager.with_untrusted_streamable_http_policy(UntrustedStreamableHttpPolicy {
        require_https: false,
        allow_localhost: true,
        allow_private_ips: true,
        ..Default::default()
    });
    scenario(manager, observed).await;
}
