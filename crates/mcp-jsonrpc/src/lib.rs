//! JSON-RPC 2.0 for the Model Context Protocol.
//!
//! (crate documentation is completed with the peer and transports)

mod id;
pub mod message;

pub use id::Id;
pub use message::{ErrorObject, Message, error_codes};
