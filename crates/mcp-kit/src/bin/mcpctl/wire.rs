//! `--wire`: every JSON-RPC message, both ways, on stderr, with secrets redacted.

use std::sync::Arc;

use mcp_jsonrpc::{WireDirection, WireTap};
use serde_json::{Value, json};

use crate::console::Console;
use crate::output::sanitize;

/// What replaces a redacted value.
const REDACTED: &str = "[redacted]";

/// Values shorter than this are not redacted where they appear in text (too likely to be
/// ordinary words).
const MIN_SECRET_LEN: usize = 4;

/// Parts of object keys whose string values are redacted (compared case-insensitively,
/// without `-` and `_`).
const SECRET_KEY_PARTS: &[&str] = &[
    "authorization",
    "password",
    "passwd",
    "secret",
    "apikey",
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "bearer",
    "cookie",
    "credential",
    "privatekey",
];

/// A tap printing each message on the console: `→` sent, `←` received (in JSON mode, an
/// object with `wire: "sent" | "received"` and the message).
pub(crate) fn tap(console: Arc<Console>, server: String, secrets: Vec<String>) -> WireTap {
    let secrets: Vec<String> = secrets
        .into_iter()
        .filter(|s| s.len() >= MIN_SECRET_LEN)
        .collect();
    WireTap::new(move |direction, bytes| {
        let (arrow, word) = match direction {
            WireDirection::Outgoing => ("→", "sent"),
            WireDirection::Incoming => ("←", "received"),
        };
        let message = redacted(bytes, &secrets);
        if console.is_json() {
            let value = json!({ "server": server, "wire": word, "message": message });
            console.line(&value.to_string());
        } else {
            let text = match &message {
                Value::String(raw) => raw.clone(),
                other => other.to_string(),
            };
            console.line(&sanitize(&format!("[{server}] {arrow} {text}")));
        }
    })
}

/// The message with secrets redacted: the string values of secret-looking keys, and every
/// occurrence of a known secret. A frame that is not JSON comes back as a string.
fn redacted(bytes: &[u8], secrets: &[String]) -> Value {
    let mut value = match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => value,
        Err(_) => Value::String(String::from_utf8_lossy(bytes).into_owned()),
    };
    redact(&mut value, secrets);
    value
}

fn redact(value: &mut Value, secrets: &[String]) {
    match value {
        Value::Object(object) => {
            for (key, member) in object.iter_mut() {
                if is_secret_key(key) && member.is_string() {
                    *member = Value::String(REDACTED.to_owned());
                } else {
                    redact(member, secrets);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| redact(item, secrets)),
        Value::String(text) => {
            for secret in secrets {
                if text.contains(secret.as_str()) {
                    *text = text.replace(secret.as_str(), REDACTED);
                }
            }
        }
        _ => {}
    }
}

fn is_secret_key(key: &str) -> bool {
    let folded: String = key
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect();
    SECRET_KEY_PARTS.iter().any(|part| folded.contains(part))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_keys_and_known_values_are_redacted() {
        let message = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"user":"ada","password":"hunter22","api_key":"k-123456","note":"token is s3cr3t-value"},"_meta":{"progressToken":"p1"}}}"#;
        let value = redacted(message, &["s3cr3t-value".to_owned()]);
        let arguments = &value["params"]["arguments"];
        assert_eq!(arguments["user"], "ada");
        assert_eq!(arguments["password"], REDACTED);
        assert_eq!(arguments["api_key"], REDACTED);
        assert_eq!(arguments["note"], "token is [redacted]");
        // A progress token is not a secret.
        assert_eq!(value["params"]["_meta"]["progressToken"], "p1");
    }

    #[test]
    fn a_frame_that_is_not_json_is_shown_as_text() {
        assert_eq!(redacted(b"not json", &[]), json!("not json"));
    }
}
