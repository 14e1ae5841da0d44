//! Fuzzes `mcp_kit::auth::challenge`, the `WWW-Authenticate` parser of the OAuth client (the
//! header comes from any server the client talks to).
//!
//! Any input must parse without panicking, and the parameters read from it must be those of
//! the challenge the generic parse found first with the `Bearer` scheme, else the `DPoP` one.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_kit::auth::challenge::{BearerChallenge, parse};

fuzz_target!(|data: &[u8]| {
    let Ok(header) = std::str::from_utf8(data) else {
        return;
    };
    let challenges = parse(header);
    let bearer = BearerChallenge::from_headers([header]);
    let first = challenges
        .iter()
        .find(|c| c.is("Bearer"))
        .or_else(|| challenges.iter().find(|c| c.is("DPoP")));
    assert_eq!(bearer.is_some(), first.is_some());
    if let (Some(bearer), Some(first)) = (bearer, first) {
        assert_eq!(bearer.error.as_deref(), first.param("error"));
        assert_eq!(bearer.resource_metadata.as_deref(), first.param("resource_metadata"));
        assert_eq!(bearer.offers_dpop, challenges.iter().any(|c| c.is("DPoP")));
    }
});
