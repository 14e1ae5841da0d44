//! The modules of each crate form layers: no module imports a module that imports it back,
//! directly or through others (DESIGN.md, "Arrows only point down"). Each crate's `lib.rs`
//! describes its layers; this test keeps the code to it.
//!
//! An import is a `crate::name` path (or `crate::{a, b}`) in a module's files outside their
//! unit tests, where `name` is a top-level module or an item `lib.rs` re-exports from one.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The crates held to the rule.
const CRATES: &[&str] = &[
    "mcp-jsonrpc",
    "mcp-server",
    "mcp-kit",
    "mcpx",
    "mcp-sandbox",
];

type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Top-level modules of a crate's `src`.
fn modules(src: &Path) -> BTreeSet<String> {
    fs::read_dir(src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let name = entry.file_name().into_string().ok()?;
            if entry.file_type().ok()?.is_dir() {
                (name != "bin").then_some(name)
            } else {
                let stem = name.strip_suffix(".rs")?;
                (stem != "lib" && stem != "main").then(|| stem.to_owned())
            }
        })
        .collect()
}

/// Items `lib.rs` re-exports, by the module they come from (`pub use session::Session;`).
fn re_exports(lib: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for statement in lib.split(';') {
        let Some(rest) = statement.trim().split("use ").nth(1) else {
            continue;
        };
        let Some((module, items)) = rest.split_once("::") else {
            continue;
        };
        let module = module.trim();
        if !modules.contains(module) {
            continue;
        }
        for word in words(items) {
            found.insert(word, module.to_owned());
        }
    }
    found
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && w != &"as" && w != &"self")
        .map(str::to_owned)
        .collect()
}

/// A file's code without its unit tests and comments.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => &text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.is_file() {
        out.push(dir.to_owned());
        return;
    }
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Module → module it imports → the files that do.
fn graph(src: &Path) -> Graph {
    let modules = modules(src);
    let lib = code(&src.join("lib.rs"));
    let re_exported = re_exports(&lib, &modules);
    let mut graph = Graph::new();
    for module in &modules {
        let mut files = Vec::new();
        let dir = src.join(module);
        rust_files(&dir, &mut files);
        rust_files(&src.join(format!("{module}.rs")), &mut files);
        for file in files {
            let text = code(&file);
            let mut rest = text.as_str();
            while let Some(i) = rest.find("crate::") {
                let preceded_by_dollar = i > 0 && rest.as_bytes()[i - 1] == b'$';
                rest = &rest[i + "crate::".len()..];
                if preceded_by_dollar {
                    continue;
                }
                let names = if let Some(group) = rest.strip_prefix('{') {
                    words(&group[..group.find('}').unwrap_or(group.len())])
                } else {
                    words(rest).into_iter().take(1).collect()
                };
                for name in names {
                    let target = if modules.contains(&name) {
                        Some(name)
                    } else {
                        re_exported.get(&name).cloned()
                    };
                    if let Some(target) = target.filter(|t| t != module) {
                        let shown = file
                            .strip_prefix(src)
                            .unwrap_or(&file)
                            .display()
                            .to_string();
                        graph
                            .entry(module.clone())
                            .or_default()
                            .entry(target)
                            .or_default()
                            .insert(shown);
                    }
                }
            }
        }
    }
    graph
}

/// Every import that closes a cycle: `a → b` where `b` reaches `a`.
fn back_edges(graph: &Graph) -> Vec<String> {
    fn reaches(graph: &Graph, from: &str, to: &str, seen: &mut BTreeSet<String>) -> bool {
        if from == to {
            return true;
        }
        if !seen.insert(from.to_owned()) {
            return false;
        }
        graph
            .get(from)
            .is_some_and(|next| next.keys().any(|n| reaches(graph, n, to, seen)))
    }
    let mut found = Vec::new();
    for (from, targets) in graph {
        for (to, files) in targets {
            if reaches(graph, to, from, &mut BTreeSet::new()) {
                found.push(format!("{from} → {to} (in {files:?})"));
            }
        }
    }
    found
}

#[test]
fn no_crate_has_module_cycles() {
    let mut problems = Vec::new();
    for name in CRATES {
        let src = workspace().join("crates").join(name).join("src");
        for edge in back_edges(&graph(&src)) {
            problems.push(format!("{name}: {edge}"));
        }
    }
    assert!(
        problems.is_empty(),
        "imports that close a cycle between modules (move the shared piece down a layer):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checker_finds_a_cycle() {
    let mut graph = Graph::new();
    let files = BTreeSet::from(["x.rs".to_owned()]);
    graph
        .entry("a".into())
        .or_default()
        .insert("b".into(), files.clone());
    graph
        .entry("b".into())
        .or_default()
        .insert("c".into(), files.clone());
    assert!(back_edges(&graph).is_empty());
    graph
        .entry("c".into())
        .or_default()
        .insert("a".into(), files);
    assert_eq!(back_edges(&graph).len(), 3);
}
