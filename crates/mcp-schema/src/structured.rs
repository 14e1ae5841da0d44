//! The structured result of a tool call (`structuredContent`).

use std::borrow::Cow;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// The structured result of a tool call (`structuredContent`): a JSON value (an object up to
/// 2025-11-25), held either parsed or as the JSON text it travels as.
///
/// A server that serializes its typed output once ([`StructuredContent::serialize`]) keeps the
/// text and writes it into the response as is; a result read from the wire holds the parsed
/// [`Value`]. Read it with [`to_value`](Self::to_value), [`parse`](Self::parse) or
/// [`json`](Self::json) without caring which; two contents are equal when their values are.
///
/// ```
/// use mcp_schema::StructuredContent;
/// use serde_json::json;
///
/// #[derive(serde::Serialize)]
/// struct Weather { temperature: i32 }
///
/// let typed = StructuredContent::serialize(&Weather { temperature: 18 }).unwrap();
/// assert_eq!(typed.json(), r#"{"temperature":18}"#);
/// assert_eq!(typed, StructuredContent::from(json!({ "temperature": 18 })));
/// ```
#[derive(Clone)]
pub struct StructuredContent(Repr);

#[derive(Clone)]
enum Repr {
    Value(Value),
    Json(Box<RawValue>),
}

impl StructuredContent {
    /// `value`, serialized once: the JSON text is kept and sent as it is.
    pub fn serialize<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(|raw| Self(Repr::Json(raw)))
    }

    /// The content as a JSON value (parsed when it is held as text).
    pub fn to_value(&self) -> Cow<'_, Value> {
        match &self.0 {
            Repr::Value(v) => Cow::Borrowed(v),
            Repr::Json(raw) => Cow::Owned(serde_json::from_str(raw.get()).unwrap_or(Value::Null)),
        }
    }

    /// The content as a JSON value.
    pub fn into_value(self) -> Value {
        match self.0 {
            Repr::Value(v) => v,
            Repr::Json(raw) => serde_json::from_str(raw.get()).unwrap_or(Value::Null),
        }
    }

    /// The content as its JSON text (compact).
    pub fn json(&self) -> Cow<'_, str> {
        match &self.0 {
            Repr::Value(v) => Cow::Owned(v.to_string()),
            Repr::Json(raw) => Cow::Borrowed(raw.get()),
        }
    }

    /// The content deserialized as `T`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        match &self.0 {
            Repr::Value(v) => T::deserialize(v),
            Repr::Json(raw) => serde_json::from_str(raw.get()),
        }
    }
}

impl From<Value> for StructuredContent {
    fn from(value: Value) -> Self {
        Self(Repr::Value(value))
    }
}

impl PartialEq for StructuredContent {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Repr::Json(a), Repr::Json(b)) if a.get() == b.get() => true,
            _ => self.to_value() == other.to_value(),
        }
    }
}

impl PartialEq<Value> for StructuredContent {
    fn eq(&self, other: &Value) -> bool {
        *self.to_value() == *other
    }
}

impl fmt::Debug for StructuredContent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StructuredContent({})", self.json())
    }
}

impl Serialize for StructuredContent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Value(v) => v.serialize(serializer),
            Repr::Json(raw) => raw.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for StructuredContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn text_and_value_forms_agree() {
        let value = json!({"a": [1, 2.5, "x"], "b": {"c": null}});
        let text = StructuredContent::serialize(&value).unwrap();
        let parsed = StructuredContent::from(value.clone());
        assert_eq!(text, parsed);
        assert_eq!(text, value);
        assert_eq!(text.json(), parsed.json());
        assert_eq!(*text.to_value(), value);
        assert_eq!(serde_json::to_value(&text).unwrap(), value);
        assert_eq!(serde_json::to_string(&text).unwrap(), value.to_string());
        let back: StructuredContent = serde_json::from_str(&text.json()).unwrap();
        assert_eq!(back, value);
        let typed: std::collections::BTreeMap<String, Value> = text.parse().unwrap();
        assert_eq!(typed.len(), 2);
        assert_ne!(text, StructuredContent::from(json!({})));
    }
}
