//! The elicitation form on a terminal: the requested schema's fields asked one by one (with
//! their choices, defaults and limits), each answer checked before the next field.

use std::io::{BufRead, Write};

use serde_json::{Map, Number, Value};

use crate::output::sanitize;

/// Typed at any prompt to decline the request.
const DECLINE: &str = ":decline";
/// Typed at any prompt to cancel the request (end of input cancels too).
const CANCEL: &str = ":cancel";

/// What the user answered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FormOutcome {
    /// The form, filled in.
    Accept(Map<String, Value>),
    /// The user declined.
    Decline,
    /// The user cancelled (or input ended).
    Cancel,
}

/// One field of the form.
#[derive(Debug, Clone, PartialEq)]
struct Field {
    name: String,
    title: Option<String>,
    description: Option<String>,
    kind: Kind,
    required: bool,
    default: Option<Value>,
}

/// What a field holds, with its limits.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Text {
        min_length: Option<u64>,
        max_length: Option<u64>,
        format: Option<String>,
    },
    Number {
        integer: bool,
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    Boolean,
    /// One of these values (each with its title).
    Choice(Vec<(String, Option<String>)>),
    /// Several of these values, between `min` and `max` of them.
    Choices {
        options: Vec<(String, Option<String>)>,
        min: Option<u64>,
        max: Option<u64>,
    },
}

/// Asks the form of `schema` (an elicitation's `requestedSchema`) on `output`, reading
/// answers from `input`.
pub(crate) fn ask(
    message: &str,
    schema: &Value,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> std::io::Result<FormOutcome> {
    let fields = fields(schema);
    writeln!(output, "{}", sanitize(message))?;
    writeln!(
        output,
        "(answer each field; Enter keeps the default or skips an optional field; \
         {DECLINE} declines, {CANCEL} or end of input cancels)"
    )?;
    let mut content = Map::new();
    for field in &fields {
        loop {
            write!(output, "{}", field.prompt())?;
            output.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                writeln!(output)?;
                return Ok(FormOutcome::Cancel);
            }
            let answer = line.trim_end_matches(['\n', '\r']);
            match answer.trim() {
                DECLINE => return Ok(FormOutcome::Decline),
                CANCEL => return Ok(FormOutcome::Cancel),
                _ => {}
            }
            match field.parse(answer) {
                Ok(Some(value)) => {
                    content.insert(field.name.clone(), value);
                    break;
                }
                Ok(None) => break,
                Err(problem) => writeln!(output, "  {problem}")?,
            }
        }
    }
    Ok(FormOutcome::Accept(content))
}

/// A URL-mode elicitation: waits for Enter once the user is done with the page (accept),
/// or the way out.
pub(crate) fn confirm(
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> std::io::Result<FormOutcome> {
    write!(
        output,
        "Open the URL above, then press Enter ({DECLINE} declines, {CANCEL} or end of input cancels)\n> "
    )?;
    output.flush()?;
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(FormOutcome::Cancel);
    }
    Ok(match line.trim() {
        DECLINE => FormOutcome::Decline,
        CANCEL => FormOutcome::Cancel,
        _ => FormOutcome::Accept(Map::new()),
    })
}

/// The fields of a requested schema, in its order.
fn fields(schema: &Value) -> Vec<Field> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let text = |key: &str| property.get(key).and_then(Value::as_str).map(str::to_owned);
            Field {
                name: name.clone(),
                title: text("title"),
                description: text("description"),
                kind: kind(property),
                required: required.contains(&name.as_str()),
                default: property.get("default").cloned(),
            }
        })
        .collect()
}

/// The kind of a property: enums (`enum`, `oneOf`/`anyOf` of `const`s, arrays of them),
/// numbers, booleans, else text.
fn kind(property: &Value) -> Kind {
    let uint = |key: &str| property.get(key).and_then(Value::as_u64);
    let float = |key: &str| property.get(key).and_then(Value::as_f64);
    if let Some(options) = options(property) {
        return Kind::Choice(options);
    }
    match property.get("type").and_then(Value::as_str) {
        Some("array") => {
            let items = property.get("items").unwrap_or(&Value::Null);
            Kind::Choices {
                options: options(items).unwrap_or_default(),
                min: uint("minItems"),
                max: uint("maxItems"),
            }
        }
        Some(kind @ ("number" | "integer")) => Kind::Number {
            integer: kind == "integer",
            minimum: float("minimum"),
            maximum: float("maximum"),
        },
        Some("boolean") => Kind::Boolean,
        _ => Kind::Text {
            min_length: uint("minLength"),
            max_length: uint("maxLength"),
            format: property
                .get("format")
                .and_then(Value::as_str)
                .map(str::to_owned),
        },
    }
}

/// The options of an enum schema: `enum` (titles from the legacy `enumNames`), or
/// `oneOf`/`anyOf` of `{const, title}`.
fn options(schema: &Value) -> Option<Vec<(String, Option<String>)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let title = names
                        .and_then(|n| n.get(i))
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    Some((v.as_str()?.to_owned(), title))
                })
                .collect(),
        );
    }
    let alternatives = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        alternatives
            .iter()
            .filter_map(|option| {
                let value = option.get("const")?.as_str()?.to_owned();
                let title = option
                    .get("title")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                Some((value, title))
            })
            .collect(),
    )
}

impl Field {
    /// The prompt: the field's name, kind and limits, its choices, its default.
    fn prompt(&self) -> String {
        let mut prompt = String::new();
        prompt.push_str(&self.name);
        if let Some(title) = self.title.as_deref().filter(|t| *t != self.name) {
            prompt.push_str(&format!(" \"{title}\""));
        }
        let required = if self.required {
            "required"
        } else {
            "optional"
        };
        prompt.push_str(&format!(" ({}, {required})", self.kind.describe()));
        if let Some(description) = &self.description {
            prompt.push_str(&format!(" - {description}"));
        }
        if let Some(default) = &self.default {
            prompt.push_str(&format!(" [default: {}]", shown(default)));
        }
        if let Kind::Choice(options) | Kind::Choices { options, .. } = &self.kind {
            for (i, (value, title)) in options.iter().enumerate() {
                match title {
                    Some(title) => prompt.push_str(&format!("\n  {}) {value}: {title}", i + 1)),
                    None => prompt.push_str(&format!("\n  {}) {value}", i + 1)),
                }
            }
        }
        prompt.push_str("\n> ");
        sanitize(&prompt)
    }

    /// The value of an answer: `None` for an optional field left empty, an error saying
    /// what is expected.
    fn parse(&self, answer: &str) -> Result<Option<Value>, String> {
        if answer.trim().is_empty() {
            return match (&self.default, self.required) {
                (Some(default), _) => Ok(Some(default.clone())),
                (None, false) => Ok(None),
                (None, true) => Err("this field is required".to_owned()),
            };
        }
        self.kind.parse(answer).map(Some)
    }
}

impl Kind {
    fn describe(&self) -> String {
        match self {
            Kind::Text {
                min_length,
                max_length,
                format,
            } => {
                let mut text = format.clone().unwrap_or_else(|| "text".to_owned());
                match (min_length, max_length) {
                    (Some(min), Some(max)) => text.push_str(&format!(", {min}-{max} characters")),
                    (Some(min), None) => text.push_str(&format!(", at least {min} characters")),
                    (None, Some(max)) => text.push_str(&format!(", at most {max} characters")),
                    (None, None) => {}
                }
                text
            }
            Kind::Number {
                integer,
                minimum,
                maximum,
            } => {
                let mut text = if *integer { "integer" } else { "number" }.to_owned();
                if let Some(min) = minimum {
                    text.push_str(&format!(", ≥ {min}"));
                }
                if let Some(max) = maximum {
                    text.push_str(&format!(", ≤ {max}"));
                }
                text
            }
            Kind::Boolean => "y/n".to_owned(),
            Kind::Choice(_) => "a number or a value".to_owned(),
            Kind::Choices { min, max, .. } => {
                let mut text = "numbers or values, comma-separated".to_owned();
                match (min, max) {
                    (Some(min), Some(max)) => text.push_str(&format!(", {min} to {max}")),
                    (Some(min), None) => text.push_str(&format!(", at least {min}")),
                    (None, Some(max)) => text.push_str(&format!(", at most {max}")),
                    (None, None) => {}
                }
                text
            }
        }
    }

    fn parse(&self, answer: &str) -> Result<Value, String> {
        match self {
            Kind::Text {
                min_length,
                max_length,
                ..
            } => {
                let length = answer.chars().count() as u64;
                if min_length.is_some_and(|min| length < min) {
                    return Err(format!("at least {} characters", min_length.unwrap_or(0)));
                }
                if max_length.is_some_and(|max| length > max) {
                    return Err(format!("at most {} characters", max_length.unwrap_or(0)));
                }
                Ok(Value::String(answer.to_owned()))
            }
            Kind::Number {
                integer,
                minimum,
                maximum,
            } => {
                let answer = answer.trim();
                let number: Number = if *integer {
                    answer
                        .parse::<i64>()
                        .map(Number::from)
                        .map_err(|_| "an integer, please".to_owned())?
                } else {
                    answer
                        .parse::<f64>()
                        .ok()
                        .and_then(Number::from_f64)
                        .ok_or_else(|| "a number, please".to_owned())?
                };
                let value = number.as_f64().unwrap_or_default();
                if let Some(min) = minimum.filter(|min| value < *min) {
                    return Err(format!("at least {min}"));
                }
                if let Some(max) = maximum.filter(|max| value > *max) {
                    return Err(format!("at most {max}"));
                }
                Ok(Value::Number(number))
            }
            Kind::Boolean => match answer.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" | "true" => Ok(Value::Bool(true)),
                "n" | "no" | "false" => Ok(Value::Bool(false)),
                _ => Err("y or n, please".to_owned()),
            },
            Kind::Choice(options) => choose(options, answer.trim()).map(Value::String),
            Kind::Choices { options, min, max } => {
                let chosen = answer
                    .split(',')
                    .map(str::trim)
                    .filter(|part| !part.is_empty())
                    .map(|part| choose(options, part).map(Value::String))
                    .collect::<Result<Vec<_>, _>>()?;
                let count = chosen.len() as u64;
                if let Some(min) = min.filter(|min| count < *min) {
                    return Err(format!("at least {min}, please"));
                }
                if let Some(max) = max.filter(|max| count > *max) {
                    return Err(format!("at most {max}, please"));
                }
                Ok(Value::Array(chosen))
            }
        }
    }
}

/// The option an answer names: its number in the list, or its value.
fn choose(options: &[(String, Option<String>)], answer: &str) -> Result<String, String> {
    let values: Vec<&str> = options.iter().map(|(value, _)| value.as_str()).collect();
    pick(&values, answer)
        .map(str::to_owned)
        .ok_or_else(|| format!("one of the numbers 1-{} or a listed value", options.len()))
}

/// The choice an answer names among `values`: its number in the list (from 1), or the value
/// itself (VS Code's `pickString` inputs are answered the same way).
pub(crate) fn pick<'a>(values: &[&'a str], answer: &str) -> Option<&'a str> {
    answer
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| values.get(i).copied())
        .or_else(|| values.iter().copied().find(|value| *value == answer))
}

/// A default as the prompt shows it.
fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(shown).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn run(schema: &Value, answers: &str) -> (FormOutcome, String) {
        let mut output = Vec::new();
        let outcome = ask("Who?", schema, &mut answers.as_bytes(), &mut output).unwrap();
        (outcome, String::from_utf8(output).unwrap())
    }

    #[test]
    fn fields_are_asked_checked_and_typed() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "minLength": 2 },
                "age": { "type": "integer", "minimum": 0, "default": 30 },
                "colour": { "type": "string", "oneOf": [
                    { "const": "r", "title": "Red" }, { "const": "g", "title": "Green" }
                ] },
                "tags": { "type": "array", "maxItems": 2, "items": { "enum": ["a", "b", "c"] } },
                "ok": { "type": "boolean" },
                "note": { "type": "string" }
            },
            "required": ["name", "ok"]
        });
        // "A" is too short, "x" is no integer, "3" is not an option.
        let (outcome, shown) = run(&schema, "A\nAda\nx\n\n3\n2\n1,2,3\na, 3\nmaybe\ny\n\n");
        let FormOutcome::Accept(content) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(
            Value::Object(content),
            json!({ "name": "Ada", "age": 30, "colour": "g", "tags": ["a", "c"], "ok": true })
        );
        assert!(shown.contains("at least 2 characters"), "{shown}");
        assert!(shown.contains("an integer, please"), "{shown}");
        assert!(shown.contains("2) g: Green"), "{shown}");
        assert!(shown.contains("y or n, please"), "{shown}");
        assert!(shown.contains("at most 2, please"), "{shown}");
    }

    #[test]
    fn required_fields_and_the_way_out() {
        let schema = json!({
            "properties": { "name": { "type": "string" } }, "required": ["name"]
        });
        let (outcome, shown) = run(&schema, "\n:decline\n");
        assert_eq!(outcome, FormOutcome::Decline);
        assert!(shown.contains("this field is required"));
        assert_eq!(run(&schema, ":cancel\n").0, FormOutcome::Cancel);
        assert_eq!(run(&schema, "").0, FormOutcome::Cancel);
    }
}
