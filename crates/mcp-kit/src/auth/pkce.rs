//! PKCE (RFC 7636) with S256, the only method MCP clients use, and the random `state`.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// A PKCE pair: the verifier kept by the client, the challenge sent in the authorization
/// request.
#[derive(Clone, PartialEq, Eq)]
pub struct Pkce {
    /// 43 characters of base64url from 32 random bytes (RFC 7636 §4.1).
    pub verifier: String,
    /// `BASE64URL(SHA256(verifier))`.
    pub challenge: String,
}

impl std::fmt::Debug for Pkce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The verifier is a secret until the code is exchanged.
        f.debug_struct("Pkce")
            .field("challenge", &self.challenge)
            .finish_non_exhaustive()
    }
}

impl Pkce {
    /// A fresh pair from the system's random source.
    ///
    /// # Errors
    ///
    /// The random source failed.
    pub fn generate() -> Result<Self, getrandom::Error> {
        Ok(Self::from_verifier(random_token()?))
    }

    /// The pair of a given verifier (RFC 7636 appendix B has a known one).
    pub fn from_verifier(verifier: String) -> Self {
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Pkce {
            verifier,
            challenge,
        }
    }

    /// The `code_challenge_method` this crate uses.
    pub const METHOD: &'static str = "S256";
}

/// 32 random bytes as 43 characters of base64url: a PKCE verifier, or a `state`.
///
/// # Errors
///
/// The random source failed.
pub fn random_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_7636_example() {
        // RFC 7636, appendix B.
        let pkce = Pkce::from_verifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk".to_owned());
        assert_eq!(
            pkce.challenge,
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert!(!format!("{pkce:?}").contains("dBjft"));
    }

    #[test]
    fn generated_verifiers_are_long_enough_and_differ() {
        let (a, b) = (Pkce::generate().unwrap(), Pkce::generate().unwrap());
        assert_eq!(a.verifier.len(), 43);
        assert_ne!(a.verifier, b.verifier);
        assert!(
            a.verifier
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        );
    }
}
