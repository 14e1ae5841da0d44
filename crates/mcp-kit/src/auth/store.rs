//! What the flow keeps between runs: the client's registration at an authorization server
//! and the tokens it issued, per server. [`TokenStore`] is the seam; [`MemoryTokenStore`]
//! keeps them for the process, [`FileTokenStore`] in one file per server (mode 0600, replaced
//! atomically).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Which server a record belongs to: its name in the configuration and its URL (a record is
/// never used for another URL, so a token only ever goes to the resource it was issued for).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StoreKey {
    /// The server's name.
    pub server: String,
    /// The server's MCP endpoint.
    pub url: String,
}

impl StoreKey {
    /// The key of `server` at `url`.
    pub fn new(server: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            server: server.into(),
            url: url.into(),
        }
    }
}

/// The client's identity at an authorization server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRegistration {
    /// The `client_id` (a URL for a client ID metadata document).
    pub client_id: String,
    /// The secret of a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint: `none`, `client_secret_basic`,
    /// `client_secret_post`.
    pub token_endpoint_auth_method: String,
    /// The redirect URI registered with it.
    pub redirect_uri: String,
}

impl fmt::Debug for ClientRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientRegistration")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field(
                "token_endpoint_auth_method",
                &self.token_endpoint_auth_method,
            )
            .field("redirect_uri", &self.redirect_uri)
            .finish()
    }
}

/// Tokens an authorization server issued.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenSet {
    /// The access token.
    pub access_token: String,
    /// `Bearer` (or `DPoP`).
    pub token_type: String,
    /// The refresh token, when one was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// When it was issued (received), in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_at: Option<u64>,
    /// The scopes granted.
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl fmt::Debug for TokenSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenSet")
            .field("token_type", &self.token_type)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "…"))
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// Everything kept for one server: the authorization server it was authorized at, the
/// client's registration there, and the tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredAuth {
    /// The authorization server's issuer: the registration and tokens belong to it alone.
    pub issuer: String,
    /// The `resource` the tokens were issued for.
    pub resource: String,
    /// The issuer's token endpoint (for refreshing without discovery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// The client's registration at the issuer (a configured client's secret is not
    /// stored: it stays in the configuration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientRegistration>,
    /// The tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenSet>,
    /// The private key DPoP-bound tokens are bound to (PKCS#8, base64url).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<String>,
}

/// Where the flow keeps [`StoredAuth`] records. Implementations must keep them confidential:
/// they hold tokens and client secrets.
pub trait TokenStore: Send + Sync + 'static {
    /// The record of `key`, if any.
    ///
    /// # Errors
    ///
    /// The store cannot be read.
    fn load(&self, key: &StoreKey) -> Result<Option<StoredAuth>, StoreError>;

    /// Replaces the record of `key`.
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    fn save(&self, key: &StoreKey, auth: &StoredAuth) -> Result<(), StoreError>;

    /// Forgets the record of `key` (logging out); `false` when there was none.
    ///
    /// # Errors
    ///
    /// The store cannot be written.
    fn remove(&self, key: &StoreKey) -> Result<bool, StoreError>;
}

/// A failure of a [`TokenStore`].
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

/// Records kept in memory, for the life of the process.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    records: Mutex<HashMap<StoreKey, StoredAuth>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, key: &StoreKey) -> Result<Option<StoredAuth>, StoreError> {
        Ok(self.records.lock().get(key).cloned())
    }

    fn save(&self, key: &StoreKey, auth: &StoredAuth) -> Result<(), StoreError> {
        self.records.lock().insert(key.clone(), auth.clone());
        Ok(())
    }

    fn remove(&self, key: &StoreKey) -> Result<bool, StoreError> {
        Ok(self.records.lock().remove(key).is_some())
    }
}

/// Records kept in a directory, one JSON file per server and URL
/// (`<server>-<hash of the URL>.json`). The directory is created with mode 0700; each file is
/// written to a temporary file of mode 0600 beside it, synced, then renamed over the old one,
/// so that a reader never sees half a record and no other user can read one.
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    dir: PathBuf,
}

impl FileTokenStore {
    /// A store in `dir` (created when first written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `key`.
    pub fn path(&self, key: &StoreKey) -> PathBuf {
        let name: String = key
            .server
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(64)
            .collect();
        let digest = Sha256::digest(key.url.as_bytes());
        let hash: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{name}-{hash}.json"))
    }

    fn failed(what: &str, path: &Path, e: impl fmt::Display) -> StoreError {
        StoreError(format!("{what} {}: {e}", path.display()))
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self, key: &StoreKey) -> Result<Option<StoredAuth>, StoreError> {
        let path = self.path(key);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Self::failed("cannot read", &path, e)),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| Self::failed("cannot decode", &path, e))
    }

    fn save(&self, key: &StoreKey, auth: &StoredAuth) -> Result<(), StoreError> {
        let path = self.path(key);
        let json =
            serde_json::to_vec_pretty(auth).map_err(|e| Self::failed("cannot encode", &path, e))?;
        crate::write_private_file(&path, &json, 0o700)
            .map_err(|e| Self::failed("cannot write", &path, e))
    }

    fn remove(&self, key: &StoreKey) -> Result<bool, StoreError> {
        let path = self.path(key);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Self::failed("cannot remove", &path, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn record(token: &str) -> StoredAuth {
        StoredAuth {
            issuer: "https://auth.example.com".into(),
            resource: "https://mcp.example.com/mcp".into(),
            token_endpoint: Some("https://auth.example.com/token".into()),
            client: Some(ClientRegistration {
                client_id: "client-1".into(),
                client_secret: Some("client-secret-1".into()),
                token_endpoint_auth_method: "client_secret_basic".into(),
                redirect_uri: "http://127.0.0.1:33418/callback".into(),
            }),
            tokens: Some(TokenSet {
                access_token: token.into(),
                token_type: "Bearer".into(),
                refresh_token: Some("refresh-1".into()),
                expires_at: Some(1_900_000_000),
                issued_at: Some(1_899_996_400),
                scopes: vec!["read".into()],
            }),
            dpop_key: None,
        }
    }

    #[test]
    fn the_file_store_keeps_one_private_file_per_server_and_replaces_it_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTokenStore::new(dir.path().join("oauth"));
        let key = StoreKey::new("git hub", "https://mcp.example.com/mcp");
        assert_eq!(store.load(&key).unwrap(), None);
        store.save(&key, &record("access-1")).unwrap();
        let path = store.path(&key);
        assert!(
            path.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("git_hub-")
        );
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(store.dir()), 0o700);
        store.save(&key, &record("access-2")).unwrap();
        assert_eq!(store.load(&key).unwrap(), Some(record("access-2")));
        // Only the record: no temporary file is left beside it.
        let files: Vec<_> = std::fs::read_dir(store.dir()).unwrap().collect();
        assert_eq!(files.len(), 1);
        // Another URL under the same name is another record.
        let other = StoreKey::new("git hub", "https://other.example.com/mcp");
        assert_eq!(store.load(&other).unwrap(), None);
        assert!(store.remove(&key).unwrap());
        assert!(!store.remove(&key).unwrap());
        assert_eq!(store.load(&key).unwrap(), None);
    }

    #[test]
    fn a_corrupt_file_is_an_error_not_an_empty_record() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTokenStore::new(dir.path());
        let key = StoreKey::new("s", "https://mcp.example.com/mcp");
        std::fs::write(store.path(&key), "{not json").unwrap();
        let error = store.load(&key).unwrap_err().to_string();
        assert!(error.starts_with("cannot decode"), "{error}");
    }

    #[test]
    fn debug_output_never_shows_a_secret() {
        let shown = format!("{:?}", record("access-secret-token"));
        for secret in ["access-secret-token", "refresh-1", "client-secret-1"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("client-1"));
    }
}
