//! Version negotiation helpers, for both eras.

use mcp_schema::error_codes;
use mcp_schema::version::{
    client_accepts_initialize_answer, latest_of, select_mutual_version,
    server_select_initialize_version, server_select_version,
};
use mcp_schema::*;

#[test]
fn constants_and_eras() {
    assert_eq!(LATEST, "2026-07-28");
    assert_eq!(
        SUPPORTED,
        &[
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ]
    );
    for v in ProtocolVersion::ALL {
        let expected = if v == ProtocolVersion::V2026_07_28 {
            Era::Stateless
        } else {
            Era::Stateful
        };
        assert_eq!(v.era(), expected, "{v}");
        assert_eq!(Era::of(v.as_str()), Some(expected));
        assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
        assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
    }
    assert!(ProtocolVersion::V2025_11_25.is_stateful());
    assert!(!ProtocolVersion::V2026_07_28.is_stateful());
    assert_eq!(ProtocolVersion::parse("2024-10-07"), None);
    assert!(serde_json::from_str::<ProtocolVersion>("\"1900-01-01\"").is_err());
    // Unknown dates: modern from 2026-07-28 on.
    assert_eq!(Era::of("2027-01-01"), Some(Era::Stateless));
    assert_eq!(Era::of("2024-10-07"), Some(Era::Stateful));
    assert_eq!(Era::of("DRAFT-2026-v1"), None);
    assert_eq!(latest_of(SUPPORTED), Some(LATEST));
    assert_eq!(latest_of(&[]), None);
}

#[test]
fn server_answers_the_requested_version_or_its_latest() {
    let supported = [V2025_03_26, V2025_06_18, V2025_11_25];
    assert_eq!(
        server_select_version(V2025_06_18, &supported),
        Some(V2025_06_18)
    );
    assert_eq!(
        server_select_version(V2024_11_05, &supported),
        Some(V2025_11_25)
    );
    assert_eq!(
        server_select_version("2099-01-01", &supported),
        Some(V2025_11_25)
    );
    assert_eq!(server_select_version(V2025_06_18, &[]), None);
    // Order of the server's list does not matter.
    assert_eq!(
        server_select_version("x", &[V2025_11_25, V2024_11_05]),
        Some(V2025_11_25)
    );
}

#[test]
fn initialize_settles_on_a_stateful_version() {
    // A dual-era server never answers `initialize` with a stateless version.
    assert_eq!(
        server_select_initialize_version(V2026_07_28, SUPPORTED),
        Some(V2025_11_25)
    );
    assert_eq!(
        server_select_initialize_version(V2025_03_26, SUPPORTED),
        Some(V2025_03_26)
    );
    assert_eq!(
        server_select_initialize_version("2099-01-01", SUPPORTED),
        Some(V2025_11_25)
    );
    // A modern-only server has nothing to answer with.
    assert_eq!(
        server_select_initialize_version(V2025_11_25, &[V2026_07_28]),
        None
    );
}

#[test]
fn client_checks_the_initialize_answer() {
    let client = [V2025_06_18, V2025_11_25];
    assert_eq!(
        client_accepts_initialize_answer(V2025_06_18, &client),
        Some(V2025_06_18)
    );
    // The server answered a version the client does not speak: disconnect.
    assert_eq!(client_accepts_initialize_answer(V2024_11_05, &client), None);

    // The whole exchange: the client proposes its latest, the server answers.
    let server = [V2024_11_05, V2025_03_26];
    let proposed = latest_of(&client).unwrap();
    let answered = server_select_version(proposed, &server).unwrap();
    assert_eq!(answered, V2025_03_26);
    assert_eq!(client_accepts_initialize_answer(answered, &client), None);
    let client = [V2025_03_26, V2025_11_25];
    assert_eq!(
        client_accepts_initialize_answer(answered, &client),
        Some(V2025_03_26)
    );
}

#[test]
fn modern_clients_pick_from_discover_or_the_error() {
    let ours = SUPPORTED;
    let discover = DiscoverResult::new(
        vec![
            "2025-11-25".into(),
            "2026-07-28".into(),
            "2099-12-31".into(),
        ],
        ServerCapabilities::default(),
        0,
        CacheScope::Private,
    );
    assert_eq!(discover.select_version(ours), Some(V2026_07_28));
    assert_eq!(discover.select_version(&[V2024_11_05]), None);
    assert_eq!(
        select_mutual_version(&[V2025_06_18, V2025_11_25], &discover.supported_versions),
        Some(V2025_11_25)
    );

    // The server rejected our version: retry with the best one it lists.
    let data = UnsupportedProtocolVersionData::new("2099-12-31", &[V2025_11_25, V2026_07_28]);
    let error = data.to_error("Unsupported protocol version");
    assert_eq!(error.code, error_codes::UNSUPPORTED_PROTOCOL_VERSION);
    assert!(error_codes::is_modern(error.code));
    let parsed = UnsupportedProtocolVersionData::from_error(&error)
        .unwrap()
        .unwrap();
    assert_eq!(parsed.requested, "2099-12-31");
    assert_eq!(parsed.select_version(ours), Some(V2026_07_28));
    assert_eq!(parsed.select_version(&[V2024_11_05]), None);
    // Another error code is not this error.
    assert!(MissingRequiredClientCapabilityData::from_error(&error).is_none());
}

#[test]
fn discover_probe_outcomes() {
    // stdio backward compatibility: a recognized modern error means a modern server.
    for code in [
        error_codes::HEADER_MISMATCH,
        error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
        error_codes::UNSUPPORTED_PROTOCOL_VERSION,
    ] {
        assert!(error_codes::is_modern(code));
        assert!(error_codes::is_mcp_reserved(code));
    }
    // Anything else (legacy servers answer unknown methods with -32601 or -32602) means legacy.
    for code in [
        error_codes::METHOD_NOT_FOUND,
        error_codes::INVALID_PARAMS,
        -32000,
        -32002,
    ] {
        assert!(!error_codes::is_modern(code));
    }
    assert!(!error_codes::is_mcp_reserved(
        error_codes::RESOURCE_NOT_FOUND
    ));
    assert!(error_codes::is_mcp_reserved(
        error_codes::URL_ELICITATION_REQUIRED
    ));
    assert_eq!(error_codes::resource_not_found(Era::Stateful), -32002);
    assert_eq!(error_codes::resource_not_found(Era::Stateless), -32602);
    let not_found = ResourceNotFoundData::error("file:///missing", Era::Stateless);
    assert_eq!(not_found.code, -32602);
    assert_eq!(not_found.data.unwrap()["uri"], "file:///missing");
}

#[test]
fn per_request_meta_round_trip() {
    let caps = ClientCapabilities {
        elicitation: Some(ElicitationCapability::default()),
        ..ClientCapabilities::default()
    };
    let info = Implementation::new("client", "0.1");
    let meta = Meta::for_request(V2026_07_28, Some(&info), &caps)
        .with_log_level(&LoggingLevel::Info)
        .with_progress_token("p");
    assert_eq!(meta.protocol_version(), Some(V2026_07_28));
    assert_eq!(meta.client_info().unwrap(), Some(info));
    assert_eq!(meta.client_capabilities().unwrap(), Some(caps));
    assert_eq!(meta.log_level().unwrap(), Some(LoggingLevel::Info));
    assert_eq!(
        meta.progress_token().unwrap(),
        Some(ProgressToken::from("p"))
    );
    // A server reading a request's version picks its era.
    assert_eq!(
        meta.protocol_version().and_then(Era::of),
        Some(Era::Stateless)
    );
    // Malformed reserved values are reported, not hidden.
    let mut bad = Meta::new();
    bad.insert(
        meta::keys::CLIENT_CAPABILITIES.to_owned(),
        serde_json::json!("none"),
    );
    assert!(bad.client_capabilities().is_err());
    assert_eq!(Meta::new().client_capabilities().unwrap(), None);
}
