//! The skills client (SEP-2640) against our own server, the repository's `example_server`
//! serving a folder of skills (`MCP_SKILLS_DIR`), as a child process over stdio (2025-11-25,
//! `initialize`) and over streamable HTTP (2026-07-28, `server/discover`): listing, getting,
//! directory reads, loading a skill and its files with the checks, and refusing content that
//! does not match the entry it was loaded against (digest, size, frontmatter, unlisted files).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use mcp_kit::mcp::Era;
use mcp_kit::mcp::ext::skills::{SkillEntry, SkillResources};
use mcp_kit::{Config, Error, Manager, ServerConfig, Session, StdioServer, TrustMode};
use mcp_test_support::free_port;
use serde_json::json;

fn example_server() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| mcp_test_support::build_examples("mcp-server", &[]).join("example_server"))
}

const PDF_SKILL: &str = "---\nname: pdf-processing\ndescription: Work with PDFs\nmetadata:\n  version: \"2.1\"\n---\n\nRead `references/FORMS.md` first.\n";

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
        "team/git-flow/SKILL.md",
        "---\nname: git-flow\ndescription: Branch and commit\n---\nUse feature branches.\n",
    );
    dir
}

fn manager(config: Config, version: Option<&str>) -> Manager {
    Manager::new(config, std::env::current_dir().unwrap())
        .with_client_info("kit-skills", "1.0.0")
        .with_timeout(Duration::from_secs(30))
        .with_trust_mode(TrustMode::Trusted)
        .with_protocol_version(version.map(str::to_owned))
}

fn stdio(skills: Option<&Path>) -> Config {
    let mut env = BTreeMap::new();
    if let Some(dir) = skills {
        env.insert("MCP_SKILLS_DIR".to_owned(), dir.display().to_string());
    }
    Config::default().with_server(
        "example",
        ServerConfig::Stdio(StdioServer {
            argv: vec![example_server().display().to_string()],
            env,
            inherit_env: false,
            stdout_log: None,
            env_file: None,
        }),
    )
}

fn reason(error: Error) -> String {
    match error {
        Error::SkillVerification { reason, .. } => reason,
        other => panic!("expected a verification failure, got {other}"),
    }
}

/// What both eras must do.
async fn exercise(session: &Session, era: Era) {
    assert_eq!(session.negotiated().era(), era);
    assert!(session.skills_settings().unwrap().directory_read());
    let skills = session.list_all_skills().await.unwrap();
    let uris: Vec<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://team/git-flow/SKILL.md"
        ]
    );
    let pdf = skills[0].clone();
    assert_eq!(session.get_skill(&pdf.uri).await.unwrap(), pdf);
    let missing = session
        .get_skill("skill://nope/SKILL.md")
        .await
        .unwrap_err();
    assert_eq!(
        missing.rpc_error().map(|e| e.code),
        Some(-32602),
        "{missing}"
    );

    // Loading reads the SKILL.md and checks it; the body follows the frontmatter.
    let loaded = session.load_skill(&pdf).await.unwrap();
    assert!(loaded.verified);
    assert_eq!(loaded.text, PDF_SKILL);
    assert_eq!(loaded.body(), "\nRead `references/FORMS.md` first.\n");
    assert_eq!(loaded.frontmatter["metadata"], json!({"version": "2.1"}));
    // Supporting files, by relative path or URI; binary ones come back byte for byte.
    let forms = session
        .read_skill_file(&pdf, "references/FORMS.md")
        .await
        .unwrap();
    assert_eq!(forms.bytes, b"Fill every field.\n");
    let logo = session
        .read_skill_file(&pdf, "skill://pdf-processing/assets/logo.bin")
        .await
        .unwrap();
    assert_eq!(logo.bytes, [0u8, 159, 146, 150]);
    assert!(logo.verified);

    // Directories.
    let root = session
        .read_directory("skill://pdf-processing", None)
        .await
        .unwrap();
    let children: Vec<(&str, Option<&str>)> = root
        .resources
        .iter()
        .map(|r| (r.uri.as_str(), r.mime_type.as_deref()))
        .collect();
    assert_eq!(
        children,
        [
            ("skill://pdf-processing/SKILL.md", Some("text/markdown")),
            ("skill://pdf-processing/assets", Some("inode/directory")),
            ("skill://pdf-processing/references", Some("inode/directory")),
        ]
    );

    // An entry that no longer matches what the server serves: nothing is returned.
    let mut stale = pdf.clone();
    let SkillResources::Files(files) = &mut stale.resources else {
        panic!("listed files")
    };
    files[0].digest = format!("sha256:{}", "0".repeat(64));
    let e = reason(session.load_skill(&stale).await.unwrap_err());
    assert!(e.contains("digest"), "{e}");
    let mut stale = pdf.clone();
    let SkillResources::Files(files) = &mut stale.resources else {
        panic!("listed files")
    };
    files[0].size += 1;
    let e = reason(session.load_skill(&stale).await.unwrap_err());
    assert!(e.contains("bytes"), "{e}");
    let mut stale = pdf.clone();
    stale
        .frontmatter
        .insert("description".into(), json!("Exfiltrate credentials"));
    let e = reason(session.load_skill(&stale).await.unwrap_err());
    assert!(e.contains("`description`"), "{e}");
    let mut stale = pdf.clone();
    let SkillResources::Files(files) = &mut stale.resources else {
        panic!("listed files")
    };
    files.retain(|f| !f.uri.ends_with("FORMS.md"));
    let e = reason(
        session
            .read_skill_file(&stale, "references/FORMS.md")
            .await
            .unwrap_err(),
    );
    assert!(e.contains("not listed"), "{e}");
    let e = reason(
        session
            .read_skill_file(&pdf, "../team/git-flow/SKILL.md")
            .await
            .unwrap_err(),
    );
    assert!(e.contains("not a path inside the skill"), "{e}");
    let e = reason(
        session
            .read_skill_file(&pdf, "skill://team/git-flow/SKILL.md")
            .await
            .unwrap_err(),
    );
    assert!(e.contains("not listed"), "{e}");
    // An invalid entry is never loaded.
    let mut invalid: SkillEntry = pdf.clone();
    invalid.resources = SkillResources::Unknown(json!("static"));
    let e = reason(session.load_skill(&invalid).await.unwrap_err());
    assert!(e.contains("resources"), "{e}");
}

#[tokio::test]
async fn skills_over_stdio_in_the_stateful_era() {
    let dir = skills_dir();
    let manager = manager(stdio(Some(dir.path())), Some("2025-11-25"));
    let session = manager.open("example").await.unwrap();
    exercise(&session, Era::Stateful).await;
    session.close().await;
}

#[tokio::test]
async fn skills_over_http_in_the_stateless_era() {
    let dir = skills_dir();
    let port = free_port();
    let mut command = tokio::process::Command::new(example_server());
    command
        .args(["--http", &port.to_string()])
        .env("MCP_SKILLS_DIR", dir.path())
        .kill_on_drop(true);
    let server = mcp_test_support::start_http_server(
        command,
        port,
        "example_server",
        "listening on http://",
    )
    .await;
    let config =
        Config::default().with_server("example", ServerConfig::streamable_http(&server.url));
    let manager = manager(config, None);
    let session = manager.open("example").await.unwrap();
    exercise(&session, Era::Stateless).await;
    session.close().await;
}

#[tokio::test]
async fn a_server_without_skills_is_not_asked() {
    let manager = manager(stdio(None), None);
    let session = manager.open("example").await.unwrap();
    assert!(session.skills_settings().is_none());
    for error in [
        session.list_skills(None).await.unwrap_err(),
        session.get_skill("skill://a/SKILL.md").await.unwrap_err(),
        session.read_directory("skill://a", None).await.unwrap_err(),
    ] {
        assert!(matches!(error, Error::ExtensionNotServed { .. }), "{error}");
        assert!(
            error.to_string().contains("io.modelcontextprotocol/skills"),
            "{error}"
        );
    }
    session.close().await;
}
