//! How a TypeScript type is written: the small type tree the converter builds, and its printer
//! (no optional spaces, parentheses only where precedence needs them, comments beside what they
//! describe).

use std::collections::HashSet;

/// Deepest JSON value written as a literal: serializing recurses once per level, so a deeper
/// (hand-built, never parsed: parsing stops at 128) value is not written at all.
const MAX_LITERAL_DEPTH: usize = 64;

/// Between two members of an object type, and two elements of a tuple.
const SEPARATOR: &str = ",";

/// A TypeScript type.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ts {
    /// A keyword (`string`, `any`, `never`, `object`…) or the name of an alias.
    Name(String),
    /// A literal type, as compact JSON (`"a"`, `1`, `true`, `null`).
    Literal(String),
    /// `T[]`.
    Array(Box<Ts>),
    /// `[A,B?,...C[]]`: the elements (each with whether it is optional) and the rest.
    Tuple(Vec<(Ts, bool)>, Option<Box<Ts>>),
    /// `{a:A,b?:B,[k:string]:C}`.
    Object(Vec<Member>),
    /// `A|B`.
    Union(Vec<Ts>),
    /// `A&B`.
    Intersection(Vec<Ts>),
    /// A type with a comment: `/** text */T`, or a `// text` line where there is one.
    Doc(Docs, Box<Ts>),
}

/// What a doc comment says: the (already cut) description, then the constraint notes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Docs {
    /// The description, one line, cut and made safe for a comment.
    pub(super) description: Option<String>,
    /// Short notes: `int`, `default: 1`, `>=1`, `format: uri`…, each safe for a comment.
    pub(super) notes: Vec<String>,
}

/// A member of an object type.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Member {
    /// The member's comment.
    pub(super) docs: Docs,
    /// A property name, or `None` for an index signature `[k:string]`.
    pub(super) name: Option<String>,
    /// `?` after the name.
    pub(super) optional: bool,
    /// The member's type.
    pub(super) ty: Ts,
}

impl Docs {
    /// No description and no notes.
    pub(super) fn is_empty(&self) -> bool {
        self.description.is_none() && self.notes.is_empty()
    }

    /// Adds a note.
    pub(super) fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    /// The comment's text: the description, then the notes.
    pub(super) fn text(&self) -> String {
        let mut text = self.description.clone().unwrap_or_default();
        if !self.notes.is_empty() {
            if !text.is_empty() {
                let ends_a_sentence = text.ends_with(['.', '!', '?', '…', ':', ';']);
                text.push_str(if ends_a_sentence { " " } else { ". " });
            }
            text.push_str(&self.notes.join(", "));
        }
        text
    }
}

impl Ts {
    /// `any`.
    pub(super) fn any() -> Ts {
        Ts::Name("any".to_owned())
    }

    /// `never`.
    pub(super) fn never() -> Ts {
        Ts::Name("never".to_owned())
    }

    /// A keyword such as `string`.
    pub(super) fn keyword(name: &str) -> Ts {
        Ts::Name(name.to_owned())
    }

    /// Whether this is the plain keyword `name` (no comment).
    pub(super) fn is(&self, name: &str) -> bool {
        matches!(self, Ts::Name(own) if own == name)
    }

    /// `A | B | …`: nested unions flattened, repeats dropped; `never` when there is nothing.
    pub(super) fn union(members: Vec<Ts>) -> Ts {
        let mut flat = Vec::with_capacity(members.len());
        for member in members {
            match member {
                Ts::Union(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        // Keywords and literals (all of a long `enum`) are looked up by text.
        let mut texts = HashSet::new();
        let mut unique: Vec<Ts> = Vec::with_capacity(flat.len());
        for member in flat {
            let new = match &member {
                Ts::Name(text) | Ts::Literal(text) => texts.insert(text.clone()),
                other => !unique.contains(other),
            };
            if new {
                unique.push(member);
            }
        }
        match unique.len() {
            0 => Ts::never(),
            1 => unique.pop().unwrap_or_else(Ts::never),
            _ => Ts::Union(unique),
        }
    }

    /// `A & B & …`: nested intersections flattened, repeats and a plain `any` dropped (`any`
    /// when there is nothing), and a plain `object` dropped beside any non-primitive part.
    pub(super) fn intersection(parts: Vec<Ts>) -> Ts {
        let mut flat = Vec::with_capacity(parts.len());
        for part in parts {
            match part {
                Ts::Intersection(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        let mut unique: Vec<Ts> = Vec::with_capacity(flat.len());
        for part in flat {
            if !part.is("any") && !unique.contains(&part) {
                unique.push(part);
            }
        }
        let primitive = |part: &Ts| {
            ["string", "number", "boolean", "null"]
                .iter()
                .any(|name| part.is(name))
        };
        if unique.len() > 1 && !unique.iter().any(primitive) {
            unique.retain(|part| !part.is("object"));
        }
        match unique.len() {
            0 => Ts::any(),
            1 => unique.pop().unwrap_or_else(Ts::any),
            _ => Ts::Intersection(unique),
        }
    }

    /// This type with `docs` before it; docs already on it are merged in (its own description
    /// gives way to the outer one, its notes come first, the same note is not repeated).
    pub(super) fn with_docs(self, docs: Docs) -> Ts {
        if docs.is_empty() {
            return self;
        }
        match self {
            Ts::Doc(mut inner, ty) => {
                if docs.description.is_some() {
                    inner.description = docs.description;
                }
                let known: HashSet<String> = inner.notes.iter().cloned().collect();
                let new = docs.notes.into_iter().filter(|note| !known.contains(note));
                inner.notes.extend(new.collect::<Vec<_>>());
                Ts::Doc(inner, ty)
            }
            ty => Ts::Doc(docs, Box::new(ty)),
        }
    }

    /// Splits off the docs in front of this type.
    pub(super) fn take_docs(self) -> (Docs, Ts) {
        match self {
            Ts::Doc(docs, ty) => (docs, *ty),
            ty => (Docs::default(), ty),
        }
    }
}

/// Where a type is printed, for parentheses.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// Alone: the root, a member's type, a tuple element, inside parentheses.
    Free,
    /// A member of a union.
    Union,
    /// A part of an intersection.
    Intersection,
    /// Before `[]` or `?`.
    Postfix,
}

/// The type as TypeScript text. An object with a documented member is written one member a
/// line, each member's comment after it as `// text` (or on the line before, when the member's
/// type takes several lines); other types take one line.
pub(super) fn print(ty: &Ts) -> String {
    let mut printer = Printer {
        multiline: true,
        out: String::new(),
    };
    printer.write(ty, Place::Free);
    printer.out
}

/// A line of the output: `type name = T;` for an alias, or the root type `T` when `name` is
/// `None`; the top docs as a `// text` line before it.
pub(super) fn declaration(name: Option<&str>, ty: Ts) -> String {
    let (docs, ty) = ty.take_docs();
    let mut out = String::new();
    if !docs.is_empty() {
        line_comment(&docs, &mut out);
        out.push('\n');
    }
    match name {
        Some(name) => {
            out.push_str("type ");
            out.push_str(name);
            out.push_str(" = ");
            out.push_str(&print(&ty));
            out.push(';');
        }
        None => out.push_str(&print(&ty)),
    }
    out
}

/// The type on one line for inside a comment: docs as ` (text)` after what they describe.
pub(super) fn print_one_line(ty: &Ts) -> String {
    let mut printer = Printer {
        multiline: false,
        out: String::new(),
    };
    printer.write(ty, Place::Free);
    printer.out
}

/// `/** text */`, or nothing for empty docs.
fn block_comment(docs: &Docs, out: &mut String) {
    if !docs.is_empty() {
        out.push_str("/** ");
        out.push_str(&docs.text());
        out.push_str(" */");
    }
}

/// `// text`, or nothing for empty docs; the text kept on one line.
fn line_comment(docs: &Docs, out: &mut String) {
    if !docs.is_empty() {
        out.push_str("// ");
        let text = docs.text();
        out.extend(text.chars().map(|char| match char {
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => ' ',
            char => char,
        }));
    }
}

struct Printer {
    /// Whether documented objects take one line per member, else docs follow in parentheses.
    multiline: bool,
    out: String,
}

impl Printer {
    fn write(&mut self, ty: &Ts, place: Place) {
        let parenthesize = match ty {
            Ts::Union(_) => place != Place::Free && place != Place::Union,
            Ts::Intersection(_) => place == Place::Postfix,
            Ts::Doc(_, inner) => match place {
                Place::Free => false,
                Place::Postfix => true,
                Place::Union | Place::Intersection => {
                    matches!(**inner, Ts::Union(_) | Ts::Intersection(_))
                }
            },
            _ => false,
        };
        if parenthesize {
            self.out.push('(');
            self.write(ty, Place::Free);
            self.out.push(')');
            return;
        }
        match ty {
            Ts::Name(text) | Ts::Literal(text) => self.out.push_str(text),
            Ts::Array(item) => {
                self.write(item, Place::Postfix);
                self.out.push_str("[]");
            }
            Ts::Tuple(items, rest) => self.tuple(items, rest.as_deref()),
            Ts::Object(members) => self.object(members),
            Ts::Union(members) => self.join(members, "|", Place::Union),
            Ts::Intersection(parts) => self.join(parts, "&", Place::Intersection),
            Ts::Doc(docs, inner) if self.multiline => {
                block_comment(docs, &mut self.out);
                self.write(inner, place);
            }
            Ts::Doc(docs, inner) => {
                self.write(inner, place);
                self.note(docs);
            }
        }
    }

    fn tuple(&mut self, items: &[(Ts, bool)], rest: Option<&Ts>) {
        self.out.push('[');
        for (index, (item, optional)) in items.iter().enumerate() {
            if index > 0 {
                self.out.push_str(SEPARATOR);
            }
            if *optional {
                self.write(item, Place::Postfix);
                self.out.push('?');
            } else {
                self.write(item, Place::Free);
            }
        }
        if let Some(rest) = rest {
            if !items.is_empty() {
                self.out.push_str(SEPARATOR);
            }
            self.out.push_str("...");
            self.write(rest, Place::Postfix);
            self.out.push_str("[]");
        }
        self.out.push(']');
    }

    fn object(&mut self, members: &[Member]) {
        let texts: Vec<String> = members
            .iter()
            .map(|member| {
                let mut printer = Printer {
                    multiline: self.multiline,
                    out: String::new(),
                };
                printer.member(member);
                printer.out
            })
            .collect();
        let lines = self.multiline
            && (members.iter().any(|member| !member.docs.is_empty())
                || texts.iter().any(|text| text.contains('\n')));
        if !lines {
            self.out.push('{');
            for (index, (member, text)) in members.iter().zip(&texts).enumerate() {
                if index > 0 {
                    self.out.push_str(SEPARATOR);
                }
                // Undocumented, unless inside a note.
                self.out.push_str(text);
                self.note(&member.docs);
            }
            self.out.push('}');
            return;
        }
        self.out.push_str("{\n");
        for (member, text) in members.iter().zip(&texts) {
            if member.docs.is_empty() {
                self.out.push_str(text);
            } else if text.contains('\n') {
                line_comment(&member.docs, &mut self.out);
                self.out.push('\n');
                self.out.push_str(text);
            } else {
                self.out.push_str(text);
                self.out.push(' ');
                line_comment(&member.docs, &mut self.out);
            }
            self.out.push('\n');
        }
        self.out.push('}');
    }

    /// ` (text)`, or nothing for empty docs.
    fn note(&mut self, docs: &Docs) {
        if !docs.is_empty() {
            self.out.push_str(" (");
            self.out.push_str(&docs.text());
            self.out.push(')');
        }
    }

    /// `name?:type`, without the comment.
    fn member(&mut self, member: &Member) {
        match &member.name {
            Some(name) => property_name(name, &mut self.out),
            None => self.out.push_str("[k:string]"),
        }
        if member.optional {
            self.out.push('?');
        }
        self.out.push(':');
        self.write(&member.ty, Place::Free);
    }

    fn join(&mut self, types: &[Ts], between: &str, place: Place) {
        for (index, ty) in types.iter().enumerate() {
            if index > 0 {
                self.out.push_str(between);
            }
            self.write(ty, place);
        }
    }
}

/// A property name: bare when it is an identifier, else a JSON string.
fn property_name(name: &str, out: &mut String) {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_' || first == '$')
        && chars.all(|char| char.is_ascii_alphanumeric() || char == '_' || char == '$');
    if identifier {
        out.push_str(name);
    } else {
        out.push_str(&serde_json::Value::from(name).to_string());
    }
}

/// `value` as compact JSON, which TypeScript also reads as a literal type; `None` when it
/// nests deeper than [`MAX_LITERAL_DEPTH`].
pub(super) fn literal_text(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let mut stack = vec![(value, 0)];
    while let Some((value, depth)) = stack.pop() {
        if depth > MAX_LITERAL_DEPTH {
            return None;
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|item| (item, depth + 1))),
            _ => {}
        }
    }
    Some(value.to_string())
}
