//! What a host checks before it uses a skill (SEP-2640, "Integrity and verification"), and
//! what a server checks before it publishes one, decided in one place for both sides:
//!
//! * [`validate_entry`]: an entry's shape (its URI, name, complete `resources`, digests,
//!   limits);
//! * [`check_file`] (feature `digest`): a file's bytes against its listed size, then digest;
//! * [`parse_frontmatter`] (feature `frontmatter`) and [`compare_frontmatter`]: a `SKILL.md`'s
//!   YAML frontmatter, field by field against the entry's.
//!
//! The frontmatter parser reads YAML 1.2 with its core schema (strings, integers, floats,
//! booleans, null, sequences, mappings), the schema the reference tooling's parser uses, so
//! that "identical frontmatter" means the same thing here and there. Mapping keys must be
//! strings; aliases, infinities and NaN are refused (JSON has no form for them), and so is
//! nesting deeper than `MAX_FRONTMATTER_DEPTH` (checked on the event stream, before a tree
//! that deep is built).

use serde_json::Value;

use super::{
    MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL, SkillEntry, SkillFile, SkillResources,
    is_valid_digest, is_valid_name, skill_name, skill_root,
};
use crate::common::JsonObject;

/// Why content must not be used: it is not what the skill's entry promised.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The file is not among the entry's `resources` (a changed skill: refresh the entry).
    #[error(
        "{uri} is not listed in the skill's resources (the skill changed: get its entry again)"
    )]
    Unlisted {
        /// The file asked for.
        uri: String,
    },
    /// The bytes read are not as long as the entry says.
    #[error("{uri}: read {actual} bytes, the skill's entry says {expected}")]
    Size {
        /// The file.
        uri: String,
        /// The size the entry lists.
        expected: u64,
        /// The size read.
        actual: u64,
    },
    /// The bytes read do not hash to the entry's digest.
    #[error("{uri}: the content's digest is {actual}, the skill's entry says {expected}")]
    Digest {
        /// The file.
        uri: String,
        /// The digest the entry lists.
        expected: String,
        /// The digest of what was read.
        actual: String,
    },
    /// The `SKILL.md` read has no frontmatter the parser accepts.
    #[error("{uri}: {reason}")]
    Frontmatter {
        /// The `SKILL.md`.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A frontmatter field differs between the `SKILL.md` read and the entry.
    #[error(
        "{uri}: frontmatter field `{field}` is {actual} in the file, {expected} in the skill's entry"
    )]
    FrontmatterField {
        /// The `SKILL.md`.
        uri: String,
        /// The first field that differs.
        field: String,
        /// Its value in the entry, as JSON (`null` when absent).
        expected: String,
        /// Its value in the file, as JSON (`null` when absent).
        actual: String,
    },
}

/// Checks an entry's shape: its `uri` is a `SKILL.md` whose last skill-path segment is the
/// frontmatter's `name`, which follows the naming rules; `description` is a non-empty string;
/// `resources` is `"dynamic"` or lists every file once, the `SKILL.md` among them, each inside
/// the skill with a well-formed digest, within the limits every host accepts.
pub fn validate_entry(entry: &SkillEntry) -> Result<(), String> {
    let uri = &entry.uri;
    let root =
        skill_root(uri).ok_or_else(|| format!("{uri} is not a <scheme>://<path>/SKILL.md URI"))?;
    let name = entry
        .name()
        .ok_or_else(|| format!("{uri}: the frontmatter has no string `name`"))?;
    if !is_valid_name(name) {
        return Err(format!(
            "{uri}: `{name}` is not a valid skill name (1-64 lowercase letters, digits and single hyphens)"
        ));
    }
    if skill_name(uri) != Some(name) {
        return Err(format!(
            "{uri}: the last segment of the skill path must be the frontmatter's name `{name}`"
        ));
    }
    if entry.description().is_none_or(str::is_empty) {
        return Err(format!("{uri}: the frontmatter has no `description`"));
    }
    let files = match &entry.resources {
        SkillResources::Dynamic => return Ok(()),
        SkillResources::Files(files) => files,
        SkillResources::Unknown(value) => {
            return Err(format!(
                "{uri}: `resources` must be an array of files or \"dynamic\", not {value}"
            ));
        }
    };
    if files.len() > MAX_FILES_PER_SKILL {
        return Err(format!(
            "{uri}: {} files, more than the {MAX_FILES_PER_SKILL} every host accepts",
            files.len()
        ));
    }
    if entry.resources.total_size() > MAX_BYTES_PER_SKILL {
        return Err(format!(
            "{uri}: {} bytes, more than the {MAX_BYTES_PER_SKILL} every host accepts",
            entry.resources.total_size()
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for file in files {
        if !seen.insert(file.uri.as_str()) {
            return Err(format!("{uri}: {} is listed twice", file.uri));
        }
        let inside = file
            .uri
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1);
        if !inside {
            return Err(format!("{uri}: {} is not inside the skill", file.uri));
        }
        if !is_valid_digest(&file.digest) {
            return Err(format!(
                "{uri}: the digest of {} is not sha256:<64 lowercase hex digits>",
                file.uri
            ));
        }
    }
    if !seen.contains(uri.as_str()) {
        return Err(format!(
            "{uri}: `resources` does not list the SKILL.md itself"
        ));
    }
    Ok(())
}

/// The listed file `uri` of `entry`; [`VerifyError::Unlisted`] when the entry does not list it.
pub fn listed<'a>(entry: &'a SkillEntry, uri: &str) -> Result<&'a SkillFile, VerifyError> {
    entry
        .resources
        .file(uri)
        .ok_or_else(|| VerifyError::Unlisted {
            uri: uri.to_owned(),
        })
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`: a skill file's digest.
#[cfg(feature = "digest")]
pub fn digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    use std::fmt::Write;
    let hash = sha2::Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// Checks `bytes`, read from `file.uri`, against the listed size, then the listed digest.
#[cfg(feature = "digest")]
pub fn check_file(file: &SkillFile, bytes: &[u8]) -> Result<(), VerifyError> {
    let actual = bytes.len() as u64;
    if actual != file.size {
        return Err(VerifyError::Size {
            uri: file.uri.clone(),
            expected: file.size,
            actual,
        });
    }
    let actual = digest(bytes);
    if actual != file.digest {
        return Err(VerifyError::Digest {
            uri: file.uri.clone(),
            expected: file.digest.clone(),
            actual,
        });
    }
    Ok(())
}

/// Compares a `SKILL.md`'s parsed frontmatter (`actual`) with an entry's (`expected`) field
/// by field; an absent field equals `null`, and numbers compare by value (`1` equals `1.0`).
/// The first differing field is the error.
pub fn compare_frontmatter(
    uri: &str,
    expected: &JsonObject,
    actual: &JsonObject,
) -> Result<(), VerifyError> {
    let fields = expected
        .keys()
        .chain(actual.keys().filter(|k| !expected.contains_key(*k)));
    for field in fields {
        let e = expected.get(field).unwrap_or(&Value::Null);
        let a = actual.get(field).unwrap_or(&Value::Null);
        if !same(e, a) {
            return Err(VerifyError::FrontmatterField {
                uri: uri.to_owned(),
                field: field.clone(),
                expected: e.to_string(),
                actual: a.to_string(),
            });
        }
    }
    Ok(())
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => x.keys().chain(y.keys()).all(|k| {
            same(
                x.get(k).unwrap_or(&Value::Null),
                y.get(k).unwrap_or(&Value::Null),
            )
        }),
        _ => a == b,
    }
}

/// A `SKILL.md` split at its frontmatter.
#[cfg(feature = "frontmatter")]
#[derive(Debug, Clone, PartialEq)]
pub struct Frontmatter {
    /// The frontmatter as JSON.
    pub fields: JsonObject,
    /// Where the body starts (the byte after the closing `---` line).
    pub body_offset: usize,
}

/// Parses the YAML frontmatter a `SKILL.md` starts with: a `---` line, YAML, a `---` line.
/// The error says what is wrong (no opening or closing line, YAML that does not parse, not a
/// mapping, a value JSON cannot hold).
#[cfg(feature = "frontmatter")]
pub fn parse_frontmatter(text: &str) -> Result<Frontmatter, String> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end() != "---" {
        return Err("the file does not start with a `---` frontmatter line".to_owned());
    }
    let start = first.len();
    let mut at = start;
    for line in lines {
        if line.trim_end() == "---" {
            let fields = yaml::to_json_object(&text[start..at])?;
            return Ok(Frontmatter {
                fields,
                body_offset: at + line.len(),
            });
        }
        at += line.len();
    }
    Err("the frontmatter has no closing `---` line".to_owned())
}

/// The deepest nesting of lists and maps a frontmatter may have. Building and dropping a YAML
/// tree recurses once per level, so a hostile `SKILL.md` of a few kilobytes (`- - - - …`)
/// would otherwise overflow the stack of whoever parses it; real frontmatter nests two or
/// three levels.
#[cfg(feature = "frontmatter")]
pub const MAX_FRONTMATTER_DEPTH: usize = 32;

#[cfg(feature = "frontmatter")]
mod yaml {
    use serde_json::{Map, Value};
    use yaml_rust2::parser::Parser;
    use yaml_rust2::{Event, Yaml, YamlLoader};

    use super::MAX_FRONTMATTER_DEPTH;
    use crate::common::JsonObject;

    /// Reads the YAML's events (no tree is built) until it ends or nests deeper than the
    /// limit.
    fn check_depth(source: &str) -> Result<(), String> {
        let mut parser = Parser::new_from_str(source);
        let mut depth = 0usize;
        loop {
            let (event, _) = parser
                .next_token()
                .map_err(|e| format!("the frontmatter is not valid YAML: {e}"))?;
            match event {
                Event::SequenceStart(..) | Event::MappingStart(..) => {
                    depth += 1;
                    if depth > MAX_FRONTMATTER_DEPTH {
                        return Err(format!(
                            "the frontmatter nests lists and maps more than \
                             {MAX_FRONTMATTER_DEPTH} levels deep"
                        ));
                    }
                }
                Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
                Event::StreamEnd => return Ok(()),
                _ => {}
            }
        }
    }

    pub(super) fn to_json_object(source: &str) -> Result<JsonObject, String> {
        check_depth(source)?;
        let docs = YamlLoader::load_from_str(source)
            .map_err(|e| format!("the frontmatter is not valid YAML: {e}"))?;
        match docs.as_slice() {
            [] => Ok(JsonObject::new()),
            [doc] => match to_json(doc)? {
                Value::Object(object) => Ok(object),
                Value::Null => Ok(JsonObject::new()),
                _ => Err("the frontmatter is not a YAML mapping".to_owned()),
            },
            _ => Err("the frontmatter holds more than one YAML document".to_owned()),
        }
    }

    fn to_json(yaml: &Yaml) -> Result<Value, String> {
        Ok(match yaml {
            Yaml::Null => Value::Null,
            Yaml::Boolean(b) => Value::Bool(*b),
            Yaml::Integer(i) => Value::from(*i),
            Yaml::String(s) => Value::String(s.clone()),
            Yaml::Real(text) => {
                let f = yaml
                    .as_f64()
                    .filter(|f| f.is_finite())
                    .ok_or_else(|| format!("`{text}`: JSON has no such number"))?;
                Value::Number(crate::common::number(f))
            }
            Yaml::Array(items) => {
                Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?)
            }
            Yaml::Hash(hash) => {
                let mut object = Map::new();
                for (key, value) in hash {
                    let Yaml::String(key) = key else {
                        return Err(format!("a frontmatter key is not a string: {key:?}"));
                    };
                    object.insert(key.clone(), to_json(value)?);
                }
                Value::Object(object)
            }
            Yaml::Alias(_) => {
                return Err("YAML aliases are not supported in frontmatter".to_owned());
            }
            Yaml::BadValue => {
                return Err("the frontmatter holds a value YAML cannot resolve".to_owned());
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(value: Value) -> SkillEntry {
        serde_json::from_value(value).unwrap()
    }

    const D: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

    #[test]
    fn entries_are_validated() {
        let good = json!({"uri": "skill://a/refunds/SKILL.md",
            "frontmatter": {"name": "refunds", "description": "d"},
            "resources": [{"uri": "skill://a/refunds/SKILL.md", "digest": D, "size": 1},
                          {"uri": "skill://a/refunds/x/y.md", "digest": D, "size": 1}]});
        validate_entry(&entry(good.clone())).unwrap();
        let mut wrong_name = good.clone();
        wrong_name["frontmatter"]["name"] = json!("other");
        assert!(
            validate_entry(&entry(wrong_name))
                .unwrap_err()
                .contains("last segment")
        );
        let mut outside = good.clone();
        outside["resources"][1]["uri"] = json!("skill://a/other/y.md");
        assert!(
            validate_entry(&entry(outside))
                .unwrap_err()
                .contains("not inside")
        );
        let mut no_self = good.clone();
        no_self["resources"].as_array_mut().unwrap().remove(0);
        assert!(
            validate_entry(&entry(no_self))
                .unwrap_err()
                .contains("SKILL.md itself")
        );
        let mut bad = good;
        bad["resources"] = json!("static");
        assert!(validate_entry(&entry(bad)).is_err());
    }

    #[test]
    fn frontmatter_compares_field_by_field() {
        let e = json!({"name": "a", "version": 1, "x": null});
        let a = json!({"name": "a", "version": 1.0});
        compare_frontmatter("u", e.as_object().unwrap(), a.as_object().unwrap()).unwrap();
        let a = json!({"name": "a", "version": 2});
        let err = compare_frontmatter("u", e.as_object().unwrap(), a.as_object().unwrap());
        assert!(
            matches!(err, Err(VerifyError::FrontmatterField { field, .. }) if field == "version")
        );
    }

    #[cfg(feature = "digest")]
    #[test]
    fn files_are_checked_by_size_then_digest() {
        let file = SkillFile {
            uri: "skill://a/SKILL.md".into(),
            digest: digest(b"abc"),
            size: 3,
            extra: Default::default(),
        };
        assert_eq!(
            file.digest,
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        check_file(&file, b"abc").unwrap();
        assert!(matches!(
            check_file(&file, b"abcd"),
            Err(VerifyError::Size { .. })
        ));
        assert!(matches!(
            check_file(&file, b"abd"),
            Err(VerifyError::Digest { .. })
        ));
    }

    #[cfg(feature = "frontmatter")]
    #[test]
    fn frontmatter_is_yaml_core_schema_as_json() {
        let text = "---\r\nname: pdf\ndescription: \"Fill: forms\"\nversion: 1.0\nn: 7\nok: true\nnone:\nlist: [a, 2]\nmetadata:\n  k: v\n---\nBody\n";
        let parsed = parse_frontmatter(text).unwrap();
        assert_eq!(
            Value::Object(parsed.fields),
            json!({"name": "pdf", "description": "Fill: forms", "version": 1, "n": 7,
                   "ok": true, "none": null, "list": ["a", 2], "metadata": {"k": "v"}})
        );
        assert_eq!(&text[parsed.body_offset..], "Body\n");
        assert!(
            parse_frontmatter("name: x\n")
                .unwrap_err()
                .contains("start")
        );
        assert!(
            parse_frontmatter("---\nname: x\n")
                .unwrap_err()
                .contains("closing")
        );
        assert!(
            parse_frontmatter("---\n- a\n---\n")
                .unwrap_err()
                .contains("mapping")
        );
        assert!(
            parse_frontmatter("---\nx: .inf\n---\n")
                .unwrap_err()
                .contains("JSON")
        );
        assert!(
            parse_frontmatter("---\n1: x\n---\n")
                .unwrap_err()
                .contains("key")
        );
        assert!(
            parse_frontmatter("---\nx: [\n---\n")
                .unwrap_err()
                .contains("YAML")
        );
    }
}

#[cfg(all(test, feature = "frontmatter"))]
mod depth_tests {
    use super::parse_frontmatter;

    /// Hostile nesting is refused before a tree is built (it would overflow the stack).
    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let fine = format!("---\nx: {}1{}\n---\n", "[".repeat(30), "]".repeat(30));
        parse_frontmatter(&fine).unwrap();
        let sequences = format!("---\nx:\n{}a\n---\n", "- ".repeat(100_000));
        let mut mappings = String::from("---\n");
        for level in 0..2_000 {
            mappings.push_str(&" ".repeat(level));
            mappings.push_str("k:\n");
        }
        mappings.push_str("---\n");
        let flows = format!("---\nx: {}\n---\n", "[".repeat(200));
        for text in [sequences, mappings, flows] {
            let e = parse_frontmatter(&text).unwrap_err();
            assert!(e.contains("levels deep"), "{e}");
        }
    }
}

#[cfg(all(test, feature = "frontmatter"))]
mod properties {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::parse_frontmatter;

    proptest! {
        /// Whatever a server sends, parsing answers (an error at worst).
        #[test]
        fn never_panics(body in "\\PC{0,200}", raw in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = parse_frontmatter(&format!("---\n{body}\n---\n"));
            let _ = parse_frontmatter(&String::from_utf8_lossy(&raw));
        }

        /// A map of strings written as double-quoted YAML comes back exactly.
        #[test]
        fn strings_come_back_exactly(
            fields in proptest::collection::btree_map("[a-z][a-z0-9_-]{0,8}", "\\PC{0,40}", 0..6)
        ) {
            let mut text = String::from("---\n");
            for (key, value) in &fields {
                text.push_str(&format!("{key}: {}\n", Value::String(value.clone())));
            }
            text.push_str("---\n");
            let parsed = parse_frontmatter(&text).unwrap().fields;
            let expected: serde_json::Map<String, Value> = fields
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect();
            prop_assert_eq!(parsed, expected);
        }
    }
}
