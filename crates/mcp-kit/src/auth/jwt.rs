//! The JWTs the client signs itself (ES256): client assertions for `private_key_jwt` (RFC
//! 7523 §2.2) and DPoP proofs (RFC 9449 §4).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
#[cfg(test)]
use jsonwebtoken::jwk::ThumbprintHash;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use url::Url;

use super::now;
use super::pkce::random_token;

/// How long a client assertion is valid.
const ASSERTION_LIFETIME_SECS: u64 = 120;

/// A P-256 key the client signs with.
#[derive(Clone)]
pub(crate) struct SigningKey {
    encoding: EncodingKey,
    /// PKCS#8 DER, for storing a DPoP key with the tokens bound to it.
    pkcs8: Vec<u8>,
    /// The public key as a JWK (a DPoP proof carries it).
    jwk: Jwk,
}

impl SigningKey {
    /// A fresh key.
    pub(crate) fn generate() -> Result<Self, String> {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
            .map_err(|e| format!("cannot generate a P-256 key: {e}"))?;
        Self::from_pkcs8(pair.serialize_der())
    }

    /// The key of a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    pub(crate) fn from_pem(pem: &str) -> Result<Self, String> {
        let pair = rcgen::KeyPair::from_pem(pem)
            .map_err(|e| format!("the private key is not a PKCS#8 PEM key: {e}"))?;
        Self::from_pkcs8(pair.serialize_der())
    }

    /// The key of PKCS#8 DER bytes.
    pub(crate) fn from_pkcs8(pkcs8: Vec<u8>) -> Result<Self, String> {
        let encoding = EncodingKey::from_ec_der(&pkcs8);
        let jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256)
            .map_err(|e| format!("the key is not a P-256 key: {e}"))?;
        Ok(Self {
            encoding,
            pkcs8,
            jwk,
        })
    }

    /// The key as stored (PKCS#8 DER, base64url).
    pub(crate) fn to_stored(&self) -> String {
        URL_SAFE_NO_PAD.encode(&self.pkcs8)
    }

    /// The key of [`to_stored`](Self::to_stored)'s text.
    pub(crate) fn from_stored(text: &str) -> Result<Self, String> {
        let der = URL_SAFE_NO_PAD
            .decode(text)
            .map_err(|e| format!("the stored DPoP key is not base64url: {e}"))?;
        Self::from_pkcs8(der)
    }

    /// The RFC 7638 thumbprint of the public key (what `cnf.jkt` binds a token to).
    #[cfg(test)]
    pub(crate) fn thumbprint(&self) -> String {
        self.jwk.thumbprint(ThumbprintHash::SHA256)
    }

    fn sign(&self, header: Header, claims: &Value) -> Result<String, String> {
        jsonwebtoken::encode(&header, claims, &self.encoding)
            .map_err(|e| format!("cannot sign a JWT: {e}"))
    }

    /// A client assertion (`private_key_jwt`): `iss` and `sub` the client, `aud` the
    /// authorization server's issuer, a short life and a unique `jti`.
    pub(crate) fn client_assertion(
        &self,
        client_id: &str,
        audience: &str,
    ) -> Result<String, String> {
        let now = now();
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_SECS,
            "jti": random_token().map_err(|e| e.to_string())?,
        });
        self.sign(Header::new(Algorithm::ES256), &claims)
    }

    /// A DPoP proof for one request: `htm` the method, `htu` the URL without query and
    /// fragment, a fresh `jti`, `iat` now; `ath` binds it to an access token, `nonce` carries
    /// the server's.
    pub(crate) fn dpop_proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, String> {
        let mut target = Url::parse(url).map_err(|e| format!("bad URL for a DPoP proof: {e}"))?;
        target.set_query(None);
        target.set_fragment(None);
        let mut claims = json!({
            "jti": random_token().map_err(|e| e.to_string())?,
            "htm": method,
            "htu": target.as_str(),
            "iat": now(),
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".to_owned());
        header.jwk = Some(self.jwk.clone());
        self.sign(header, &claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn a_dpop_proof_carries_the_public_key_and_binds_method_url_token_and_nonce() {
        let key = SigningKey::generate().unwrap();
        let proof = key
            .dpop_proof(
                "POST",
                "https://mcp.example.com/mcp?x=1#f",
                Some("tok"),
                Some("n1"),
            )
            .unwrap();
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header = decode(parts[0]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert!(
            header["jwk"].get("d").is_none(),
            "no private part: {header}"
        );
        let claims = decode(parts[1]);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["nonce"], "n1");
        // RFC 9449 §4.2: base64url(SHA-256(ASCII(token))).
        assert_eq!(
            claims["ath"],
            URL_SAFE_NO_PAD.encode(Sha256::digest(b"tok"))
        );
        let again = key
            .dpop_proof("POST", "https://mcp.example.com/mcp", None, None)
            .unwrap();
        assert_ne!(
            decode(again.split('.').nth(1).unwrap())["jti"],
            claims["jti"]
        );
        // The key survives storage, thumbprint and all.
        let stored = SigningKey::from_stored(&key.to_stored()).unwrap();
        assert_eq!(stored.thumbprint(), key.thumbprint());
    }

    #[test]
    fn a_client_assertion_names_the_client_and_the_issuer() {
        let key = SigningKey::generate().unwrap();
        let assertion = key
            .client_assertion("client-1", "https://auth.example.com")
            .unwrap();
        let claims = decode(assertion.split('.').nth(1).unwrap());
        assert_eq!(claims["iss"], "client-1");
        assert_eq!(claims["sub"], "client-1");
        assert_eq!(claims["aud"], "https://auth.example.com");
        assert!(claims["exp"].as_u64().unwrap() > claims["iat"].as_u64().unwrap());
        assert!(SigningKey::from_pem("not a key").is_err());
    }
}
