//! The erased form of the futures handlers and stores return.

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future (the erased form of handlers).
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;
