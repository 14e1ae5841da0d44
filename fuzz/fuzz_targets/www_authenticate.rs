//! Fuzzes `mcp_kit::auth::challenge`, the `WWW-Authenticate` parser of the OAuth client (the
//! header comes from any server the client talks to).
//!
//! Any input must parse without panicking, and the Bearer parameters read from it must be
//! the ones the generic parse found.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_kit::auth::challenge::{BearerChallenge, parse};

fuzz_target!(|data: &[u8]| {
    let Ok(header) = std::str::from_utf8(data) else {
        return;
    };
    let challenges = parse(header);
    let bearer = BearerChallenge::from_headers([header]);
    let first = challenges.iter().find(|c| c.is("Bearer"));
    assert_eq!(bearer.is_some(), first.is_some());
    if let (Some(bearer), Some(first)) = (bearer, first) {
        assert_eq!(bearer.error.as_deref(), first.param("error"));
        assert_eq!(bearer.resource_metadata.as_deref(), first.param("resource_metadata"));
    }
});
