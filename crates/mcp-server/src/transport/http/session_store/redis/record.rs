//! A session record as the fields of a Redis hash.

use redis::Value;

use crate::transport::http::session_store::{Loaded, SessionRecord};

/// The record's fields as stored (only those set).
pub(super) fn fields_of(record: &SessionRecord) -> Vec<(&'static str, String)> {
    let mut fields = Vec::new();
    let text = [
        ("v", &record.version),
        ("ci", &record.client_info),
        ("cc", &record.client_capabilities),
        ("ll", &record.log_level),
        ("pr", &record.principal),
        ("cl", &record.client),
    ];
    for (name, value) in text {
        if let Some(value) = value {
            fields.push((name, value.clone()));
        }
    }
    if let Some(initialized) = record.initialized {
        fields.push(("init", u8::from(initialized).to_string()));
    }
    fields
}

/// The answer of the `LOAD` script.
pub(super) fn loaded(value: Value) -> Loaded {
    let Value::Array(parts) = value else {
        return Loaded::Missing;
    };
    let mut parts = parts.into_iter();
    let rev = parts
        .next()
        .and_then(|v| redis::from_redis_value::<String>(v).ok())
        .and_then(|r| r.parse().ok())
        .unwrap_or(0);
    let (Some(fields), Some(subs)) = (parts.next(), parts.next()) else {
        return Loaded::Unchanged;
    };
    let fields: std::collections::HashMap<String, String> =
        redis::from_redis_value(fields).unwrap_or_default();
    let take = |name: &str| fields.get(name).cloned();
    let record = SessionRecord {
        version: take("v"),
        client_info: take("ci"),
        client_capabilities: take("cc"),
        log_level: take("ll"),
        initialized: take("init").map(|v| v == "1"),
        principal: take("pr"),
        client: take("cl"),
        subscribed: redis::from_redis_value(subs).unwrap_or_default(),
        unsubscribed: Default::default(),
    };
    Loaded::Changed(Box::new(record), rev)
}
