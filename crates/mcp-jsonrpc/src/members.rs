//! Member names repeated within one JSON object, at any depth: JSON (RFC 8259) leaves their
//! meaning open and parsers disagree (the last one wins here, the first elsewhere), so a
//! message carrying them could mean one thing to one component and another to the next.
//!
//! One pass over the text with serde, no tree built; keys without escapes are borrowed.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The path (`a.b[2].c`) of the first member name repeated within one object of `json`, or
/// `None` when there is none (or `json` is not JSON, which the caller reports otherwise).
pub(crate) fn repeated_member(json: &str) -> Option<String> {
    let found = RefCell::new(None);
    let path = RefCell::new(Vec::new());
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let walk = Walk {
        found: &found,
        path: &path,
    };
    let _ = walk.deserialize(&mut deserializer);
    found.into_inner()
}

/// One step of the path to where the walk is.
enum Step<'de> {
    Member(Cow<'de, str>),
    Item(usize),
}

struct Walk<'a, 'de> {
    found: &'a RefCell<Option<String>>,
    path: &'a RefCell<Vec<Step<'de>>>,
}

impl Walk<'_, '_> {
    fn copy(&self) -> Self {
        Self {
            found: self.found,
            path: self.path,
        }
    }

    /// Records the repeated `name` where the walk is, and the error that stops it.
    fn repeated<E: de::Error>(&self, name: &str) -> E {
        let mut shown = String::new();
        for step in self.path.borrow().iter() {
            match step {
                Step::Member(m) => {
                    if !shown.is_empty() {
                        shown.push('.');
                    }
                    shown.push_str(m);
                }
                Step::Item(i) => shown.push_str(&format!("[{i}]")),
            }
        }
        if !shown.is_empty() {
            shown.push('.');
        }
        shown.push_str(name);
        *self.found.borrow_mut() = Some(shown);
        E::custom("repeated member")
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// Objects with at most this many members are checked by comparing names; larger ones
/// through a hash set.
const LINEAR: usize = 16;

impl<'de> Visitor<'de> for Walk<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        loop {
            self.path.borrow_mut().push(Step::Item(index));
            let item = seq.next_element_seed(self.copy());
            self.path.borrow_mut().pop();
            if item?.is_none() {
                return Ok(());
            }
            index += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut names: Vec<Cow<'de, str>> = Vec::new();
        let mut many: Option<HashSet<Cow<'de, str>>> = None;
        while let Some(Key(name)) = map.next_key()? {
            let repeated = match &mut many {
                Some(set) => !set.insert(name.clone()),
                None => {
                    let repeated = names.contains(&name);
                    names.push(name.clone());
                    if names.len() > LINEAR {
                        many = Some(names.drain(..).collect());
                    }
                    repeated
                }
            };
            if repeated {
                return Err(self.repeated(&name));
            }
            self.path.borrow_mut().push(Step::Member(name));
            let value = map.next_value_seed(self.copy());
            self.path.borrow_mut().pop();
            value?;
        }
        Ok(())
    }
}

/// A member name, borrowed from the text when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::repeated_member;

    #[test]
    fn repeated_names_are_found_with_their_path() {
        assert_eq!(repeated_member(r#"{"a": 1, "b": 2}"#), None);
        assert_eq!(repeated_member(r#"{"a": 1, "a": 2}"#).as_deref(), Some("a"));
        assert_eq!(
            repeated_member(
                r#"{"name": "x", "arguments": {"p": 1, "q": [{"r": 1}, {"r": 2, "r": 3}]}}"#
            )
            .as_deref(),
            Some("arguments.q[1].r")
        );
        // Escapes spell the same name.
        assert_eq!(
            repeated_member(r#"{"a\u0062": 1, "ab": 2}"#).as_deref(),
            Some("ab")
        );
        // The same name in sibling objects is fine.
        assert_eq!(repeated_member(r#"[{"a": 1}, {"a": 2}]"#), None);
        // Many members: the hash set takes over.
        let many: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
        let text = format!("{{{}, \"k7\": 0}}", many.join(","));
        assert_eq!(repeated_member(&text).as_deref(), Some("k7"));
        assert_eq!(repeated_member("not json"), None);
    }
}
