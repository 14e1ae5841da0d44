//! Transports: they turn bytes into messages for a session and its answers back into bytes.

mod batch;
mod connection;
#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod stdio;
