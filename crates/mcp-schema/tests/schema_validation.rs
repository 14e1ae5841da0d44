//! Values built with this crate's types validate against each version's schema.json.
//!
//! For every version, every definition of that version's schema gets at least one value built
//! from the fixtures (with the optional members that version has filled in) and validated with
//! `jsonschema`. Definitions describing concrete objects are also checked strictly: the value
//! may only use members the version's schema declares, so a member from a newer version cannot
//! hide behind the schemas' open objects. The test fails if a definition of the version gets no
//! value, or if a value is aimed at a definition the version does not have.

mod common;

use common::Schema;
use common::fixtures::{Checks, Fx, to_value};
use mcp_schema::ProtocolVersion::{
    self, V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28,
};
use mcp_schema::*;
use serde::Serialize;
use serde_json::Value;

/// A whole request message: a JSON-RPC request since 2025-11-25, where the schema's request
/// types include `jsonrpc` and `id`; before, the schema's request types are `{method, params}`.
fn request<R: McpRequest>(fx: &Fx, params: Option<R::Params>) -> Value {
    let message = to_value(&JsonRpcRequest::<R::Params>::new(
        "req-1",
        R::METHOD,
        params,
    ));
    bare_before_2025_11_25(fx, message)
}

fn notification<N: McpNotification>(fx: &Fx, params: Option<N::Params>) -> Value {
    let message = to_value(&JsonRpcNotification::<N::Params>::of::<N>(params));
    bare_before_2025_11_25(fx, message)
}

fn bare_before_2025_11_25(fx: &Fx, mut message: Value) -> Value {
    if fx.v < V2025_11_25 {
        let m = message.as_object_mut().expect("object");
        m.remove("jsonrpc");
        m.remove("id");
    }
    message
}

fn response<T: Serialize>(result: T) -> JsonRpcResultResponse<T> {
    JsonRpcResultResponse::new("req-1", result)
}

/// Adds a request message under its definition and the union it belongs to.
fn add_request(c: &mut Checks, def: &str, union: &str, message: Value) {
    c.add(def, &message);
    c.add(union, &message);
}

#[path = "schema_validation/data.rs"]
mod data;
#[path = "schema_validation/requests.rs"]
mod requests;
#[path = "schema_validation/responses.rs"]
mod responses;

fn build(fx: &Fx) -> Checks {
    let mut c = Checks::default();
    data::data(fx, &mut c);
    requests::requests(fx, &mut c);
    requests::tasks(fx, &mut c);
    responses::results(fx, &mut c);
    responses::notifications(fx, &mut c);
    responses::envelopes(fx, &mut c);
    c
}

fn run(version: ProtocolVersion) {
    let schema = Schema::load(version);
    let fx = Fx::new(version);
    let checks = build(&fx);
    let defs = schema.def_names();

    let mut failures = Vec::new();
    let mut covered = std::collections::BTreeSet::new();
    for (def, value, strict) in &checks.items {
        if !defs.contains(def) {
            failures.push(format!("{def}: not a definition of {version}"));
            continue;
        }
        covered.insert(def.clone());
        if let Err(e) = schema.check(def, value, *strict) {
            failures.push(format!("{def}: {e}\n    value: {value}"));
        }
    }
    let missing: Vec<_> = defs.difference(&covered).collect();
    assert!(
        failures.is_empty() && missing.is_empty(),
        "{version}: {} failures, {} definitions without a value\n{}\nwithout a value: {missing:?}",
        failures.len(),
        missing.len(),
        failures.join("\n"),
    );
    println!(
        "{version}: {} values validated against {} definitions",
        checks.items.len(),
        defs.len()
    );
}

#[test]
fn values_validate_against_2024_11_05() {
    run(V2024_11_05);
}

#[test]
fn values_validate_against_2025_03_26() {
    run(V2025_03_26);
}

#[test]
fn values_validate_against_2025_06_18() {
    run(V2025_06_18);
}

#[test]
fn values_validate_against_2025_11_25() {
    run(V2025_11_25);
}

#[test]
fn values_validate_against_2026_07_28() {
    run(V2026_07_28);
}

/// The checks above would be worthless if the validator accepted anything: members a version
/// lacks, missing required members and malformed formats must be reported.
#[test]
fn the_checks_reject_what_a_version_does_not_have() {
    let reject = |version: ProtocolVersion, def: &str, value: Value| {
        let schema = Schema::load(version);
        assert!(
            schema.check(def, &value, true).is_err(),
            "{version}: {def} accepted {value}"
        );
    };
    let newest = Fx::new(V2026_07_28);
    let v1125 = Fx::new(V2025_11_25);

    // Members a version does not have.
    reject(
        V2024_11_05,
        "CallToolResult",
        to_value(&v1125.call_tool_result()),
    );
    reject(V2024_11_05, "Tool", to_value(&Fx::new(V2025_06_18).tool()));
    reject(V2025_06_18, "Tool", to_value(&v1125.tool()));
    reject(V2026_07_28, "Tool", to_value(&v1125.tool()));
    reject(
        V2025_11_25,
        "ListToolsResult",
        to_value(&newest.list_tools_result()),
    );
    reject(
        V2025_03_26,
        "Implementation",
        to_value(&newest.implementation()),
    );
    reject(
        V2026_07_28,
        "ClientCapabilities",
        to_value(&v1125.client_capabilities()),
    );
    // Missing required members.
    reject(
        V2026_07_28,
        "ListToolsResult",
        to_value(&v1125.list_tools_result()),
    );
    reject(
        V2025_11_25,
        "ElicitRequestURLParams",
        to_value(&newest.elicit_url_params()),
    );
    reject(
        V2026_07_28,
        "CallToolRequestParams",
        to_value(&CallToolRequestParams::new("get_weather")),
    );
    // Formats are validated.
    let mut resource = newest.resource();
    resource.uri = "not a uri".to_owned();
    reject(V2024_11_05, "Resource", to_value(&resource));
    reject(V2026_07_28, "Resource", to_value(&resource));
}
