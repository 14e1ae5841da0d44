//! `mcpctl skills` (SEP-2640), the real binary against the repository's `example_server`
//! serving a folder of skills (`-e MCP_SKILLS_DIR=…`, a server command after `--`): the
//! listing, one entry, verified reads of a SKILL.md and of a supporting file (by name, by URI,
//! binary), directory listings, in JSON and as tables; and the errors (no such skill, a server
//! without skills, a missing argument, a file the entry does not list).
#![cfg(feature = "cli")]

use std::path::Path;

use mcp_test_support as support;
use serde_json::Value;

mod cli_support;
use cli_support::mcpctl;

const PDF_SKILL: &str =
    "---\nname: pdf-processing\ndescription: Work with PDFs\n---\n\nRead `references/FORMS.md`.\n";

fn write(root: &Path, relative: &str, bytes: impl AsRef<[u8]>) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn skills_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pdf-processing/SKILL.md", PDF_SKILL);
    write(
        dir.path(),
        "pdf-processing/references/FORMS.md",
        "Fill every field.\n",
    );
    write(
        dir.path(),
        "pdf-processing/assets/logo.bin",
        [0u8, 159, 146, 150],
    );
    write(
        dir.path(),
        "acme/refunds/SKILL.md",
        "---\nname: refunds\ndescription: Handle refunds\n---\nRefund.\n",
    );
    dir
}

/// Runs `mcpctl GLOBAL… ARGS… -- example_server` with the skills of `skills` (if any).
async fn run(dir: &Path, skills: Option<&Path>, args: &[&str]) -> cli_support::Run {
    let example = support::build_examples("mcp-server", &[]).join("example_server");
    let env = skills.map(|s| format!("MCP_SKILLS_DIR={}", s.display()));
    let mut argv: Vec<&str> = Vec::new();
    if let Some(env) = &env {
        argv.extend(["-e", env.as_str()]);
    }
    argv.extend(args);
    let example = example.display().to_string();
    argv.extend(["--", example.as_str()]);
    mcpctl(dir, &argv).await
}

#[tokio::test]
async fn skills_lists_shows_reads_and_browses() {
    let dir = tempfile::tempdir().unwrap();
    let skills = skills_dir();
    let s = Some(skills.path());
    let d = dir.path();

    let listing = run(d, s, &["--json", "skills"]).await.json();
    let uris: Vec<&str> = listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "skill://acme/refunds/SKILL.md",
            "skill://pdf-processing/SKILL.md"
        ]
    );
    let table = run(d, s, &["--output", "table", "skills"])
        .await
        .expect(0)
        .stdout;
    for expected in [
        "NAME",
        "DESCRIPTION",
        "URI",
        "FILES",
        "BYTES",
        "pdf-processing",
        "Work with PDFs",
    ] {
        assert!(
            table.contains(expected),
            "{expected} missing from:\n{table}"
        );
    }
    let pdf_line = table
        .lines()
        .find(|l| l.starts_with("pdf-processing"))
        .unwrap();
    let bytes = PDF_SKILL.len() + "Fill every field.\n".len() + 4;
    assert!(
        pdf_line.contains(" 3 ") && pdf_line.ends_with(&bytes.to_string()),
        "{pdf_line}"
    );

    let entry = run(
        d,
        s,
        &["--json", "skills", "get", "skill://pdf-processing/SKILL.md"],
    )
    .await
    .json();
    assert_eq!(entry["skill"]["frontmatter"]["name"], "pdf-processing");
    assert_eq!(entry["skill"]["resources"].as_array().unwrap().len(), 3);
    let shown = run(
        d,
        s,
        &[
            "--output",
            "table",
            "skills",
            "get",
            "skill://pdf-processing/SKILL.md",
        ],
    )
    .await
    .expect(0)
    .stdout;
    assert!(
        shown.contains("DIGEST") && shown.contains("sha256:"),
        "{shown}"
    );

    // Reads are verified; the SKILL.md by the skill's name, a file by path or URI.
    let read = run(d, s, &["--json", "skills", "read", "pdf-processing"])
        .await
        .json();
    assert_eq!(read["text"], PDF_SKILL);
    assert_eq!(read["verified"], true);
    let printed = run(
        d,
        s,
        &["--output", "table", "skills", "read", "pdf-processing"],
    )
    .await
    .expect(0)
    .stdout;
    assert_eq!(printed, PDF_SKILL);
    let forms = run(
        d,
        s,
        &[
            "--json",
            "skills",
            "read",
            "pdf-processing",
            "references/FORMS.md",
        ],
    )
    .await
    .json();
    assert_eq!(forms["text"], "Fill every field.\n");
    let logo = run(
        d,
        s,
        &[
            "--json",
            "skills",
            "read",
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/assets/logo.bin",
        ],
    )
    .await
    .json();
    assert_eq!(logo["blob"], "AJ+Slg==", "{logo}");
    let logo = run(
        d,
        s,
        &[
            "--output",
            "table",
            "skills",
            "read",
            "pdf-processing",
            "assets/logo.bin",
        ],
    )
    .await
    .expect(0)
    .stdout;
    assert!(logo.contains("4 bytes"), "{logo}");

    let ls = run(d, s, &["--json", "skills", "ls", "skill://pdf-processing"])
        .await
        .json();
    let children: Vec<(&str, &str)> = ls["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["uri"].as_str().unwrap(), r["mimeType"].as_str().unwrap()))
        .collect();
    assert_eq!(
        children,
        [
            ("skill://pdf-processing/SKILL.md", "text/markdown"),
            ("skill://pdf-processing/assets", "inode/directory"),
            ("skill://pdf-processing/references", "inode/directory"),
        ]
    );
    let ls = run(d, s, &["--output", "table", "skills", "ls", "skill://acme"])
        .await
        .expect(0)
        .stdout;
    assert!(
        ls.contains("skill://acme/refunds") && ls.contains("inode/directory"),
        "{ls}"
    );
}

#[tokio::test]
async fn skills_errors_say_what_went_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let skills = skills_dir();
    let s = Some(skills.path());
    let d = dir.path();

    let unknown = run(d, s, &["skills", "read", "nope"]).await.expect(1);
    assert!(
        unknown.stderr.contains("no skill named `nope`"),
        "{unknown:?}"
    );
    let outside = run(
        d,
        s,
        &[
            "skills",
            "read",
            "pdf-processing",
            "../acme/refunds/SKILL.md",
        ],
    )
    .await
    .expect(1);
    assert!(
        outside.stderr.contains("failed verification"),
        "{outside:?}"
    );
    let unlisted = run(
        d,
        s,
        &["skills", "read", "pdf-processing", "references/missing.md"],
    )
    .await
    .expect(1);
    assert!(unlisted.stderr.contains("not listed"), "{unlisted:?}");
    let not_dir = run(d, s, &["skills", "ls", "skill://pdf-processing/SKILL.md"])
        .await
        .expect(1);
    assert!(
        not_dir.stderr.contains("is a file, not a directory"),
        "{not_dir:?}"
    );
    let none = run(d, None, &["skills"]).await.expect(1);
    assert!(
        none.stderr
            .contains("does not declare the io.modelcontextprotocol/skills extension"),
        "{none:?}"
    );
    let usage = run(d, s, &["skills", "get"]).await.expect(2);
    assert!(usage.stderr.contains("missing URI"), "{usage:?}");

    let help = mcpctl(d, &["skills", "-h"]).await.expect(0).stdout;
    for expected in ["get", "read", "ls", "SHA-256"] {
        assert!(help.contains(expected), "{expected} missing from:\n{help}");
    }
    let value: Value = run(d, s, &["--json", "skills", "read", "refunds"])
        .await
        .json();
    assert_eq!(value["frontmatter"]["description"], "Handle refunds");
}
