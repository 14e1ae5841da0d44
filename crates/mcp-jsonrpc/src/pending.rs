//! Requests sent and not answered yet, by id: what a client waits for from its server, and what
//! a server waits for from its client (elicitation, sampling, roots) — one table for both.
//!
//! A waiter gets its outcome through a oneshot channel. Abandoning a request (dropping the
//! waiter's side) frees its slot and stops the work tied to it; closing the table fails
//! every waiter at once and refuses new entries.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::oneshot;
use tokio::task::AbortHandle;

/// The table of requests awaiting an answer, keyed by `K` (a request id), each to be completed
/// with a `T`.
pub struct PendingRequests<K, T> {
    table: Mutex<Table<K, T>>,
}

struct Table<K, T> {
    slots: HashMap<K, Slot<T>>,
    /// Set once, when the table closes; no slot is added afterwards.
    closed: Option<Arc<str>>,
}

struct Slot<T> {
    tx: oneshot::Sender<T>,
    /// Work to stop when the request is abandoned (the exchange carrying it).
    work: Option<AbortHandle>,
}

/// The table is closed: why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closed(pub Arc<str>);

impl<K, T> Default for PendingRequests<K, T> {
    fn default() -> Self {
        Self {
            table: Mutex::new(Table {
                slots: HashMap::new(),
                closed: None,
            }),
        }
    }
}

impl<K, T> std::fmt::Debug for PendingRequests<K, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let table = self.table.lock();
        f.debug_struct("PendingRequests")
            .field("pending", &table.slots.len())
            .field("closed", &table.closed)
            .finish()
    }
}

impl<K: Eq + Hash, T> PendingRequests<K, T> {
    /// An empty, open table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a request; the receiver gets its outcome. Refused once the table is closed.
    pub fn insert(&self, key: K) -> Result<oneshot::Receiver<T>, Closed> {
        let mut table = self.table.lock();
        if let Some(reason) = &table.closed {
            return Err(Closed(reason.clone()));
        }
        let (tx, rx) = oneshot::channel();
        table.slots.insert(key, Slot { tx, work: None });
        Ok(rx)
    }

    /// Completes a request; false when it is not pending (answered, abandoned or unknown).
    pub fn complete(&self, key: &K, outcome: T) -> bool {
        let slot = self.table.lock().slots.remove(key);
        match slot {
            Some(slot) => {
                let _ = slot.tx.send(outcome);
                true
            }
            None => false,
        }
    }

    /// Forgets a request nobody waits for any more, stopping the work tied to it.
    pub fn abandon(&self, key: &K) {
        let slot = self.table.lock().slots.remove(key);
        if let Some(work) = slot.and_then(|s| s.work) {
            work.abort();
        }
    }

    /// Ties work to a request, stopped when the request is abandoned; stopped at once when
    /// the request is no longer pending.
    pub fn attach(&self, key: &K, work: AbortHandle) {
        match self.table.lock().slots.get_mut(key) {
            Some(slot) => slot.work = Some(work),
            None => work.abort(),
        }
    }

    /// Whether a request is still pending.
    pub fn contains(&self, key: &K) -> bool {
        self.table.lock().slots.contains_key(key)
    }

    /// How many requests are pending.
    pub fn len(&self) -> usize {
        self.table.lock().slots.len()
    }

    /// Whether none is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Why the table closed, once it has.
    pub fn closed(&self) -> Option<Arc<str>> {
        self.table.lock().closed.clone()
    }

    /// Closes the table (the first reason wins; false when it was closed already): every
    /// pending request gets `fail(reason)` and its work is stopped; new ones are refused.
    pub fn close(&self, reason: Arc<str>, fail: impl Fn(&Arc<str>) -> T) -> bool {
        let slots = {
            let mut table = self.table.lock();
            if table.closed.is_some() {
                return false;
            }
            table.closed = Some(reason.clone());
            std::mem::take(&mut table.slots)
        };
        for (_, slot) in slots {
            if let Some(work) = slot.work {
                work.abort();
            }
            let _ = slot.tx.send(fail(&reason));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn requests_complete_once_and_closing_fails_the_rest() {
        let table: PendingRequests<u32, Result<&str, String>> = PendingRequests::new();
        let one = table.insert(1).unwrap();
        let two = table.insert(2).unwrap();
        assert_eq!(table.len(), 2);
        assert!(table.complete(&1, Ok("one")));
        assert!(!table.complete(&1, Ok("again")), "answered already");
        assert_eq!(one.await.unwrap(), Ok("one"));
        let work = tokio::spawn(std::future::pending::<()>());
        table.attach(&2, work.abort_handle());
        assert!(table.close(Arc::from("gone"), |why| Err(why.to_string())));
        assert!(!table.close(Arc::from("again"), |_| Err(String::new())));
        assert_eq!(two.await.unwrap(), Err("gone".to_owned()));
        assert!(
            work.await.unwrap_err().is_cancelled(),
            "the tied work stopped"
        );
        assert_eq!(table.insert(3).unwrap_err(), Closed(Arc::from("gone")));
        assert!(table.is_empty());
    }
}
