//! The TOON specification's fixtures: every encode fixture through `mcpx::text::to_toon_with`,
//! every decode fixture through `toon_format::decode` (the decoder of the crate mcpx encodes
//! with; mcpx itself only encodes).
//!
//! The fixtures come from the TOON spec repository: `$TOON_SPEC_DIR` (the folder holding
//! `tests/fixtures`), else `../shared/spec/toon` beside the repository, else
//! `~/.cache/mcp-toolkit/spec/toon`. A fixture that fails must be listed in `UNSUPPORTED` with
//! the reason; a listed fixture that passes, or that no longer exists, fails the test too, so
//! the list stays exactly the set of cases mcpx does not claim.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use mcpx::text::{ToonDelimiter, ToonOptions, to_toon_with};

/// Encode fixtures mcpx does not pass, as (file, test name, reason). None: toon-format 0.7
/// implements both encoder options the fixtures use (`delimiter`, `indentSize`) and matches
/// every expected output.
const UNSUPPORTED: &[(&str, &str, &str)] = &[];

/// Decode fixtures toon-format does not pass, as (file, test name, reason). All four are the
/// optional non-strict leniency of §6 (a malformed array header read as a literal key), which
/// the fixtures README says a decoder that rejects the input instead MAY skip; toon-format
/// rejects it, in strict and non-strict mode alike.
const UNSUPPORTED_DECODE: &[(&str, &str, &str)] = &[
    (
        "objects.json",
        "treats extra brackets after valid array segment as literal key (non-strict)",
        NON_STRICT_KEY_FALLBACK,
    ),
    (
        "objects.json",
        "treats bracket segment without a length as literal key (non-strict)",
        NON_STRICT_KEY_FALLBACK,
    ),
    (
        "objects.json",
        "treats non-integer bracket content as literal key (non-strict)",
        NON_STRICT_KEY_FALLBACK,
    ),
    (
        "objects.json",
        "treats text between bracket segment and colon as literal key (non-strict)",
        NON_STRICT_KEY_FALLBACK,
    ),
];

/// Why the non-strict literal-key cases are skipped.
const NON_STRICT_KEY_FALLBACK: &str = "optional non-strict leniency (§6 key fall-through for a \
     malformed header); toon-format 0.7 rejects the line instead, which the fixtures allow";

/// One fixture file (`fixtures.schema.json`); unknown fields fail loudly so that a spec update
/// adding one is noticed rather than ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureFile {
    #[allow(dead_code)]
    version: String,
    category: String,
    #[allow(dead_code)]
    description: String,
    tests: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Case {
    name: String,
    input: Value,
    expected: Value,
    #[serde(default)]
    should_error: bool,
    #[serde(default)]
    options: CaseOptions,
    spec_section: Option<String>,
    note: Option<String>,
    min_spec_version: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CaseOptions {
    delimiter: Option<String>,
    indent_size: Option<usize>,
    strict: Option<bool>,
}

impl Case {
    fn label(&self, file: &str) -> String {
        let mut label = format!("{file}: {}", self.name);
        if let Some(section) = &self.spec_section {
            label.push_str(&format!(" (§{})", section.trim_start_matches('§')));
        }
        if let Some(version) = &self.min_spec_version {
            label.push_str(&format!(" [spec ≥ {version}]"));
        }
        if let Some(note) = &self.note {
            label.push_str(&format!(" — {note}"));
        }
        label
    }
}

/// Every fixture file of `category` (`encode` or `decode`), by file name.
fn fixture_files(category: &str) -> Vec<(String, FixtureFile)> {
    let dir = mcp_test_support::toon_spec_dir()
        .join("tests/fixtures")
        .join(category);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("reading {}: {error}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    assert!(
        !paths.is_empty(),
        "no fixtures in {}: run scripts/fetch-spec.sh",
        dir.display()
    );
    paths
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .expect("file name")
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
            let file: FixtureFile = serde_json::from_str(&text).unwrap_or_else(|error| {
                panic!("{} is not a fixture file: {error}", path.display())
            });
            assert_eq!(file.category, category, "{name}");
            (name, file)
        })
        .collect()
}

/// Runs every case of `category` with `run` (which returns a failure message), checks the
/// outcome against `unsupported`, and returns (passed, skipped as unsupported).
fn run_fixtures(
    category: &str,
    unsupported: &[(&str, &str, &str)],
    run: impl Fn(&Case) -> Result<(), String>,
) -> (usize, usize) {
    let mut passed = 0;
    let mut skipped = 0;
    let mut problems = Vec::new();
    let mut listed_seen = vec![false; unsupported.len()];
    for (file, fixtures) in fixture_files(category) {
        for case in &fixtures.tests {
            let listed = unsupported
                .iter()
                .position(|&(listed_file, listed_name, _)| {
                    listed_file == file && listed_name == case.name
                });
            let outcome = run(case);
            match (listed, outcome) {
                (None, Ok(())) => passed += 1,
                (None, Err(message)) => {
                    problems.push(format!("FAILED {}\n{message}", case.label(&file)))
                }
                (Some(i), Err(_)) => {
                    listed_seen[i] = true;
                    skipped += 1;
                }
                (Some(i), Ok(())) => {
                    listed_seen[i] = true;
                    problems.push(format!(
                        "PASSES but is listed as unsupported ({}): {}",
                        unsupported[i].2,
                        case.label(&file)
                    ));
                }
            }
        }
    }
    for (&(file, name, _), seen) in unsupported.iter().zip(listed_seen) {
        if !seen {
            problems.push(format!(
                "listed as unsupported but not in the fixtures: {file}: {name}"
            ));
        }
    }
    println!("TOON {category} fixtures: {passed} passed, {skipped} listed as unsupported");
    assert!(
        problems.is_empty(),
        "{} problem(s):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
    (passed, skipped)
}

#[test]
fn encode_fixtures() {
    let (passed, _) = run_fixtures("encode", UNSUPPORTED, |case| {
        if case.options.strict.is_some() {
            return Err("`strict` is a decoder option".to_owned());
        }
        let delimiter = match case.options.delimiter.as_deref() {
            None | Some(",") => ToonDelimiter::Comma,
            Some("\t") => ToonDelimiter::Tab,
            Some("|") => ToonDelimiter::Pipe,
            Some(other) => return Err(format!("unknown delimiter {other:?}")),
        };
        let options = ToonOptions {
            delimiter,
            indent: case.options.indent_size.unwrap_or(2),
        };
        if case.should_error {
            return Err("expects an error, but to_toon never fails".to_owned());
        }
        let Value::String(expected) = &case.expected else {
            return Err(format!(
                "expected output is not a string: {}",
                case.expected
            ));
        };
        let actual = to_toon_with(&case.input, &options);
        if &actual == expected {
            Ok(())
        } else {
            Err(format!(
                "input:    {}\nexpected:\n{expected}\nactual:\n{actual}",
                case.input
            ))
        }
    });
    assert!(passed > 0);
}

#[test]
fn decode_fixtures() {
    let (passed, _) = run_fixtures("decode", UNSUPPORTED_DECODE, |case| {
        if case.options.delimiter.is_some() {
            return Err("`delimiter` is an encoder option".to_owned());
        }
        let Value::String(input) = &case.input else {
            return Err(format!("input is not TOON text: {}", case.input));
        };
        let options = toon_format::DecodeOptions::new()
            .with_strict(case.options.strict.unwrap_or(true))
            .with_indent(toon_format::Indent::Spaces(
                case.options.indent_size.unwrap_or(2),
            ));
        match (
            toon_format::decode::<Value>(input, &options),
            case.should_error,
        ) {
            (Ok(actual), false) if actual == case.expected => Ok(()),
            (Ok(actual), false) => Err(format!(
                "input:\n{input}\nexpected: {}\nactual:   {actual}",
                case.expected
            )),
            (Err(error), false) => Err(format!("input:\n{input}\nerror: {error}")),
            (Ok(actual), true) => Err(format!("input:\n{input}\nexpected an error, got {actual}")),
            (Err(_), true) => Ok(()),
        }
    });
    assert!(passed > 0);
}
