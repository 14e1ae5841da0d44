//! JSON CompiledSchema validation of tool arguments and structured results.
//!
//! A schema without `$schema` is JSON CompiledSchema 2020-12 (the dialect MCP 2025-11-25 makes the
//! default); one that names another dialect (draft-04, -06, -07, 2019-09) is validated by that
//! dialect. Remote `$ref`s are never fetched.

use std::fmt;

use serde_json::Value;

/// A compiled JSON Schema, as tools use it for their arguments and structured results:
/// `CompiledSchema::compile(&schema)?.check(&arguments)`.
pub struct CompiledSchema {
    validator: jsonschema::Validator,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CompiledSchema(..)")
    }
}

/// A schema that could not be compiled.
#[derive(Debug, thiserror::Error)]
#[error("invalid JSON CompiledSchema: {0}")]
pub struct SchemaError(String);

impl SchemaError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl CompiledSchema {
    /// Compiles `schema` (2020-12 unless it names another dialect in `$schema`).
    ///
    /// # Errors
    /// A [`SchemaError`] when `schema` is not a valid JSON Schema.
    pub fn compile(schema: &Value) -> Result<Self, SchemaError> {
        let declared = schema.get("$schema").is_some();
        let validator = if declared {
            jsonschema::validator_for(schema)
        } else {
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(schema)
        }
        .map_err(|e| SchemaError(e.to_string()))?;
        Ok(Self { validator })
    }

    /// `Ok` when `instance` is valid; otherwise every violation, each naming the path of the
    /// offending value (`/a/0: "x" is not of type "integer"`), joined with `; `.
    ///
    /// # Errors
    /// The violations, as described.
    pub fn check(&self, instance: &Value) -> Result<(), String> {
        if self.validator.is_valid(instance) {
            return Ok(());
        }
        let mut problems: Vec<String> = self
            .validator
            .iter_errors(instance)
            .take(8)
            .map(|e| {
                let path = e.instance_path().to_string();
                let path = if path.is_empty() {
                    "/".to_owned()
                } else {
                    path
                };
                format!("{path}: {e}")
            })
            .collect();
        problems.dedup();
        Err(problems.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_path() {
        let s = CompiledSchema::compile(&json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "required": ["a"]
        }))
        .unwrap();
        assert!(s.check(&json!({"a": 1})).is_ok());
        let e = s.check(&json!({"a": "x"})).unwrap_err();
        assert!(e.starts_with("/a: "), "{e}");
        let e = s.check(&json!({})).unwrap_err();
        assert!(e.contains("\"a\" is a required property"), "{e}");
    }

    #[test]
    fn honours_the_declared_dialect() {
        // draft-04: exclusiveMaximum is a boolean modifier.
        let s = CompiledSchema::compile(&json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "number", "maximum": 5, "exclusiveMaximum": true
        }))
        .unwrap();
        assert!(s.check(&json!(5)).is_err());
        assert!(s.check(&json!(4)).is_ok());
        // 2020-12 default: prefixItems exists.
        let s = CompiledSchema::compile(&json!({"prefixItems": [{"type": "string"}]})).unwrap();
        assert!(s.check(&json!([1])).is_err());
    }
}
