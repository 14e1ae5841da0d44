//! The tasks extension over streamable HTTP (2026-07-28): a call becomes a task only for a
//! client that declares the extension; the task is polled, fed input, cancelled, expires, and
//! reports its progress, failures and result; a tool that requires tasks refuses other clients
//! before it runs; `subscriptions/listen` follows tasks.

mod http_support;

use std::time::Duration;

use http_support::*;
use mcp_server::schema::ErrorObject;
use mcp_server::schemars::JsonSchema;
use mcp_server::{
    Error, HttpOptions, NoArguments, RequestContext, Server, ServerOptions, TaskStart, TaskSupport,
    ToolDef,
};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(10);
const TASKS: &str = "io.modelcontextprotocol/tasks";

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "mcp_server::schemars")]
struct Steps {
    steps: u32,
}

fn with_tasks() -> Value {
    json!({ "extensions": { TASKS: {} }, "elicitation": {} })
}

/// A server whose tools report what they did on `events`.
fn server(events: mpsc::UnboundedSender<String>, options: ServerOptions) -> Server {
    let (e1, e2, e3) = (events.clone(), events.clone(), events);
    Server::builder("tasks-test", "1.0.0")
        .options(options)
        .tool_def(
            ToolDef::new("steps", "Works in steps, reporting progress", |a: Steps, cx: RequestContext| async move {
                for step in 1..=a.steps {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    cx.progress(f64::from(step), Some(f64::from(a.steps)), Some(&format!("step {step}"))).await;
                }
                Ok(format!("done after {} steps", a.steps))
            })
            .task_support(TaskSupport::Optional),
        )
        .tool_def(
            ToolDef::new("block", "Waits until cancelled", move |_: NoArguments, cx: RequestContext| {
                let events = e1.clone();
                async move {
                    let _ = events.send("block started".into());
                    cx.cancelled().await;
                    let _ = events.send("block cancelled".into());
                    Err::<String, _>(Error::cancelled())
                }
            })
            .task_support(TaskSupport::Optional),
        )
        .tool_def(
            ToolDef::new("only_task", "Runs only as a task", move |_: NoArguments, _| {
                let events = e2.clone();
                async move {
                    let _ = events.send("only_task ran".into());
                    Ok("ran")
                }
            })
            .task_support(TaskSupport::Required),
        )
        .tool_def(
            ToolDef::new("ask_two", "Asks two questions at once", |_: NoArguments, cx: RequestContext| async move {
                let form = || json!({ "type": "object", "properties": { "ok": { "type": "boolean" } } });
                let request = |m: &str| -> Result<_, Error> {
                    Ok(mcp_server::schema::InputRequest::elicit(
                        serde_json::from_value::<mcp_server::schema::ElicitRequestParams>(json!({ "message": m, "requestedSchema": form() }))
                            .map_err(|e| Error::msg(e.to_string()))?,
                    ))
                };
                let answers = cx
                    .request_inputs(vec![("first".into(), request("1?")?), ("second".into(), request("2?")?)])
                    .await?;
                Ok(format!("{} answers", answers.len()))
            })
            .task_support(TaskSupport::Required),
        )
        .tool_def(
            ToolDef::new("panics", "Panics inside the task", |_: NoArguments, _| async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                if std::hint::black_box(true) {
                    panic!("a bug");
                }
                Ok("unreachable")
            })
            .task_support(TaskSupport::Required),
        )
        .tool_def(
            ToolDef::new("rpc_error", "Fails with a protocol error", |_: NoArguments, _| async move {
                Err::<String, _>(Error::rpc(ErrorObject::internal_error("the database is gone")))
            })
            .task_support(TaskSupport::Required),
        )
        .tool_def(
            ToolDef::new("name_then_task", "Asks a name in input rounds, then becomes a task", move |_: NoArguments, cx: RequestContext| {
                let events = e3.clone();
                async move {
                    let answer = cx
                        .elicit_form("Name?", json!({ "type": "object", "properties": { "name": { "type": "string" } } }))
                        .await?;
                    let promoted = cx.run_as_task().await?;
                    let _ = events.send(format!("promoted {promoted}, task {}", cx.task_id().is_some()));
                    let name = serde_json::to_value(&answer.content).unwrap_or_default()["name"].clone();
                    Ok(format!("Hello, {}!", name.as_str().unwrap_or("?")))
                }
            })
            .task_support(TaskSupport::Optional)
            .task_start(TaskStart::Explicit),
        )
        .build()
}

struct Harness {
    _http: mcp_server::HttpServer,
    url: String,
    client: reqwest::Client,
    events: mpsc::UnboundedReceiver<String>,
    next: i64,
}

impl Harness {
    async fn start(options: ServerOptions) -> Self {
        let (tx, events) = mpsc::unbounded_channel();
        let http = start(&server(tx, options), HttpOptions::default()).await;
        Self {
            url: http.url(),
            _http: http,
            client: client(),
            events,
            next: 1,
        }
    }

    async fn request(&mut self, method: &str, mut params: Value, caps: Value) -> Value {
        self.next += 1;
        params["_meta"] = meta_with(caps);
        let response = stateless(&self.client, &self.url, self.next, method, params)
            .send()
            .await
            .expect("a response");
        outcome(response).await.1
    }

    async fn call(&mut self, tool: &str, arguments: Value, caps: Value) -> Value {
        self.request(
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
            caps,
        )
        .await
    }

    async fn get(&mut self, id: &str) -> Value {
        self.request("tasks/get", json!({ "taskId": id }), with_tasks())
            .await
    }

    /// Polls until the task's status is not `from`.
    async fn until_not(&mut self, id: &str, from: &[&str]) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let got = self.get(id).await;
            let status = got["result"]["status"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if !from.contains(&status.as_str()) {
                return got;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "still {status}: {got}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn event(&mut self) -> String {
        tokio::time::timeout(WAIT, self.events.recv())
            .await
            .expect("an event in time")
            .expect("the server is alive")
    }
}

fn task_id(handle: &Value) -> String {
    assert_eq!(handle["result"]["resultType"], "task", "{handle}");
    handle["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned()
}

#[tokio::test]
async fn a_call_becomes_a_task_only_for_a_client_that_declares_the_extension() {
    let mut h = Harness::start(ServerOptions::default()).await;
    let discover = h.request("server/discover", json!({}), json!({})).await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"][TASKS],
        json!({})
    );

    let inline = h.call("steps", json!({ "steps": 1 }), json!({})).await;
    assert_eq!(text_of(&inline), "done after 1 steps");
    assert_eq!(inline["result"]["resultType"], "complete");

    let handle = h.call("steps", json!({ "steps": 5 }), with_tasks()).await;
    let id = task_id(&handle);
    let task = &handle["result"];
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttlMs"], 3_600_000);
    assert_eq!(task["pollIntervalMs"], 2_000);
    assert!(task["createdAt"].as_str().unwrap().ends_with('Z'), "{task}");
    assert!(task.get("requestState").is_none() && task.get("content").is_none());

    // Progress shows as the status message while it works.
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let got = h.get(&id).await;
        if got["result"]["statusMessage"]
            .as_str()
            .is_some_and(|m| m.starts_with("step"))
        {
            assert_eq!(got["result"]["status"], "working");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no progress: {got}");
    }
    let done = h.until_not(&id, &["working"]).await;
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(
        done["result"]["result"]["content"][0]["text"],
        "done after 5 steps"
    );
    assert!(
        done["result"].get("pollIntervalMs").is_none(),
        "no polling advice once ended"
    );

    let unknown = h.get("no-such-task").await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let undeclared = h
        .request("tasks/get", json!({ "taskId": id }), json!({}))
        .await;
    assert_eq!(undeclared["error"]["code"], -32021, "{undeclared}");
    assert!(undeclared["error"]["data"]["requiredCapabilities"]["extensions"][TASKS].is_object());
}

#[tokio::test]
async fn a_tool_that_requires_tasks_refuses_other_clients_before_it_runs() {
    let mut h = Harness::start(ServerOptions::default()).await;
    let refused = h.call("only_task", json!({}), json!({})).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    let handle = h.call("only_task", json!({}), with_tasks()).await;
    assert_eq!(
        h.event().await,
        "only_task ran",
        "the handler ran once, for the task"
    );
    let id = task_id(&handle);
    let done = h.until_not(&id, &["working"]).await;
    assert_eq!(done["result"]["result"]["content"][0]["text"], "ran");
    assert!(h.events.try_recv().is_err(), "the refused call never ran");
}

#[tokio::test]
async fn input_inside_a_task_is_answered_with_tasks_update_in_parts() {
    let mut h = Harness::start(ServerOptions::default()).await;
    let id = task_id(&h.call("ask_two", json!({}), with_tasks()).await);
    let waiting = h.until_not(&id, &["working"]).await;
    assert_eq!(waiting["result"]["status"], "input_required", "{waiting}");
    let keys: Vec<&String> = waiting["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["first", "second"]);
    let accept = json!({ "action": "accept", "content": { "ok": true } });
    let ack = h
        .request(
            "tasks/update",
            json!({ "taskId": id, "inputResponses": { "first": accept, "nope": accept } }),
            with_tasks(),
        )
        .await;
    assert_eq!(
        ack["result"],
        json!({ "resultType": "complete", "_meta": ack["result"]["_meta"] })
    );
    let partial = h.get(&id).await;
    assert_eq!(partial["result"]["status"], "input_required");
    let keys: Vec<&String> = partial["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["second"], "the answered key is no longer asked");
    h.request(
        "tasks/update",
        json!({ "taskId": id, "inputResponses": { "second": accept } }),
        with_tasks(),
    )
    .await;
    let done = h.until_not(&id, &["input_required", "working"]).await;
    assert_eq!(
        done["result"]["result"]["content"][0]["text"], "2 answers",
        "{done}"
    );
}

#[tokio::test]
async fn cancelling_a_task_reaches_its_handler_and_acknowledges_ended_tasks() {
    let mut h = Harness::start(ServerOptions::default()).await;
    let id = task_id(&h.call("block", json!({}), with_tasks()).await);
    assert_eq!(h.event().await, "block started");
    // The POST that created the task is over: the handler is not cancelled by that.
    assert_eq!(h.get(&id).await["result"]["status"], "working");
    let ack = h
        .request("tasks/cancel", json!({ "taskId": id }), with_tasks())
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(
        ack["result"].get("status").is_none(),
        "an empty acknowledgement"
    );
    assert_eq!(h.event().await, "block cancelled");
    let ended = h.until_not(&id, &["working"]).await;
    assert_eq!(ended["result"]["status"], "cancelled", "{ended}");
    let again = h
        .request("tasks/cancel", json!({ "taskId": id }), with_tasks())
        .await;
    assert_eq!(again["result"]["resultType"], "complete", "{again}");
    let unknown = h
        .request("tasks/cancel", json!({ "taskId": "nope" }), with_tasks())
        .await;
    assert_eq!(unknown["error"]["code"], -32602);
}

#[tokio::test]
async fn failures_panics_and_expiry_end_tasks_failed_with_a_reason() {
    let mut options = ServerOptions::default();
    options.task_ttl = Some(Duration::from_millis(600));
    let mut h = Harness::start(options).await;
    let id = task_id(&h.call("rpc_error", json!({}), with_tasks()).await);
    let failed = h.until_not(&id, &["working"]).await;
    assert_eq!(failed["result"]["status"], "failed", "{failed}");
    assert_eq!(failed["result"]["error"]["code"], -32603);
    let message = failed["result"]["error"]["message"].as_str().unwrap();
    assert!(message.contains("the database is gone"), "{message}");
    assert!(failed["result"].get("result").is_none());

    let id = task_id(&h.call("panics", json!({}), with_tasks()).await);
    let failed = h.until_not(&id, &["working"]).await;
    assert_eq!(failed["result"]["status"], "failed", "{failed}");
    assert!(
        failed["result"]["statusMessage"]
            .as_str()
            .unwrap()
            .contains("panicked")
    );

    let id = task_id(&h.call("block", json!({}), with_tasks()).await);
    assert_eq!(h.event().await, "block started");
    assert_eq!(
        h.event().await,
        "block cancelled",
        "expiry cancels the handler"
    );
    // Gone once its time to live is over.
    let deadline = tokio::time::Instant::now() + WAIT;
    while h.get(&id).await["error"]["code"] != -32602 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the task outlived its ttl"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn input_rounds_before_the_task_leave_no_state_in_it() {
    let mut h = Harness::start(ServerOptions::default()).await;
    let round = h.call("name_then_task", json!({}), with_tasks()).await;
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    let key = round["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let state = round["result"]["requestState"].clone();
    let retry = h
        .request(
            "tools/call",
            json!({ "name": "name_then_task", "arguments": {},
                    "inputResponses": { key.clone(): { "action": "accept", "content": { "name": "Ada" } } },
                    "requestState": state }),
            with_tasks(),
        )
        .await;
    let id = task_id(&retry);
    assert!(
        retry["result"].get("requestState").is_none()
            && retry["result"].get("inputRequests").is_none()
    );
    assert_eq!(h.event().await, "promoted true, task true");
    let done = h.until_not(&id, &["working"]).await;
    assert_eq!(
        done["result"]["result"]["content"][0]["text"],
        "Hello, Ada!"
    );

    // A client without the extension gets the same tool inline.
    let round = h
        .call("name_then_task", json!({}), json!({ "elicitation": {} }))
        .await;
    let state = round["result"]["requestState"].clone();
    let inline = h
        .request(
            "tools/call",
            json!({ "name": "name_then_task", "arguments": {},
                    "inputResponses": { key: { "action": "accept", "content": { "name": "Bo" } } },
                    "requestState": state }),
            json!({ "elicitation": {} }),
        )
        .await;
    assert_eq!(text_of(&inline), "Hello, Bo!");
    assert_eq!(h.event().await, "promoted false, task false");
}

#[tokio::test]
async fn the_stateful_era_runs_every_tool_inline_and_knows_no_tasks_methods() {
    let h = Harness::start(ServerOptions::default()).await;
    let sid = initialize_with(
        &h.client,
        &h.url,
        LEGACY,
        json!({ "extensions": { TASKS: {} } }),
    )
    .await;
    let called = in_session(&h.client, &h.url, &sid)
        .json(&call(5, "only_task", json!({})))
        .send()
        .await
        .unwrap();
    let (_, body, _) = outcome(called).await;
    assert_eq!(text_of(&body), "ran", "{body}");
    let get = in_session(&h.client, &h.url, &sid)
        .json(&json!({ "jsonrpc": "2.0", "id": 6, "method": "tasks/get", "params": { "taskId": "x" } }))
        .send()
        .await
        .unwrap();
    assert_eq!(outcome(get).await.2, Some(-32601));
}

#[tokio::test]
async fn subscriptions_listen_follows_a_task_to_its_end() {
    let mut h = Harness::start(ServerOptions::default()).await;
    let id = task_id(&h.call("steps", json!({ "steps": 3 }), with_tasks()).await);
    let refused = h
        .request(
            "subscriptions/listen",
            json!({ "notifications": { "taskIds": [id] } }),
            json!({}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    let mut params = json!({ "notifications": { "taskIds": [id, "unknown"] } });
    params["_meta"] = meta_with(with_tasks());
    let response = stateless(&h.client, &h.url, 99, "subscriptions/listen", params)
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(response);
    let (_, ack) = sse.message().await.expect("the acknowledgement");
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([id]),
        "{ack}"
    );
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (_, note) = tokio::time::timeout_at(deadline, sse.message())
            .await
            .expect("notifications in time")
            .expect("the stream stays open");
        assert_eq!(note["method"], "notifications/tasks", "{note}");
        assert_eq!(note["params"]["taskId"], json!(id));
        assert_eq!(
            note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            99
        );
        if note["params"]["status"] == "completed" {
            assert_eq!(
                note["params"]["result"]["content"][0]["text"],
                "done after 3 steps"
            );
            break;
        }
    }
}

/// With authentication, a task belongs to whoever created it: another principal's `tasks/get`,
/// `tasks/update` and `tasks/cancel` answer as for an unknown task.
#[tokio::test]
async fn only_the_principal_that_created_a_task_sees_it() {
    use mcp_server::auth::{Principal, StaticTokens};
    let (tx, _events) = mpsc::unbounded_channel();
    let mut options = HttpOptions::default();
    options.auth = Some(std::sync::Arc::new(
        StaticTokens::new()
            .token("ada-token", Principal::new("ada", Vec::<String>::new()))
            .token("bob-token", Principal::new("bob", Vec::<String>::new())),
    ));
    let http = start(&server(tx, ServerOptions::default()), options).await;
    let (url, c) = (http.url(), client());
    let send = |token: &'static str, method: &'static str, mut params: Value| {
        params["_meta"] = meta_with(with_tasks());
        let request = stateless(&c, &url, 7, method, params).bearer_auth(token);
        async move { outcome(request.send().await.unwrap()).await.1 }
    };
    let handle = send(
        "ada-token",
        "tools/call",
        json!({ "name": "block", "arguments": {} }),
    )
    .await;
    let id = task_id(&handle);
    let own = send("ada-token", "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(own["result"]["status"], "working", "{own}");
    for (method, params) in [
        ("tasks/get", json!({ "taskId": id })),
        (
            "tasks/update",
            json!({ "taskId": id, "inputResponses": {} }),
        ),
        ("tasks/cancel", json!({ "taskId": id })),
    ] {
        let other = send("bob-token", method, params).await;
        assert_eq!(other["error"]["code"], -32602, "{method}: {other}");
    }
    let still = send("ada-token", "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(
        still["result"]["status"], "working",
        "bob's cancel did nothing: {still}"
    );
}
