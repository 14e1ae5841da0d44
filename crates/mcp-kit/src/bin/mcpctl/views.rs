//! The human-readable (table) views of MCP results. They read the JSON results, so that
//! what `--json` prints and what the table shows come from the same value.

use mcp_kit::arguments::property_types;
use serde_json::Value;

use crate::output::{fitted, render_content, render_resource_contents, sanitize, str_of};
use mcp_kit::terminal::{Table, one_line};

/// The items of the array member `key`.
fn items<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The first line of a description (the table cuts it to the terminal's width).
fn summary(value: &Value) -> String {
    let text = str_of(value, "description").unwrap_or_default();
    one_line(text.lines().next().unwrap_or_default())
}

/// `(none)` lines for empty lists.
fn empty(what: &str) -> String {
    format!("(no {what})\n")
}

/// A tool's arguments from its input schema: `name*: type` (`*`: required).
fn tool_arguments(tool: &Value) -> String {
    let schema = &tool["inputSchema"];
    let required: Vec<&str> = items(schema, "required")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return String::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let star = if required.contains(&name.as_str()) {
                "*"
            } else {
                ""
            };
            // The same reading of the schema as the KEY=VALUE conversion: `type`, the branches
            // of `anyOf`/`oneOf`, `enum`/`const`, local `$ref`s.
            let types = property_types(property, schema);
            let kind = if types.is_empty() {
                "any".to_owned()
            } else {
                types.join("|")
            };
            format!("{name}{star}: {kind}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `list-tools`.
pub(crate) fn tools(result: &Value) -> String {
    let tools = items(result, "tools");
    if tools.is_empty() {
        return empty("tools");
    }
    let mut table = Table::new(["NAME", "ARGUMENTS (*: required)", "DESCRIPTION"]);
    for tool in tools {
        table.row([
            str_of(tool, "name").unwrap_or("?"),
            &tool_arguments(tool),
            &summary(tool),
        ]);
    }
    fitted(&table)
}

/// `list-resources`.
pub(crate) fn resources(result: &Value) -> String {
    let resources = items(result, "resources");
    if resources.is_empty() {
        return empty("resources");
    }
    let mut table = Table::new(["URI", "NAME", "MIME TYPE", "DESCRIPTION"]);
    for resource in resources {
        table.row([
            str_of(resource, "uri").unwrap_or("?"),
            str_of(resource, "name").unwrap_or_default(),
            str_of(resource, "mimeType").unwrap_or_default(),
            &summary(resource),
        ]);
    }
    fitted(&table)
}

/// `list-resource-templates`.
pub(crate) fn resource_templates(result: &Value) -> String {
    let templates = items(result, "resourceTemplates");
    if templates.is_empty() {
        return empty("resource templates");
    }
    let mut table = Table::new(["URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"]);
    for template in templates {
        table.row([
            str_of(template, "uriTemplate").unwrap_or("?"),
            str_of(template, "name").unwrap_or_default(),
            str_of(template, "mimeType").unwrap_or_default(),
            &summary(template),
        ]);
    }
    fitted(&table)
}

/// `list-prompts`.
pub(crate) fn prompts(result: &Value) -> String {
    let prompts = items(result, "prompts");
    if prompts.is_empty() {
        return empty("prompts");
    }
    let mut table = Table::new(["NAME", "ARGUMENTS (*: required)", "DESCRIPTION"]);
    for prompt in prompts {
        let arguments = items(prompt, "arguments")
            .iter()
            .map(|argument| {
                let star = if argument["required"] == Value::Bool(true) {
                    "*"
                } else {
                    ""
                };
                format!("{}{star}", str_of(argument, "name").unwrap_or("?"))
            })
            .collect::<Vec<_>>()
            .join(", ");
        table.row([
            str_of(prompt, "name").unwrap_or("?"),
            &arguments,
            &summary(prompt),
        ]);
    }
    fitted(&table)
}

/// `call`: the content blocks; the structured content when there is no content; the error
/// flag.
pub(crate) fn tool_result(result: &Value) -> String {
    let content = items(result, "content");
    let mut out = render_content(content);
    if content.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        let pretty = serde_json::to_string_pretty(structured).unwrap_or_default();
        out.push_str(&sanitize(&pretty));
        out.push('\n');
    }
    if result["isError"] == Value::Bool(true) {
        out.push_str("(the tool reported an error: isError is true)\n");
    }
    if out.is_empty() {
        out.push_str("(empty result)\n");
    }
    out
}

/// `read-resource`.
pub(crate) fn resource_contents(result: &Value) -> String {
    let contents = items(result, "contents");
    if contents.is_empty() {
        return empty("contents");
    }
    let mut out = String::new();
    for item in contents {
        out.push_str(&sanitize(&render_resource_contents(item)));
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// `get-prompt`: the description, then each message under its role.
pub(crate) fn prompt(result: &Value) -> String {
    let mut out = String::new();
    if let Some(description) = str_of(result, "description") {
        out.push_str(&sanitize(description));
        out.push_str("\n\n");
    }
    for message in items(result, "messages") {
        out.push_str(&format!(
            "[{}]\n",
            sanitize(str_of(message, "role").unwrap_or("?"))
        ));
        out.push_str(&render_content(std::slice::from_ref(&message["content"])));
    }
    if out.is_empty() {
        out.push_str("(no messages)\n");
    }
    out
}

/// `complete`: one value per line, then how many there are in all.
pub(crate) fn completion(result: &Value) -> String {
    let completion = &result["completion"];
    let values = items(completion, "values");
    let mut out = String::new();
    for value in values.iter().filter_map(Value::as_str) {
        out.push_str(&one_line(value));
        out.push('\n');
    }
    if values.is_empty() {
        out.push_str("(no completions)\n");
    }
    let total = completion.get("total").and_then(Value::as_u64);
    let more = completion["hasMore"] == Value::Bool(true);
    match (total, more) {
        (Some(total), _) => out.push_str(&format!(
            "({} of {total}{})\n",
            values.len(),
            if more { "; more available" } else { "" }
        )),
        (None, true) => out.push_str("(more available)\n"),
        (None, false) => {}
    }
    out
}

/// `server-info`.
pub(crate) fn server_info(info: &Value) -> String {
    let result = &info["result"];
    let mut out = format!(
        "server: {}\nprotocol version: {} (handshake: {})\n",
        str_of(info, "server").unwrap_or("?"),
        str_of(info, "protocol_version").unwrap_or("?"),
        str_of(info, "handshake").unwrap_or("?"),
    );
    let server_info = &result["serverInfo"];
    if let Some(name) = str_of(server_info, "name") {
        let version = str_of(server_info, "version").unwrap_or("?");
        out.push_str(&format!("server info: {name} {version}\n"));
    }
    if let Some(capabilities) = result.get("capabilities").and_then(Value::as_object) {
        let names: Vec<&str> = capabilities.keys().map(String::as_str).collect();
        out.push_str(&format!("capabilities: {}\n", names.join(", ")));
    }
    if let Some(instructions) = str_of(result, "instructions") {
        out.push_str(&format!("instructions:\n{instructions}\n"));
    }
    sanitize(&out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tool_table_shows_arguments() {
        let result = json!({"tools": [{
            "name": "get-sum",
            "description": "Returns the sum\nof two numbers",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a"]}
        }]});
        assert_eq!(
            tools(&result),
            "NAME     ARGUMENTS (*: required)  DESCRIPTION\nget-sum  a*: number, b: number    Returns the sum\n"
        );
        assert_eq!(tools(&json!({"tools": []})), "(no tools)\n");
    }

    #[test]
    fn completion_footer() {
        let result =
            json!({"completion": {"values": ["Engineering"], "total": 3, "hasMore": true}});
        assert_eq!(
            completion(&result),
            "Engineering\n(1 of 3; more available)\n"
        );
    }
}
