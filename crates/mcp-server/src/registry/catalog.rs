//! An ordered, concurrently readable collection of named entries (tools, prompts, resources).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::RwLock;

/// Entries in registration order, found by key in O(1). Readers take a snapshot (an `Arc`
/// of the whole list), so a listing never blocks a registration and vice versa.
pub(crate) struct Catalog<T> {
    inner: RwLock<Snapshot<T>>,
}

pub(crate) struct Snapshot<T> {
    pub(crate) items: Arc<Vec<Arc<T>>>,
    index: Arc<HashMap<String, usize>>,
}

impl<T> Clone for Snapshot<T> {
    fn clone(&self) -> Self {
        Self {
            items: self.items.clone(),
            index: self.index.clone(),
        }
    }
}

impl<T> Snapshot<T> {
    pub(crate) fn get(&self, key: &str) -> Option<&Arc<T>> {
        self.index.get(key).map(|&i| &self.items[i])
    }
}

impl<T> Default for Catalog<T> {
    fn default() -> Self {
        Self {
            inner: RwLock::new(Snapshot {
                items: Arc::new(Vec::new()),
                index: Arc::new(HashMap::new()),
            }),
        }
    }
}

impl<T> Catalog<T> {
    pub(crate) fn snapshot(&self) -> Snapshot<T> {
        self.inner.read().clone()
    }

    pub(crate) fn get(&self, key: &str) -> Option<Arc<T>> {
        // Under the read lock, without cloning the snapshot's two `Arc`s (their counts are
        // shared by every thread serving a call).
        let guard = self.inner.read();
        guard.get(key).cloned()
    }

    pub(crate) fn len(&self) -> usize {
        self.snapshot().items.len()
    }

    /// Adds or replaces the entry under `key`; returns true when one was replaced.
    pub(crate) fn insert(&self, key: String, item: T) -> bool {
        let mut guard = self.inner.write();
        let mut items: Vec<Arc<T>> = guard.items.as_ref().clone();
        let mut index: HashMap<String, usize> = guard.index.as_ref().clone();
        let replaced = match index.get(&key) {
            Some(&i) => {
                items[i] = Arc::new(item);
                true
            }
            None => {
                index.insert(key, items.len());
                items.push(Arc::new(item));
                false
            }
        };
        *guard = Snapshot {
            items: Arc::new(items),
            index: Arc::new(index),
        };
        replaced
    }

    /// Removes the entry under `key`; returns true when there was one.
    pub(crate) fn remove(&self, key: &str, key_of: impl Fn(&T) -> &str) -> bool {
        let mut guard = self.inner.write();
        if !guard.index.contains_key(key) {
            return false;
        }
        let items: Vec<Arc<T>> = guard
            .items
            .iter()
            .filter(|t| key_of(t) != key)
            .cloned()
            .collect();
        let index = items
            .iter()
            .enumerate()
            .map(|(i, t)| (key_of(t).to_owned(), i))
            .collect();
        *guard = Snapshot {
            items: Arc::new(items),
            index: Arc::new(index),
        };
        true
    }
}
