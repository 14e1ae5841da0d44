//! The skills extension (SEP-2640) on the server: the rules for loading skills from folders and
//! from memory (names, limits, symbolic links, dotfiles, nesting, binary files), and serving
//! them over streamable HTTP on a real socket in both eras: the capability in `initialize` and
//! `server/discover`, `skills/list` (paged, with cache hints in 2026-07-28), `skills/get`,
//! `resources/directory/read`, the `SKILL.md` listing in `resources/list`, exact bytes from
//! `resources/read`, and skills added and removed at run time (announced as resource list
//! changes).

mod http_support;

use std::path::Path;

use base64::Engine;
use http_support::{LEGACY, Sse, client, in_session, initialize, outcome, post, start, stateless};
use mcp_server::schema::ext::skills::verify::{check_file, parse_frontmatter, validate_entry};
use mcp_server::schema::ext::skills::{SKILLS, SkillEntry};
use mcp_server::{HttpOptions, Server, ServerConfig, ServerOptions, SkillDef, SkillError};
use serde_json::{Value, json};

fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nDo the thing.\n")
}

fn write(root: &Path, relative: &str, bytes: impl AsRef<[u8]>) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// `acme/billing/refunds` (with `examples/`), `pdf-processing` (with `templates/regional/`
/// and a binary file) and `pdf-processing/forms` nested in it.
fn skills_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "acme/billing/refunds/SKILL.md",
        skill_md("refunds", "Handle refunds"),
    );
    write(
        root,
        "acme/billing/refunds/examples/email.md",
        "Dear customer,\n",
    );
    write(
        root,
        "pdf-processing/SKILL.md",
        skill_md("pdf-processing", "Work with PDFs"),
    );
    write(root, "pdf-processing/templates/invoice.md", "# Invoice\n");
    write(
        root,
        "pdf-processing/templates/regional/eu.md",
        "# EU invoice\n",
    );
    write(
        root,
        "pdf-processing/logo.png",
        [0x89, b'P', b'N', b'G', 0xff, 0x00],
    );
    write(
        root,
        "pdf-processing/forms/SKILL.md",
        skill_md("forms", "Fill forms"),
    );
    write(root, "pdf-processing/forms/FIELDS.md", "name, date\n");
    dir
}

fn invalid(result: Result<impl std::fmt::Debug, SkillError>) -> String {
    match result {
        Err(e @ SkillError::Invalid { .. }) => e.to_string(),
        other => panic!("expected SkillError::Invalid, got {other:?}"),
    }
}

fn uris(entry: &SkillEntry) -> Vec<String> {
    let files = entry.resources.files().expect("listed files");
    files.iter().map(|f| f.uri.clone()).collect()
}

#[test]
fn loading_checks_names_frontmatter_paths_and_limits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "mismatch/SKILL.md", skill_md("other", "d"));
    let e = invalid(SkillDef::from_dir("mismatch", root.join("mismatch")));
    assert!(e.contains("last segment") && e.contains("other"), "{e}");
    let e = invalid(SkillDef::from_files(
        "Bad_Name",
        [("SKILL.md", skill_md("Bad_Name", "d"))],
    ));
    assert!(e.contains("not a valid skill name"), "{e}");
    let e = invalid(SkillDef::from_files(
        "x",
        [("SKILL.md", "# no frontmatter\n")],
    ));
    assert!(e.contains("`---`"), "{e}");
    let e = invalid(SkillDef::from_files(
        "x",
        [("SKILL.md", "---\nname: x\n---\n")],
    ));
    assert!(e.contains("description"), "{e}");
    let e = invalid(SkillDef::from_files("x", [("README.md", "hi")]));
    assert!(e.contains("no SKILL.md"), "{e}");
    let e = invalid(SkillDef::from_files("x", [("SKILL.md", &[0xff, 0xfe][..])]));
    assert!(e.contains("UTF-8"), "{e}");
    let md = skill_md("x", "d");
    let e = invalid(SkillDef::from_files(
        "x",
        [("SKILL.md", md.as_str()), ("a b.md", "")],
    ));
    assert!(e.contains("rename `a b.md`"), "{e}");
    let e = invalid(SkillDef::from_files(
        "x",
        [("SKILL.md", md.as_str()), ("../y", "")],
    ));
    assert!(e.contains("rename `..`"), "{e}");
    let e = invalid(SkillDef::from_files(
        "pre fix/x",
        [("SKILL.md", md.as_str())],
    ));
    assert!(e.contains("rename `pre fix`"), "{e}");

    // 512 files are fine, 513 are not.
    let mut files: Vec<(String, Vec<u8>)> = vec![("SKILL.md".into(), md.clone().into())];
    files.extend((1..512).map(|i| (format!("f/{i}.txt"), b"x".to_vec())));
    let def = SkillDef::from_files("x", files.clone()).unwrap();
    assert_eq!(def.file_count(), 512);
    files.push(("f/512.txt".into(), b"x".to_vec()));
    let e = invalid(SkillDef::from_files("x", files));
    assert!(e.contains("512"), "{e}");

    // 16 MiB in total are fine, one byte more is not; a huge file is refused by its size on
    // disk, before it is read (a sparse file: no disk is used).
    let md_len = md.len();
    let fill = vec![b'a'; 16 * 1024 * 1024 - md_len];
    let def = SkillDef::from_files("x", [("SKILL.md", md.as_bytes()), ("big", &fill)]).unwrap();
    assert_eq!(def.total_size(), 16 * 1024 * 1024);
    let mut more = fill.clone();
    more.push(b'a');
    let e = invalid(SkillDef::from_files(
        "x",
        [("SKILL.md", md.as_bytes()), ("big", &more)],
    ));
    assert!(e.contains("16 MiB"), "{e}");
    write(root, "huge/SKILL.md", skill_md("huge", "d"));
    let file = std::fs::File::create(root.join("huge/data.bin")).unwrap();
    file.set_len(64 * 1024 * 1024 * 1024).unwrap();
    let e = invalid(SkillDef::from_dir("huge", root.join("huge")));
    assert!(e.contains("16 MiB"), "{e}");

    // A folder that cannot be read names itself.
    let missing = root.join("missing");
    match SkillDef::from_dir("missing", &missing) {
        Err(SkillError::Io { path, .. }) => assert_eq!(path, missing),
        other => panic!("expected SkillError::Io, got {other:?}"),
    }
}

#[test]
fn loading_a_tree_skips_links_and_dotfiles_and_keeps_nested_skills_in_their_parent() {
    let tree = skills_tree();
    let root = tree.path();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", "not for clients");
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        root.join("pdf-processing/secret.txt"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("pdf-processing/linked")).unwrap();
    write(root, "pdf-processing/.git/config", "[core]\n");
    write(root, "pdf-processing/.DS_Store", "x");

    let skills = SkillDef::load_tree(root).unwrap();
    let paths: Vec<&str> = skills.iter().map(SkillDef::path).collect();
    assert_eq!(
        paths,
        [
            "acme/billing/refunds",
            "pdf-processing",
            "pdf-processing/forms"
        ]
    );
    let pdf = skills[1].entry();
    validate_entry(&pdf).unwrap();
    assert_eq!(
        uris(&pdf),
        [
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/forms/FIELDS.md",
            "skill://pdf-processing/forms/SKILL.md",
            "skill://pdf-processing/logo.png",
            "skill://pdf-processing/templates/invoice.md",
            "skill://pdf-processing/templates/regional/eu.md",
        ]
    );
    let forms = skills[2].entry();
    assert_eq!(forms.uri, "skill://pdf-processing/forms/SKILL.md");
    assert_eq!(forms.name(), Some("forms"));
    assert_eq!(uris(&forms).len(), 2);
    // A folder that is a skill itself is served under its own name, its nested skills below it.
    let skills = SkillDef::load_tree(root.join("pdf-processing")).unwrap();
    let uris: Vec<&str> = skills.iter().map(SkillDef::uri).collect();
    assert_eq!(
        uris,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/forms/SKILL.md"
        ]
    );
    let skills = SkillDef::load_tree(root).unwrap();
    // The frontmatter is the file's, parsed by the one parser both sides use.
    let text = std::fs::read_to_string(root.join("acme/billing/refunds/SKILL.md")).unwrap();
    assert_eq!(
        skills[0].entry().frontmatter,
        parse_frontmatter(&text).unwrap().fields
    );
}

/// The JSON-RPC response to `request` (a result comes with `200`; a 2026-07-28 error may come
/// with a 4xx status, which the transport's tests check).
async fn rpc(request: reqwest::RequestBuilder) -> Value {
    let (status, body, code) = outcome(request.send().await.expect("a response")).await;
    assert!(status == 200 || code.is_some(), "HTTP {status}: {body}");
    body
}

fn code(body: &Value) -> i64 {
    body["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error response: {body}"))
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

#[tokio::test]
async fn both_eras_declare_and_serve_skills_over_http() {
    let tree = skills_tree();
    let server = Server::builder("skills-test", "1.0.0")
        .skills_dir(tree.path())
        .unwrap()
        .build();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();

    // Stateful: the capability in `initialize`, then the methods in the session.
    let init = rpc(post(&c, &url).json(&json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": { "protocolVersion": LEGACY, "capabilities": {},
                    "clientInfo": { "name": "t", "version": "1" } },
    })))
    .await;
    assert_eq!(
        init["result"]["capabilities"]["extensions"][SKILLS],
        json!({"directoryRead": true})
    );
    let sid = initialize(&c, &url).await;
    let session = |id: i64, method: &str, params: Value| {
        in_session(&c, &url, &sid).json(&request(id, method, params))
    };
    let list = rpc(session(1, "skills/list", json!({}))).await;
    let skills: Vec<SkillEntry> = serde_json::from_value(list["result"]["skills"].clone()).unwrap();
    assert_eq!(skills.len(), 3, "{list}");
    assert!(
        list["result"].get("ttlMs").is_none(),
        "no cache hints before 2026-07-28: {list}"
    );
    for skill in &skills {
        validate_entry(skill).unwrap();
    }
    let pdf = &skills[1];
    assert_eq!(pdf.uri, "skill://pdf-processing/SKILL.md");
    let got = rpc(session(2, "skills/get", json!({ "uri": pdf.uri }))).await;
    assert_eq!(
        serde_json::from_value::<SkillEntry>(got["result"]["skill"].clone()).unwrap(),
        *pdf
    );
    let unknown = rpc(session(
        3,
        "skills/get",
        json!({ "uri": "skill://nope/SKILL.md" }),
    ))
    .await;
    assert_eq!(code(&unknown), -32602, "{unknown}");

    // Every listed file reads back as the exact bytes its digest and size cover.
    for file in pdf.resources.files().unwrap() {
        let read = rpc(session(4, "resources/read", json!({ "uri": file.uri }))).await;
        let contents = &read["result"]["contents"][0];
        let bytes = match contents["text"].as_str() {
            Some(text) => text.as_bytes().to_vec(),
            None => base64::engine::general_purpose::STANDARD
                .decode(contents["blob"].as_str().expect("text or blob"))
                .unwrap(),
        };
        check_file(file, &bytes).unwrap();
        if file.uri.ends_with("logo.png") {
            assert_eq!(contents["mimeType"], "image/png", "{read}");
            assert!(
                contents.get("blob").is_some(),
                "binary files are blobs: {read}"
            );
        }
    }

    // Each SKILL.md is listed, named and described by its frontmatter.
    let resources = rpc(session(5, "resources/list", json!({}))).await;
    let listed = resources["result"]["resources"].as_array().unwrap();
    let refunds = listed
        .iter()
        .find(|r| r["uri"] == "skill://acme/billing/refunds/SKILL.md")
        .expect("the SKILL.md is listed");
    assert_eq!(refunds["name"], "refunds");
    assert_eq!(refunds["description"], "Handle refunds");
    assert_eq!(refunds["mimeType"], "text/markdown");
    assert_eq!(refunds["size"], skill_md("refunds", "Handle refunds").len());
    assert_eq!(
        listed.len(),
        3,
        "supporting files are not listed: {resources}"
    );

    // Directories: prefix levels, skill roots and subdirectories.
    let dir = |id, uri: &str| {
        rpc(session(
            id,
            "resources/directory/read",
            json!({ "uri": uri }),
        ))
    };
    let children = |body: &Value| -> Vec<(String, String)> {
        body["result"]["resources"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}"))
            .iter()
            .map(|r| {
                (
                    r["uri"].as_str().unwrap().to_owned(),
                    r["mimeType"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let acme = dir(6, "skill://acme").await;
    assert_eq!(
        children(&acme),
        [("skill://acme/billing".into(), "inode/directory".into())]
    );
    let root = dir(7, "skill://pdf-processing").await;
    assert_eq!(
        children(&root),
        [
            (
                "skill://pdf-processing/SKILL.md".into(),
                "text/markdown".into()
            ),
            (
                "skill://pdf-processing/forms".into(),
                "inode/directory".into()
            ),
            ("skill://pdf-processing/logo.png".into(), "image/png".into()),
            (
                "skill://pdf-processing/templates".into(),
                "inode/directory".into()
            ),
        ]
    );
    assert_eq!(root["result"]["resources"][0]["name"], "pdf-processing");
    let templates = dir(8, "skill://pdf-processing/templates").await;
    assert_eq!(templates["result"]["resources"][0]["name"], "invoice.md");
    assert_eq!(templates["result"]["resources"][0]["size"], 10);
    for not_a_directory in [
        "skill://pdf-processing/SKILL.md",
        "skill://nowhere",
        "skill://pdf-processing/",
    ] {
        let body = dir(9, not_a_directory).await;
        assert_eq!(code(&body), -32602, "{not_a_directory}: {body}");
    }

    // Stateless: the capability in `server/discover`, cache hints on both skills methods.
    let discover = rpc(stateless(&c, &url, 10, "server/discover", json!({}))).await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"][SKILLS]["directoryRead"],
        true
    );
    let list = rpc(stateless(&c, &url, 11, "skills/list", json!({}))).await;
    let result = &list["result"];
    assert_eq!(result["resultType"], "complete");
    assert!(
        result["ttlMs"].is_u64() && result["cacheScope"].is_string(),
        "{list}"
    );
    assert_eq!(result["skills"].as_array().unwrap().len(), 3);
    let got = rpc(stateless(
        &c,
        &url,
        12,
        "skills/get",
        json!({ "uri": pdf.uri }),
    ))
    .await;
    assert!(
        got["result"]["ttlMs"].is_u64() && got["result"]["cacheScope"].is_string(),
        "{got}"
    );
    let dir = rpc(stateless(
        &c,
        &url,
        13,
        "resources/directory/read",
        json!({ "uri": "skill://pdf-processing/forms" }),
    ))
    .await;
    assert_eq!(
        dir["result"]["resources"].as_array().unwrap().len(),
        2,
        "{dir}"
    );
}

#[tokio::test]
async fn a_server_without_skills_does_not_know_the_methods() {
    let server = Server::builder("no-skills", "1.0.0").build();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let discover = rpc(stateless(&c, &url, 1, "server/discover", json!({}))).await;
    assert!(
        discover["result"]["capabilities"]
            .get("extensions")
            .is_none(),
        "{discover}"
    );
    for method in ["skills/list", "skills/get", "resources/directory/read"] {
        let body = rpc(stateless(
            &c,
            &url,
            2,
            method,
            json!({ "uri": "skill://a/SKILL.md" }),
        ))
        .await;
        assert_eq!(code(&body), -32601, "{method}: {body}");
    }
    // Declared with none yet: served, empty.
    let server = Server::builder("no-skills-yet", "1.0.0").skills().build();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let list = rpc(stateless(&c, &url, 3, "skills/list", json!({}))).await;
    assert_eq!(list["result"]["skills"], json!([]), "{list}");
}

#[tokio::test]
async fn skills_and_directories_are_paged_without_splitting_an_entry() {
    let tree = skills_tree();
    let mut options = ServerOptions::default();
    options.page_size = 1;
    let server = Server::builder("paged", "1.0.0")
        .options(options)
        .skills_dir(tree.path())
        .unwrap()
        .build();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let follow = |method: &'static str, uri: Option<&'static str>| {
        let (c, url) = (c.clone(), url.clone());
        async move {
            let mut cursor: Option<String> = None;
            let mut pages = Vec::new();
            loop {
                let mut params = json!({});
                if let Some(uri) = uri {
                    params["uri"] = json!(uri);
                }
                if let Some(cursor) = &cursor {
                    params["cursor"] = json!(cursor);
                }
                let page = rpc(stateless(&c, &url, 1, method, params)).await;
                pages.push(page["result"].clone());
                match page["result"]["nextCursor"].as_str() {
                    Some(next) => cursor = Some(next.to_owned()),
                    None => return pages,
                }
            }
        }
    };
    let pages = follow("skills/list", None).await;
    assert_eq!(pages.len(), 3);
    for page in &pages {
        let skills: Vec<SkillEntry> = serde_json::from_value(page["skills"].clone()).unwrap();
        assert_eq!(skills.len(), 1);
        validate_entry(&skills[0]).unwrap();
    }
    let pages = follow("resources/directory/read", Some("skill://pdf-processing")).await;
    assert_eq!(pages.len(), 4);
    // A cursor of one list is refused by another.
    let cursor = pages[0]["nextCursor"].as_str().unwrap();
    let body = rpc(stateless(
        &c,
        &url,
        2,
        "skills/list",
        json!({ "cursor": cursor }),
    ))
    .await;
    assert_eq!(code(&body), -32602, "{body}");
    let body = rpc(stateless(
        &c,
        &url,
        3,
        "resources/directory/read",
        json!({ "uri": "skill://acme", "cursor": cursor }),
    ))
    .await;
    assert_eq!(code(&body), -32602, "{body}");
}

#[tokio::test]
async fn skills_added_and_removed_at_run_time_are_announced() {
    let server = Server::builder("run-time", "1.0.0").skills().build();
    let http = start(&server, HttpOptions::default()).await;
    let url = http.url();
    let c = client();
    let sid = initialize(&c, &url).await;
    let stream = c
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await
        .unwrap();
    let mut stream = Sse::new(stream);
    stream.next().await.expect("the priming event");
    let session = |id: i64, method: &str, params: Value| {
        in_session(&c, &url, &sid).json(&request(id, method, params))
    };
    let changed = |message: Value| {
        assert_eq!(
            message["method"], "notifications/resources/list_changed",
            "{message}"
        );
    };

    let def = SkillDef::from_files(
        "team/git-flow",
        [
            ("SKILL.md", skill_md("git-flow", "Branch and commit")),
            ("hooks/pre-commit", "#!/bin/sh\n".into()),
        ],
    )
    .unwrap();
    server.add_skill(def);
    changed(stream.message().await.expect("a change").1);
    let list = rpc(session(1, "skills/list", json!({}))).await;
    assert_eq!(
        list["result"]["skills"][0]["uri"],
        "skill://team/git-flow/SKILL.md"
    );
    let read = rpc(session(
        2,
        "resources/read",
        json!({ "uri": "skill://team/git-flow/hooks/pre-commit" }),
    ))
    .await;
    assert_eq!(read["result"]["contents"][0]["text"], "#!/bin/sh\n");

    let tree = skills_tree();
    assert_eq!(server.add_skills_dir(tree.path()).unwrap(), 3);
    changed(stream.message().await.expect("a change").1);
    assert_eq!(server.skills().len(), 4);

    assert!(server.remove_skill("skill://team/git-flow/SKILL.md"));
    changed(stream.message().await.expect("a change").1);
    assert!(!server.remove_skill("skill://team/git-flow/SKILL.md"));
    let gone = rpc(session(
        3,
        "skills/get",
        json!({ "uri": "skill://team/git-flow/SKILL.md" }),
    ))
    .await;
    assert_eq!(code(&gone), -32602, "{gone}");
    let gone = rpc(session(
        4,
        "resources/read",
        json!({ "uri": "skill://team/git-flow/hooks/pre-commit" }),
    ))
    .await;
    assert!(gone.get("error").is_some(), "{gone}");
    let resources = rpc(session(5, "resources/list", json!({}))).await;
    assert_eq!(
        resources["result"]["resources"].as_array().unwrap().len(),
        3,
        "{resources}"
    );
    // A folder that does not load adds nothing.
    let bad = tempfile::tempdir().unwrap();
    write(bad.path(), "ok/SKILL.md", skill_md("ok", "d"));
    write(bad.path(), "wrong/SKILL.md", skill_md("right", "d"));
    invalid(server.add_skills_dir(bad.path()));
    assert_eq!(server.skills().len(), 3);
}

#[test]
fn the_configuration_names_skill_folders() {
    let config = ServerConfig::from_toml("[skills]\ndirs = [\"a\", \"/b\"]\n").unwrap();
    assert_eq!(config.skills_dirs, [Path::new("a"), Path::new("/b")]);
    let config = ServerConfig::default()
        .with_vars([("MCP_SKILLS_DIR", "x,y")])
        .unwrap();
    assert_eq!(config.skills_dirs, [Path::new("x"), Path::new("y")]);
    let e = ServerConfig::from_toml("[skills]\ndir = \"a\"\n").unwrap_err();
    assert!(e.to_string().contains("skills.dir"), "{e}");

    let tree = skills_tree();
    let mut config = ServerConfig::default();
    config.skills_dirs = vec![tree.path().to_owned()];
    let server = Server::builder("configured", "1.0.0")
        .config_skills(&config)
        .unwrap()
        .build();
    assert_eq!(server.skills().len(), 3);
    assert!(server.serves_extension(SKILLS));
}
