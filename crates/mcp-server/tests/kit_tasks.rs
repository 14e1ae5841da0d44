//! `mcp-kit` following tasks (the tasks extension) of `mcp-server` over streamable HTTP in
//! 2026-07-28: `call_tool` drives a task to its end (answering its input requests through the
//! client's handler), `call_tool_as_task` hands the task over, a task is picked up again by id
//! from another connection, a dropped call cancels its task, and a failed task is the error
//! the call would have had.

use std::sync::Arc;
use std::time::Duration;

use mcp_kit::{
    Config, Manager, RequestOrigin, ServerConfig, ServerRequestContext, ServerRequestOutcome,
    Session, ToolCall, TrustMode,
};
use mcp_server::middleware::{Middleware, MiddlewareFuture, Next, Request};
use mcp_server::schema::ErrorObject;
use mcp_server::{Error, HttpOptions, NoArguments, RequestContext, Server, TaskSupport, ToolDef};
use serde_json::{Map, json};
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(10);

/// Tells the test when a client polls a task.
struct Polls(mpsc::UnboundedSender<String>);

impl Middleware for Polls {
    fn handle<'a>(&'a self, request: Request<'a>, next: Next<'a>) -> MiddlewareFuture<'a> {
        if request.method() == "tasks/get" {
            let _ = self.0.send("polled".into());
        }
        next.run(request)
    }
}

fn server(events: mpsc::UnboundedSender<String>) -> Server {
    Server::builder("kit-tasks", "1.0.0")
        .middleware(Polls(events.clone()))
        .tool_def(
            ToolDef::new("slow", "Works a moment", |_: NoArguments, _| async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                Ok("slow done")
            })
            .task_support(TaskSupport::Optional),
        )
        .tool_def(
            ToolDef::new("ask", "Asks your name inside the task", |_: NoArguments, cx: RequestContext| async move {
                let answer = cx
                    .elicit_form("Name?", json!({ "type": "object", "properties": { "name": { "type": "string" } } }))
                    .await?;
                let content = serde_json::to_value(&answer.content).unwrap_or_default();
                Ok(format!("Hello, {}!", content["name"].as_str().unwrap_or("?")))
            })
            .task_support(TaskSupport::Required),
        )
        .tool_def(
            ToolDef::new("block", "Waits until cancelled", move |_: NoArguments, cx: RequestContext| {
                let events = events.clone();
                async move {
                    let _ = events.send("started".into());
                    cx.cancelled().await;
                    let _ = events.send("cancelled".into());
                    Err::<String, _>(Error::cancelled())
                }
            })
            .task_support(TaskSupport::Optional),
        )
        .tool_def(
            ToolDef::new("broken", "Fails", |_: NoArguments, _| async move {
                Err::<String, _>(Error::rpc(ErrorObject::new(-32050, "the backend is down")))
            })
            .task_support(TaskSupport::Required),
        )
        .build()
}

async fn connect(url: &str, origins: mpsc::UnboundedSender<RequestOrigin>) -> Arc<Session> {
    let handler: mcp_kit::ServerRequestHandler = Arc::new(move |ctx: ServerRequestContext| {
        let origins = origins.clone();
        Box::pin(async move {
            let _ = origins.send(ctx.origin.clone());
            ServerRequestOutcome::Ok(json!({ "action": "accept", "content": { "name": "Ada" } }))
        })
    });
    let config = Config::default().with_server("tasks", ServerConfig::streamable_http(url));
    Manager::new(config, std::env::current_dir().unwrap())
        .with_client_info("kit-tasks", "1.0.0")
        .with_timeout(WAIT)
        .with_trust_mode(TrustMode::Trusted)
        .with_protocol_version(Some("2026-07-28".into()))
        .with_capabilities(json!({ "elicitation": {} }))
        .with_server_request_handler(handler)
        .connect("tasks")
        .await
        .expect("connected")
}

fn no_args() -> Option<Map<String, serde_json::Value>> {
    Some(Map::new())
}

#[tokio::test]
async fn call_tool_follows_a_task_and_answers_its_input() {
    let (events, _rx) = mpsc::unbounded_channel();
    let http = server(events)
        .bind_http("127.0.0.1:0", HttpOptions::default())
        .await
        .unwrap();
    let (origins, mut seen) = mpsc::unbounded_channel();
    let session = connect(&http.url(), origins).await;
    let result = session.call_tool("slow", no_args()).await.unwrap();
    assert_eq!(result.text_content(), "slow done");
    let result = session.call_tool("ask", no_args()).await.unwrap();
    assert_eq!(result.text_content(), "Hello, Ada!");
    match seen.try_recv().expect("the handler answered") {
        RequestOrigin::TaskInput { key, .. } => assert_eq!(key, "elicitation-1"),
        other => panic!("answered as {other:?}"),
    }
    let failed = session.call_tool("broken", no_args()).await.unwrap_err();
    let error = failed.rpc_error().expect("the task's error");
    assert_eq!(error.code, -32050);
    assert_eq!(error.message, "the backend is down");
}

#[tokio::test]
async fn a_task_is_handed_over_and_picked_up_again_from_another_connection() {
    let (events, _rx) = mpsc::unbounded_channel();
    let http = server(events)
        .bind_http("127.0.0.1:0", HttpOptions::default())
        .await
        .unwrap();
    let (origins, _seen) = mpsc::unbounded_channel();
    let first = connect(&http.url(), origins.clone()).await;
    let id = match first.call_tool_as_task("slow", no_args()).await.unwrap() {
        ToolCall::Task(task) => task.id().to_owned(),
        ToolCall::Complete(result) => panic!("not a task: {result:?}"),
    };
    drop(first);
    let second = connect(&http.url(), origins).await;
    let result = second.task(id).wait().await.unwrap();
    assert_eq!(result.text_content(), "slow done");
}

#[tokio::test]
async fn dropping_a_call_cancels_its_task() {
    let (events, mut rx) = mpsc::unbounded_channel();
    let http = server(events)
        .bind_http("127.0.0.1:0", HttpOptions::default())
        .await
        .unwrap();
    let (origins, _seen) = mpsc::unbounded_channel();
    let session = connect(&http.url(), origins).await;
    let mut call = Box::pin(session.call_tool("block", no_args()));
    // Once the task runs and the client follows it (it has the handle), drop the call.
    let (mut started, mut polled) = (false, false);
    while !(started && polled) {
        tokio::select! {
            _ = &mut call => panic!("block never ends by itself"),
            event = rx.recv() => match event.as_deref() {
                Some("started") => started = true,
                Some("polled") => polled = true,
                other => panic!("unexpected {other:?}"),
            },
        }
    }
    drop(call);
    loop {
        let event = tokio::time::timeout(WAIT, rx.recv())
            .await
            .expect("cancelled in time");
        match event.as_deref() {
            Some("polled") => continue,
            other => {
                assert_eq!(other, Some("cancelled"), "tasks/cancel reached the handler");
                break;
            }
        }
    }
}
