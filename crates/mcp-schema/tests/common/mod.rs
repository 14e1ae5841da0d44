//! Shared test support: locating the spec, loading the schemas, validating values.
#![allow(dead_code, unreachable_pub)]

pub mod fixtures;

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use jsonschema::{Registry, Validator};
use mcp_schema::ProtocolVersion;
use serde_json::{Value, json};

/// The spec directory (see [`mcp_test_support::spec_dir`]): never skips when missing.
pub use mcp_test_support::spec_dir;

/// Reads a JSON file, panicking with its path on failure.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// Escapes a JSON-pointer segment.
fn esc(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// `_meta` objects that TypeScript declares as open records but whose generated JSON Schema
/// lists properties without `additionalProperties`.
const OPEN_DEFS: &[&str] = &[
    "RequestMetaObject",
    "NotificationMetaObject",
    "ResultMetaObject",
    "SubscriptionsListenResultMetaObject",
];

/// One version's schema.json, with validators built on demand.
pub struct Schema {
    pub version: ProtocolVersion,
    pub root: Value,
    /// `definitions` (draft-07) or `$defs` (2020-12).
    pub defs_key: &'static str,
    uri: String,
    registry: Registry<'static>,
    validators: RefCell<HashMap<String, Validator>>,
}

impl Schema {
    pub fn load(version: ProtocolVersion) -> Schema {
        let path = spec_dir()
            .join("mcp")
            .join(version.as_str())
            .join("schema.json");
        let root = read_json(&path);
        let defs_key = if root.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        // The drafts: draft-07 up to 2025-06-18, 2020-12 since 2025-11-25.
        let dialect = root["$schema"].as_str().expect("$schema").to_owned();
        if version >= ProtocolVersion::V2025_11_25 {
            assert!(dialect.contains("2020-12"), "{version}: {dialect}");
        } else {
            assert!(dialect.contains("draft-07"), "{version}: {dialect}");
        }
        let uri = format!("urn:mcp-schema:{}", version.as_str());
        let registry = Registry::new()
            .add(uri.as_str(), root.clone())
            .expect("schema registers")
            .prepare()
            .expect("registry prepares");
        Schema {
            version,
            root,
            defs_key,
            uri,
            registry,
            validators: RefCell::new(HashMap::new()),
        }
    }

    pub fn def_names(&self) -> BTreeSet<String> {
        self.root[self.defs_key]
            .as_object()
            .expect("definitions")
            .keys()
            .cloned()
            .collect()
    }

    pub fn has_def(&self, name: &str) -> bool {
        self.root[self.defs_key].get(name).is_some()
    }

    fn def_pointer(&self, name: &str) -> String {
        format!("/{}/{}", self.defs_key, esc(name))
    }

    /// Runs `f` with the validator of the subschema at JSON pointer `pointer`.
    fn with_validator<R>(&self, pointer: &str, f: impl FnOnce(&Validator) -> R) -> R {
        let mut cache = self.validators.borrow_mut();
        let validator = cache.entry(pointer.to_owned()).or_insert_with(|| {
            // The wrapper declares the same dialect as the document, so draft detection via
            // `$schema` applies to both.
            let wrapper = json!({
                "$schema": self.root["$schema"],
                "$ref": format!("{}#{}", self.uri, pointer),
            });
            jsonschema::options()
                .with_registry(&self.registry)
                .should_validate_formats(true)
                .build(&wrapper)
                .unwrap_or_else(|e| {
                    panic!(
                        "{}: cannot build validator for {pointer}: {e}",
                        self.version
                    )
                })
        });
        f(validator)
    }

    fn is_valid_at(&self, pointer: &str, value: &Value) -> bool {
        self.with_validator(pointer, |v| v.is_valid(value))
    }

    /// Validates `value` against definition `name`: JSON Schema validation and, when `strict`,
    /// a check that every object member is one the schema declares (so that a member a version
    /// does not have cannot slip through its open objects).
    pub fn check(&self, name: &str, value: &Value, strict: bool) -> Result<(), String> {
        assert!(self.has_def(name), "{}: no definition {name}", self.version);
        let pointer = self.def_pointer(name);
        let errors: Vec<String> = self.with_validator(&pointer, |v| {
            v.iter_errors(value)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect()
        });
        if !errors.is_empty() {
            return Err(errors.join("; "));
        }
        if strict {
            let mut undeclared = Vec::new();
            self.undeclared(&pointer, value, "", &mut undeclared);
            if !undeclared.is_empty() {
                return Err(format!("undeclared members: {}", undeclared.join(", ")));
            }
        }
        Ok(())
    }

    fn node(&self, pointer: &str) -> &Value {
        self.root
            .pointer(pointer)
            .unwrap_or_else(|| panic!("{}: no schema node at {pointer}", self.version))
    }

    /// Follows `$ref`s to the pointer of the schema node that holds the keywords.
    fn resolve(&self, mut pointer: String) -> String {
        while let Some(r) = self.node(&pointer).get("$ref").and_then(Value::as_str) {
            pointer = r.strip_prefix('#').expect("local $ref").to_owned();
        }
        pointer
    }

    fn is_open_def(pointer: &str) -> bool {
        OPEN_DEFS
            .iter()
            .any(|d| pointer.ends_with(&format!("/{d}")))
    }

    /// Collects the members of `value` not declared by the schema at `pointer`.
    fn undeclared(&self, pointer: &str, value: &Value, path: &str, out: &mut Vec<String>) {
        let pointer = self.resolve(pointer.to_owned());
        let node = self.node(&pointer);

        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = node.get(key).and_then(Value::as_array) {
                let mut first_errors = None;
                for i in 0..branches.len() {
                    let branch = format!("{pointer}/{key}/{i}");
                    if !self.is_valid_at(&branch, value) {
                        continue;
                    }
                    let mut errors = Vec::new();
                    self.undeclared(&branch, value, path, &mut errors);
                    if errors.is_empty() {
                        return;
                    }
                    first_errors.get_or_insert(errors);
                }
                out.extend(first_errors.unwrap_or_default());
                return;
            }
        }

        // The object schemas that apply here: this node and its allOf members.
        let mut parts = vec![pointer.clone()];
        if let Some(members) = node.get("allOf").and_then(Value::as_array) {
            for i in 0..members.len() {
                parts.push(self.resolve(format!("{pointer}/allOf/{i}")));
            }
        }

        if let Some(object) = value.as_object() {
            let declares_properties = parts
                .iter()
                .any(|p| self.node(p).get("properties").is_some());
            let open = parts.iter().any(|p| {
                Self::is_open_def(p)
                    || matches!(self.node(p).get("additionalProperties"), Some(Value::Bool(true)))
                    || matches!(self.node(p).get("additionalProperties"), Some(Value::Object(m)) if m.is_empty())
            });
            for (k, v) in object {
                let child = format!("{path}/{k}");
                let declared = parts.iter().find(|p| {
                    self.node(p)
                        .get("properties")
                        .and_then(|props| props.get(k))
                        .is_some()
                });
                if let Some(p) = declared {
                    self.undeclared(&format!("{p}/properties/{}", esc(k)), v, &child, out);
                    continue;
                }
                let additional = parts.iter().find(|p| {
                    matches!(self.node(p).get("additionalProperties"), Some(Value::Object(m)) if !m.is_empty())
                });
                if let Some(p) = additional {
                    self.undeclared(&format!("{p}/additionalProperties"), v, &child, out);
                } else if declares_properties && !open {
                    out.push(child);
                }
            }
        }

        if let Some(items) = value.as_array() {
            for p in &parts {
                if self.node(p).get("items").is_some_and(Value::is_object) {
                    for (i, item) in items.iter().enumerate() {
                        self.undeclared(&format!("{p}/items"), item, &format!("{path}/{i}"), out);
                    }
                }
            }
        }
    }
}
