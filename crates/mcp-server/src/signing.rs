//! Tamper-proof tokens (pagination cursors, 2026-07-28 `requestState`) and random ids.
//!
//! A token is `base64url(payload) "." base64url(HMAC-SHA-256(key, purpose || payload))`. The
//! purpose binds a token to its use, so a cursor can never pass as request state. The key is
//! drawn from the OS CSPRNG when the server is built unless the application sets one (servers
//! behind a load balancer must share it).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Longest token accepted (a guard against huge inputs before any work is done).
const MAX_TOKEN_LEN: usize = 1 << 20;

/// Signs and verifies tokens with one secret key.
#[derive(Clone)]
pub(crate) struct Signer {
    key: [u8; 32],
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer(..)")
    }
}

/// Why a token was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum TokenError {
    #[error("it is not a token this server issued")]
    Malformed,
    #[error("its signature does not match (it was altered or issued by another server)")]
    BadSignature,
}

impl Signer {
    pub(crate) fn random() -> Self {
        Self::with_key(random_bytes())
    }

    pub(crate) fn with_key(key: [u8; 32]) -> Self {
        Self { key }
    }

    fn mac(&self, purpose: &str, payload: &[u8]) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(purpose.as_bytes());
        mac.update(&[0]);
        mac.update(payload);
        mac
    }

    pub(crate) fn sign<T: Serialize>(&self, purpose: &str, value: &T) -> String {
        let payload = serde_json::to_vec(value).expect("token payloads serialize");
        let tag = self.mac(purpose, &payload).finalize().into_bytes();
        let mut out = URL_SAFE_NO_PAD.encode(&payload);
        out.push('.');
        out.push_str(&URL_SAFE_NO_PAD.encode(tag));
        out
    }

    pub(crate) fn verify<T: DeserializeOwned>(
        &self,
        purpose: &str,
        token: &str,
    ) -> Result<T, TokenError> {
        if token.len() > MAX_TOKEN_LEN {
            return Err(TokenError::Malformed);
        }
        let (payload, tag) = token.split_once('.').ok_or(TokenError::Malformed)?;
        let payload = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| TokenError::Malformed)?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| TokenError::Malformed)?;
        // Constant-time comparison.
        self.mac(purpose, &payload)
            .verify_slice(&tag)
            .map_err(|_| TokenError::BadSignature)?;
        serde_json::from_slice(&payload).map_err(|_| TokenError::Malformed)
    }
}

/// 32 bytes from the operating system's CSPRNG.
pub(crate) fn random_bytes() -> [u8; 32] {
    let mut key = [0u8; 32];
    getrandom::fill(&mut key).expect("the operating system's random number generator failed");
    key
}

/// A session id: 128 random bits as 32 lowercase hex digits (visible ASCII, as the spec asks).
pub(crate) fn session_id() -> String {
    let bytes = random_bytes();
    let mut out = String::with_capacity(32);
    for b in &bytes[..16] {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_tamper() {
        let s = Signer::random();
        let t = s.sign("cursor", &(3u32, "tools"));
        assert_eq!(
            s.verify::<(u32, String)>("cursor", &t).unwrap(),
            (3, "tools".into())
        );
        assert_eq!(
            s.verify::<(u32, String)>("state", &t),
            Err(TokenError::BadSignature)
        );
        let mut bytes = t.clone().into_bytes();
        bytes[1] ^= 1;
        let altered = String::from_utf8(bytes).unwrap();
        assert!(s.verify::<(u32, String)>("cursor", &altered).is_err());
        assert_eq!(
            s.verify::<(u32, String)>("cursor", "nonsense"),
            Err(TokenError::Malformed)
        );
        let other = Signer::random();
        assert_eq!(
            other.verify::<(u32, String)>("cursor", &t),
            Err(TokenError::BadSignature)
        );
    }

    #[test]
    fn session_ids_are_visible_ascii_and_distinct() {
        let a = session_id();
        let b = session_id();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| (0x21..=0x7e).contains(&c)));
        assert_ne!(a, b);
    }
}
