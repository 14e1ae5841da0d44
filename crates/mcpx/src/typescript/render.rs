//! What TypeScript type a schema is: each keyword's part of the type, and the notes for what
//! the type cannot say.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::aliases::{Aliases, Graph, key};
use super::comments::{self, one_line, safe};
use super::print::{Docs, Member, Ts, literal_text, print_one_line};
use super::refs;

/// How deep schemas nest before the rest is shown as `any`: 32 levels below the root, where
/// each subschema and each followed `$ref` is one level. Real tool schemas stay far below
/// (GitHub's catalog: 4); the cap bounds the recursion on hostile or broken input. A `$ref`
/// met at the cap is named instead of followed, so reference chains lose nothing.
pub(super) const MAX_DEPTH: usize = 32;

/// Longest reference named in the note of one we cannot resolve, in characters.
const MAX_REF_NOTE_LEN: usize = 100;

/// Most `$ref`-only schemas followed in a row before one counts as a level of nesting.
const MAX_REF_HOPS: usize = 1024;

/// Keywords that make a schema without `type` an object schema, when their value has the
/// right JSON type.
const OBJECT_KEYWORDS: [&str; 5] = [
    "properties",
    "patternProperties",
    "additionalProperties",
    "required",
    "propertyNames",
];

/// Keywords that make a schema without `type` an array schema, likewise.
const ARRAY_KEYWORDS: [&str; 4] = ["items", "prefixItems", "additionalItems", "contains"];

/// Keywords that do not change the type: a schema of these and a `$ref` is its target.
const NEUTRAL_KEYWORDS: [&str; 7] = [
    "$ref",
    "$defs",
    "definitions",
    "$id",
    "$schema",
    "$anchor",
    "$comment",
];

/// Turns schemas of one document into types, either for real or to collect the `$ref` graph.
pub(super) struct Renderer<'a> {
    /// The document `$ref`s resolve in.
    root: &'a Value,
    /// As [`super::TsOptions::max_description_len`]; 0 inside notes.
    max_description_len: usize,
    /// The named schemas, and which names the output uses.
    aliases: Aliases<'a>,
    /// `Some` while collecting: references are recorded, not followed.
    graph: Option<Graph<'a>>,
    /// The schemas being rendered, outermost first (addresses), to see a reference cycle.
    stack: Vec<usize>,
    /// Resolved references, by their text.
    resolved: HashMap<String, Option<(&'a Value, String)>>,
}

impl<'a> Renderer<'a> {
    /// A renderer of `root`'s schemas, naming those `aliases` names.
    pub(super) fn new(root: &'a Value, max_description_len: usize, aliases: Aliases<'a>) -> Self {
        Self {
            root,
            max_description_len,
            aliases,
            graph: None,
            stack: Vec::new(),
            resolved: HashMap::new(),
        }
    }

    /// The reference graph of `root`: every schema a `$ref` reaches from it, how many `$ref`s
    /// point at each, and which point from where. Each schema's body is walked once.
    pub(super) fn collect(root: &'a Value) -> Graph<'a> {
        let mut renderer = Self::new(root, 0, Aliases::default());
        renderer.graph = Some(Graph::new(root));
        let mut next = 0;
        while let Some(value) = renderer.graph.as_mut().and_then(|graph| graph.start(next)) {
            renderer.stack.clear();
            renderer.enter(value, 0);
            next += 1;
        }
        renderer.graph.unwrap_or_else(|| Graph::new(root))
    }

    /// The type of the root schema.
    pub(super) fn root_type(&mut self) -> Ts {
        self.stack.clear();
        self.schema(self.root, 0)
    }

    /// The `index`th alias the output uses, by first use, with the type it names; `None`
    /// past the last. Rendering a body may use more aliases: call with `index + 1` until `None`.
    pub(super) fn alias(&mut self, index: usize) -> Option<(String, Ts)> {
        let (name, value) = self.aliases.used(index)?;
        self.stack.clear();
        Some((name, self.enter(value, 0)))
    }

    /// The type of `value`, nested `depth` levels below the root: `any` past [`MAX_DEPTH`],
    /// the alias name when it is a named schema.
    pub(super) fn schema(&mut self, value: &'a Value, depth: usize) -> Ts {
        if depth > MAX_DEPTH {
            return Ts::any();
        }
        if self.graph.is_none()
            && let Some(name) = self.aliases.use_name(key(value))
        {
            return Ts::Name(name);
        }
        self.enter(value, depth)
    }

    /// The type of `value` itself, never its alias name.
    pub(super) fn enter(&mut self, value: &'a Value, depth: usize) -> Ts {
        self.stack.push(key(value));
        let ty = self.body(value, depth);
        self.stack.pop();
        ty
    }

    fn body(&mut self, value: &'a Value, depth: usize) -> Ts {
        let map = match value {
            Value::Bool(false) => return Ts::never(),
            Value::Object(map) => map,
            _ => return Ts::any(),
        };
        let mut docs = Docs::default();
        let mut parts = Vec::new();
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            if let Some(reference) = map.get(keyword).and_then(Value::as_str) {
                parts.push(self.reference(reference, depth));
            }
        }
        let mut tuple = None;
        if let Some(value) = map.get("const") {
            parts.push(literal(value));
        } else if let Some(values) = map.get("enum").and_then(Value::as_array) {
            parts.push(Ts::union(values.iter().map(literal).collect()));
        } else if let Some(ty) = self.typed(map, depth, &mut docs, &mut tuple) {
            parts.push(ty);
        }
        for keyword in ["anyOf", "oneOf"] {
            let members = map.get(keyword).and_then(Value::as_array);
            if let Some(members) = members.filter(|members| !members.is_empty()) {
                let members = members
                    .iter()
                    .map(|member| self.schema(member, depth + 1))
                    .collect();
                parts.push(Ts::union(members));
            }
        }
        if let Some(members) = map.get("allOf").and_then(Value::as_array) {
            for member in members {
                parts.push(self.schema(member, depth + 1));
            }
        }
        let mut ty = Ts::intersection(parts);
        if map.get("nullable") == Some(&Value::Bool(true)) && !ty.is("any") {
            ty = Ts::union(vec![ty, Ts::keyword("null")]);
        }
        for note in comments::constraints(map, tuple) {
            docs.note(note);
        }
        self.logic_notes(map, depth, &mut docs);
        docs.description = comments::description(map, self.max_description_len);
        ty.with_docs(docs)
    }

    /// The type a `$ref` stands for: the alias name, or the target inlined, or `any` with a
    /// note naming a reference that points outside the document or nowhere.
    fn reference(&mut self, reference: &str, depth: usize) -> Ts {
        let Some((mut target, mut hint)) = self.resolve(reference) else {
            let note = format!(
                "ref: {}",
                safe(&comments::cut(&one_line(reference), MAX_REF_NOTE_LEN))
            );
            return Ts::any().with_docs(Docs {
                description: None,
                notes: vec![note],
            });
        };
        if let Some(graph) = &mut self.graph {
            graph.edge(target, hint);
            return Ts::any();
        }
        // A chain of schemas that are only a `$ref` is followed without nesting deeper.
        for _ in 0..MAX_REF_HOPS {
            if self.aliases.use_name(key(target)).is_some() || self.stack.contains(&key(target)) {
                break;
            }
            let next = match target {
                Value::Object(map)
                    if map
                        .keys()
                        .all(|keyword| NEUTRAL_KEYWORDS.contains(&keyword.as_str())) =>
                {
                    map.get("$ref")
                        .and_then(Value::as_str)
                        .and_then(|next| self.resolve(next))
                }
                _ => None,
            };
            let Some(next) = next else { break };
            (target, hint) = next;
        }
        let target_key = key(target);
        if let Some(name) = self.aliases.use_name(target_key) {
            return Ts::Name(name);
        }
        if depth >= MAX_DEPTH || self.stack.contains(&target_key) {
            // A cycle or a long chain the plan did not foresee: named, not followed.
            self.aliases.assign(target, &hint);
            if let Some(name) = self.aliases.use_name(target_key) {
                return Ts::Name(name);
            }
            return Ts::any();
        }
        self.enter(target, depth + 1)
    }

    /// Where `reference` points, remembered by its text.
    fn resolve(&mut self, reference: &str) -> Option<(&'a Value, String)> {
        if let Some(resolved) = self.resolved.get(reference) {
            return resolved.clone();
        }
        let resolved = refs::resolve(self.root, reference);
        self.resolved.insert(reference.to_owned(), resolved.clone());
        resolved
    }

    /// The type from `type` (or, without it, from object and array keywords), with an `int`
    /// note for integers; `None` when the schema says nothing of its type.
    fn typed(
        &mut self,
        map: &'a Map<String, Value>,
        depth: usize,
        docs: &mut Docs,
        tuple: &mut Option<(usize, bool)>,
    ) -> Option<Ts> {
        let names: Vec<&str> = match map.get("type") {
            Some(Value::String(name)) => vec![name.as_str()],
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => {
                let has = |keywords: &[&str]| {
                    keywords.iter().any(|keyword| {
                        map.get(*keyword)
                            .is_some_and(|value| shaped(keyword, value))
                    })
                };
                let object = has(&OBJECT_KEYWORDS).then_some("object");
                let array = has(&ARRAY_KEYWORDS).then_some("array");
                object.into_iter().chain(array).collect()
            }
        };
        if names.is_empty() {
            return None;
        }
        if names.contains(&"integer") && !names.contains(&"number") {
            docs.note("int".to_owned());
        }
        let mut members = Vec::with_capacity(names.len());
        for name in names {
            members.push(match name {
                "string" | "number" | "boolean" | "null" => Ts::keyword(name),
                "integer" => Ts::keyword("number"),
                "object" => self.object(map, depth),
                "array" => self.array(map, depth, tuple),
                _ => Ts::any(),
            });
        }
        Some(Ts::union(members))
    }

    /// An object type: the properties in document order (`?` when not required), required
    /// names without a property schema, then index signatures for `patternProperties` and
    /// `additionalProperties`; `object` when nothing constrains the members.
    fn object(&mut self, map: &'a Map<String, Value>, depth: usize) -> Ts {
        let properties = map.get("properties").and_then(Value::as_object);
        let patterns = map.get("patternProperties").and_then(Value::as_object);
        let patterns = patterns.filter(|patterns| !patterns.is_empty());
        let mut required: Vec<&str> = Vec::new();
        let mut required_set = HashSet::new();
        for name in map
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if required_set.insert(name) {
                required.push(name);
            }
        }
        let additional = map
            .get("additionalProperties")
            .or_else(|| map.get("unevaluatedProperties"));
        let free = matches!(additional, None | Some(Value::Bool(true)));
        let no_properties = properties.is_none_or(Map::is_empty);
        if no_properties && patterns.is_none() && required.is_empty() && free {
            return Ts::keyword("object");
        }
        let mut members = Vec::new();
        for (name, schema) in properties.into_iter().flatten() {
            let (docs, ty) = self.schema(schema, depth + 1).take_docs();
            let optional = !required_set.contains(name.as_str());
            members.push(Member {
                docs,
                name: Some(name.clone()),
                optional,
                ty,
            });
        }
        let additional = match additional {
            Some(Value::Bool(true)) => Some(Ts::any()),
            Some(schema @ Value::Object(_)) => Some(self.schema(schema, depth + 1)),
            _ => None,
        };
        // A required name without a property schema takes the `additionalProperties` type when
        // that is a keyword or a literal; a longer type is not repeated per name (the index
        // signature says it once).
        let extra = match additional.as_ref().map(|ty| ty.clone().take_docs().1) {
            Some(ty @ (Ts::Name(_) | Ts::Literal(_))) => ty,
            _ => Ts::any(),
        };
        for name in required {
            if !properties.is_some_and(|properties| properties.contains_key(name)) {
                let ty = extra.clone();
                let name = Some(name.to_owned());
                members.push(Member {
                    docs: Docs::default(),
                    name,
                    optional: false,
                    ty,
                });
            }
        }
        for (pattern, schema) in patterns.into_iter().flatten() {
            let (mut docs, ty) = self.schema(schema, depth + 1).take_docs();
            docs.notes
                .insert(0, format!("key pattern: {}", safe(&one_line(pattern))));
            members.push(Member {
                docs,
                name: None,
                optional: false,
                ty,
            });
        }
        if let Some(additional) = additional {
            let (docs, ty) = additional.take_docs();
            members.push(Member {
                docs,
                name: None,
                optional: false,
                ty,
            });
        }
        Ts::Object(members)
    }

    /// An array type `T[]`, or a tuple for `prefixItems` (draft 2020-12) or an `items` array
    /// (drafts 4 to 7): elements past `minItems` optional, the rest `...T[]` unless closed.
    /// `tuple` gets the tuple's length and whether it has a rest element.
    fn array(
        &mut self,
        map: &'a Map<String, Value>,
        depth: usize,
        tuple: &mut Option<(usize, bool)>,
    ) -> Ts {
        let (prefix, rest): (&[Value], Option<&Value>) =
            match (map.get("prefixItems"), map.get("items")) {
                (Some(Value::Array(prefix)), items) => (prefix, items),
                (_, Some(Value::Array(prefix))) => (prefix, map.get("additionalItems")),
                (_, items) => (&[], items),
            };
        if prefix.is_empty() {
            return match rest {
                None => Ts::Array(Box::new(Ts::any())),
                Some(Value::Bool(false)) => Ts::Tuple(Vec::new(), None),
                Some(schema) => Ts::Array(Box::new(self.schema(schema, depth + 1))),
            };
        }
        let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = map.get("maxItems").and_then(Value::as_u64);
        let mut elements = Vec::with_capacity(prefix.len());
        for (index, schema) in prefix.iter().enumerate() {
            elements.push((self.schema(schema, depth + 1), index as u64 >= min));
        }
        let closed = matches!(rest, Some(Value::Bool(false)))
            || max.is_some_and(|max| max <= prefix.len() as u64);
        let rest = match rest {
            _ if closed => None,
            None => Some(Box::new(Ts::any())),
            Some(schema) => Some(Box::new(self.schema(schema, depth + 1))),
        };
        *tuple = Some((prefix.len(), rest.is_some()));
        Ts::Tuple(elements, rest)
    }

    /// Notes for what constrains a value beyond its type: `not`, `if`/`then`/`else`,
    /// `dependentRequired`, `dependentSchemas` (and draft 7 `dependencies`), `contains`,
    /// `propertyNames`. Subschemas are written as types, their notes in parentheses.
    fn logic_notes(&mut self, map: &'a Map<String, Value>, depth: usize, docs: &mut Docs) {
        if let Some(schema) = map.get("not") {
            let note = format!("not: {}", self.inline(schema, depth));
            docs.note(note);
        }
        if let Some(condition) = map.get("if") {
            let mut note = format!("if {}", self.inline(condition, depth));
            for (keyword, word) in [("then", "then"), ("else", "else")] {
                if let Some(schema) = map.get(keyword) {
                    note.push_str(&format!(" {word} {}", self.inline(schema, depth)));
                }
            }
            docs.note(note);
        }
        for keyword in ["dependentRequired", "dependentSchemas", "dependencies"] {
            for (name, dependency) in map
                .get(keyword)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let name = safe(&one_line(name));
                let note = match dependency {
                    Value::Array(names) => {
                        let names: Vec<String> = names
                            .iter()
                            .filter_map(Value::as_str)
                            .map(|name| safe(&one_line(name)))
                            .collect();
                        format!("{name} requires [{}]", names.join(", "))
                    }
                    schema => format!("if {name}: {}", self.inline(schema, depth)),
                };
                docs.note(note);
            }
        }
        if let Some(schema) = map.get("contains") {
            let note = format!("contains: {}", self.inline(schema, depth));
            docs.note(note);
        }
        if let Some(schema) = map.get("propertyNames") {
            let note = format!("keys: {}", self.inline(schema, depth));
            docs.note(note);
        }
    }

    /// A subschema as text for inside a note: its type on one line without descriptions, the
    /// notes of its parts after them in parentheses.
    fn inline(&mut self, schema: &'a Value, depth: usize) -> String {
        let saved = std::mem::replace(&mut self.max_description_len, 0);
        let ty = self.schema(schema, depth + 1);
        self.max_description_len = saved;
        safe(&print_one_line(&ty))
    }
}

/// A literal type: the value as compact JSON, which TypeScript reads as the same literal
/// (`null` is the keyword, so that `nullable` does not add it twice); `any` for a value too
/// deep to write.
fn literal(value: &Value) -> Ts {
    match value {
        Value::Null => Ts::keyword("null"),
        value => literal_text(value).map_or_else(Ts::any, Ts::Literal),
    }
}

/// Whether `value` has a JSON type `keyword` accepts, for guessing the type from it.
fn shaped(keyword: &str, value: &Value) -> bool {
    match keyword {
        "properties" | "patternProperties" => value.is_object(),
        "required" | "prefixItems" => value.is_array(),
        "items" => value.is_object() || value.is_boolean() || value.is_array(),
        _ => value.is_object() || value.is_boolean(),
    }
}
