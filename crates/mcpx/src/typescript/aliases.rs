//! Which referenced schemas get a name (`type X = …;` before the root type), and what name.
//!
//! A schema is named when it is recursive (it reaches itself through `$ref`s: inlining it would
//! never end), or when several `$ref`s point at it and naming it is shorter than writing it out
//! at each of them. Only schemas without `$ref`s of their own are written out for several
//! `$ref`s, so the output stays close to the schema's size, never exponential in it.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::print::declaration;
use super::render::Renderer;

/// Names TypeScript already gives a meaning that an alias would hide.
const GLOBAL_TYPES: [&str; 12] = [
    "Array", "Boolean", "Date", "Function", "Map", "Number", "Object", "Partial", "Promise",
    "Record", "Set", "String",
];

/// A schema's identity in the document: its address, stable while the document is borrowed.
pub(super) fn key(value: &Value) -> usize {
    std::ptr::from_ref(value) as usize
}

/// The `$ref` graph: the root (node 0) and every schema a `$ref` reaches.
pub(super) struct Graph<'a> {
    nodes: Vec<Node<'a>>,
    index: HashMap<usize, usize>,
    /// The node whose body is being walked.
    current: usize,
}

struct Node<'a> {
    value: &'a Value,
    /// The name to derive an alias from.
    hint: String,
    /// How many `$ref`s point here.
    references: usize,
    /// The nodes this one's `$ref`s point to.
    edges: Vec<usize>,
}

impl<'a> Graph<'a> {
    /// A graph of the root alone.
    pub(super) fn new(root: &'a Value) -> Self {
        let node = Node {
            value: root,
            hint: "Root".to_owned(),
            references: 0,
            edges: Vec::new(),
        };
        Self {
            nodes: vec![node],
            index: HashMap::from([(key(root), 0)]),
            current: 0,
        }
    }

    /// Starts walking node `index`'s body; `None` when there is no such node yet.
    pub(super) fn start(&mut self, index: usize) -> Option<&'a Value> {
        let value = self.nodes.get(index)?.value;
        self.current = index;
        Some(value)
    }

    /// Records a `$ref` from the current node to `target`.
    pub(super) fn edge(&mut self, target: &'a Value, hint: String) {
        let next = self.nodes.len();
        let index = *self.index.entry(key(target)).or_insert(next);
        if index == next {
            self.nodes.push(Node {
                value: target,
                hint,
                references: 0,
                edges: Vec::new(),
            });
        }
        self.nodes[index].references += 1;
        let current = self.current;
        self.nodes[current].edges.push(index);
    }

    /// For each node, whether it is the target of a back edge of a depth-first walk from the
    /// root: naming those breaks every cycle.
    fn cycle_breakers(&self) -> Vec<bool> {
        #[derive(Clone, Copy, PartialEq)]
        enum Color {
            New,
            Open,
            Done,
        }
        let mut color = vec![Color::New; self.nodes.len()];
        let mut breakers = vec![false; self.nodes.len()];
        let mut stack = vec![(0, 0)];
        color[0] = Color::Open;
        while let Some((node, edge)) = stack.last_mut() {
            let node = *node;
            match self.nodes[node].edges.get(*edge) {
                Some(&next) => {
                    *edge += 1;
                    match color[next] {
                        Color::New => {
                            color[next] = Color::Open;
                            stack.push((next, 0));
                        }
                        Color::Open => breakers[next] = true,
                        Color::Done => {}
                    }
                }
                None => {
                    color[node] = Color::Done;
                    stack.pop();
                }
            }
        }
        breakers
    }
}

/// The named schemas: their names, and the order the output first uses them in.
#[derive(Clone, Default)]
pub(super) struct Aliases<'a> {
    names: HashMap<usize, (String, &'a Value)>,
    taken: HashSet<String>,
    used: Vec<usize>,
    used_set: HashSet<usize>,
}

impl<'a> Aliases<'a> {
    /// Names `value` after `hint` (made an identifier, capitalized, unique), unless named.
    pub(super) fn assign(&mut self, value: &'a Value, hint: &str) {
        if self.names.contains_key(&key(value)) {
            return;
        }
        let base = identifier(hint);
        let mut name = base.clone();
        let mut suffix = 2;
        while self.taken.contains(&name) {
            name = format!("{base}{suffix}");
            suffix += 1;
        }
        self.taken.insert(name.clone());
        self.names.insert(key(value), (name, value));
    }

    /// Forgets the name of the schema at `key`.
    fn remove(&mut self, key: usize) {
        if let Some((name, _)) = self.names.remove(&key) {
            self.taken.remove(&name);
        }
    }

    /// The name of the schema at `key`, if it has one, noting that the output uses it.
    pub(super) fn use_name(&mut self, key: usize) -> Option<String> {
        let (name, _) = self.names.get(&key)?;
        if self.used_set.insert(key) {
            self.used.push(key);
        }
        Some(name.clone())
    }

    /// The `index`th alias used, by first use: its name and schema.
    pub(super) fn used(&self, index: usize) -> Option<(String, &'a Value)> {
        let (name, value) = self.names.get(self.used.get(index)?)?;
        Some((name.clone(), value))
    }
}

/// Decides which schemas of `root` get names (see the module doc).
pub(super) fn plan(root: &Value, max_description_len: usize) -> Aliases<'_> {
    let graph = Renderer::collect(root);
    let breakers = graph.cycle_breakers();
    let mut aliases = Aliases::default();
    for (node, breaker) in graph.nodes.iter().zip(&breakers) {
        if *breaker || node.references >= 2 {
            aliases.assign(node.value, &node.hint);
        }
    }
    // A shared schema without `$ref`s stays inline when that is shorter, measured in
    // characters: once per `$ref` inline, against one `type X = …;` line plus the name each time.
    // (Measured with no names at all, which a body without `$ref`s hardly ever contains.)
    for (node, breaker) in graph.nodes.iter().zip(&breakers) {
        if *breaker || node.references < 2 || !node.edges.is_empty() {
            continue;
        }
        let Some((name, _)) = aliases.names.get(&key(node.value)) else {
            continue;
        };
        let name_len = name.chars().count();
        let mut trial = Renderer::new(root, max_description_len, Aliases::default());
        let body = declaration(None, trial.enter(node.value, 0));
        let body_len = body.chars().count();
        let inline = node.references * body_len;
        let named = "type  = ;\n".len() + name_len + body_len + node.references * name_len;
        if named >= inline {
            aliases.remove(key(node.value));
        }
    }
    aliases
}

/// `hint` as a type name: characters other than ASCII letters, digits, `_` and `$` made `_`,
/// the first letter capitalized (so no keyword can clash), `T` before a leading digit, `_`
/// after a global type's name.
fn identifier(hint: &str) -> String {
    let mut name: String = hint
        .chars()
        .map(|char| {
            if char.is_ascii_alphanumeric() || char == '_' || char == '$' {
                char
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() || name.starts_with(|char: char| char.is_ascii_digit()) {
        name.insert(0, 'T');
    }
    if let Some(first) = name.get(..1) {
        let upper = first.to_ascii_uppercase();
        name.replace_range(..1, &upper);
    }
    if GLOBAL_TYPES.contains(&name.as_str()) {
        name.push('_');
    }
    name
}
