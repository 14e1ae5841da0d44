//! JSON helpers shared by the v1 and the compatible parsers: a parser that refuses duplicate
//! keys, and typed accessors producing [`ConfigError::Invalid`] with a location.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Component, Path};

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::{ConfigError, is_valid_server_name};

/// Parses a whole file into a [`Value`], refusing duplicate object keys (which `serde_json`
/// would otherwise resolve silently in favour of the last one). A leading UTF-8 byte order
/// mark is skipped.
pub(super) fn parse(path: &Path, bytes: &[u8]) -> Result<Value, ConfigError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    serde_json::from_slice::<StrictValue>(bytes)
        .map(|value| value.0)
        .map_err(|source| ConfigError::Json {
            path: path.to_path_buf(),
            source,
        })
}

/// A [`Value`] deserialized without duplicate keys.
struct StrictValue(Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        StrictValue::deserialize(deserializer).map(|value| value.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictValue(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate key `{}` (each key may appear once per object)",
                    key.escape_debug()
                )));
            }
            let StrictValue(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// A key quoted for a message: `` `key` ``, control characters escaped.
pub(super) fn quoted(key: &str) -> String {
    format!("`{}`", key.escape_debug())
}

/// What a JSON value is, for "…, got X" in messages: `"an array"`, `"a string"`, `"null"`, …
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The location and file of the values being read, for errors.
#[derive(Clone, Copy)]
pub(super) struct Ctx<'a> {
    /// The file.
    pub(super) path: &'a Path,
}

impl Ctx<'_> {
    /// A [`ConfigError::Invalid`] at `at`.
    pub(super) fn invalid(&self, at: &str, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_path_buf(),
            at: at.to_owned(),
            message: message.into(),
        }
    }

    /// Checks a server name.
    pub(super) fn server_name(&self, name: &str) -> Result<(), ConfigError> {
        if is_valid_server_name(name) {
            Ok(())
        } else {
            Err(ConfigError::InvalidServerName {
                path: self.path.to_path_buf(),
                name: name.to_owned(),
            })
        }
    }

    /// The value of `field` as an object.
    pub(super) fn object<'v>(
        &self,
        at: &str,
        field: &str,
        value: &'v Value,
    ) -> Result<&'v Map<String, Value>, ConfigError> {
        value.as_object().ok_or_else(|| {
            self.invalid(
                at,
                format!("`{field}` must be a JSON object, got {}", kind(value)),
            )
        })
    }

    /// The value of `field` as a non-empty string without NUL.
    pub(super) fn non_empty_string(
        &self,
        at: &str,
        field: &str,
        value: &Value,
    ) -> Result<String, ConfigError> {
        match value {
            Value::String(s) if s.is_empty() => {
                Err(self.invalid(at, format!("`{field}` must not be empty")))
            }
            Value::String(s) if s.contains('\0') => {
                Err(self.invalid(at, format!("`{field}` must not contain a NUL character")))
            }
            Value::String(s) => Ok(s.clone()),
            other => Err(self.invalid(
                at,
                format!("`{field}` must be a non-empty string, got {}", kind(other)),
            )),
        }
    }

    /// The value of `field` as a boolean.
    pub(super) fn boolean(
        &self,
        at: &str,
        field: &str,
        value: &Value,
    ) -> Result<bool, ConfigError> {
        value.as_bool().ok_or_else(|| {
            self.invalid(
                at,
                format!("`{field}` must be true or false, got {}", kind(value)),
            )
        })
    }

    /// The value of `field` as a non-empty array of non-empty strings.
    pub(super) fn argv(
        &self,
        at: &str,
        field: &str,
        value: &Value,
    ) -> Result<Vec<String>, ConfigError> {
        let example = "e.g. [\"mcp-server-bin\", \"--stdio\"]";
        let items = value.as_array().ok_or_else(|| {
            self.invalid(
                at,
                format!(
                    "`{field}` must be a non-empty array of non-empty strings ({example}), got {}",
                    kind(value)
                ),
            )
        })?;
        if items.is_empty() {
            return Err(self.invalid(
                at,
                format!("`{field}` must not be empty: give at least the program ({example})"),
            ));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.non_empty_string(at, &format!("{field}[{i}]"), item))
            .collect()
    }

    /// The value of `field` as an array of strings (empty allowed, items non-empty).
    pub(super) fn string_array(
        &self,
        at: &str,
        field: &str,
        value: &Value,
    ) -> Result<Vec<String>, ConfigError> {
        let items = value.as_array().ok_or_else(|| {
            self.invalid(
                at,
                format!("`{field}` must be an array of strings, got {}", kind(value)),
            )
        })?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.non_empty_string(at, &format!("{field}[{i}]"), item))
            .collect()
    }

    /// The value of `field` as a map of environment variables: names non-empty without `=`,
    /// values strings without NUL.
    pub(super) fn env_map(
        &self,
        at: &str,
        field: &str,
        value: &Value,
    ) -> Result<BTreeMap<String, String>, ConfigError> {
        let object = self.object(at, field, value)?;
        let mut env = BTreeMap::new();
        for (name, value) in object {
            if name.is_empty() || name.contains(['=', '\0']) {
                return Err(self.invalid(
                    at,
                    format!(
                        "`{field}` has an invalid variable name {} (a name must be non-empty, \
                         without `=` or NUL)",
                        quoted(name)
                    ),
                ));
            }
            let value = match value {
                Value::String(s) if !s.contains('\0') => s.clone(),
                Value::String(_) => {
                    return Err(self.invalid(
                        at,
                        format!(
                            "`{field}.{}` must not contain a NUL character",
                            name.escape_debug()
                        ),
                    ));
                }
                other => {
                    return Err(self.invalid(
                        at,
                        format!(
                            "`{field}.{}` must be a string, got {} (quote numbers and \
                             booleans)",
                            name.escape_debug(),
                            kind(other)
                        ),
                    ));
                }
            };
            env.insert(name.clone(), value);
        }
        Ok(env)
    }

    /// The value of `field` as a map of HTTP header name → string. Names must be HTTP tokens;
    /// values must not contain CR, LF or NUL. With `values_are_env_names`, each value must be a
    /// non-empty string (the name of an environment variable).
    pub(super) fn header_map(
        &self,
        at: &str,
        field: &str,
        value: &Value,
        values_are_env_names: bool,
    ) -> Result<BTreeMap<String, String>, ConfigError> {
        let object = self.object(at, field, value)?;
        let mut headers = BTreeMap::new();
        for (name, value) in object {
            if !mcp_jsonrpc::is_header_name(name) {
                return Err(self.invalid(
                    at,
                    format!(
                        "`{field}` has an invalid header name {} (letters, digits and \
                         !#$%&'*+-.^_`|~ only)",
                        quoted(name)
                    ),
                ));
            }
            let value = match value {
                Value::String(s) if values_are_env_names && s.is_empty() => {
                    return Err(self.invalid(
                        at,
                        format!(
                            "`{field}.{name}` must name an environment variable, got an empty \
                             string"
                        ),
                    ));
                }
                Value::String(s) if s.contains(['\r', '\n', '\0']) => {
                    return Err(self.invalid(
                        at,
                        format!("`{field}.{name}` must not contain CR, LF or NUL"),
                    ));
                }
                Value::String(s) => s.clone(),
                other => {
                    return Err(self.invalid(
                        at,
                        format!("`{field}.{name}` must be a string, got {}", kind(other)),
                    ));
                }
            };
            headers.insert(name.clone(), value);
        }
        Ok(headers)
    }
}

/// True when a path has a `..` component.
pub(super) fn has_parent_dir(path: &Path) -> bool {
    path.components().any(|c| c == Component::ParentDir)
}
