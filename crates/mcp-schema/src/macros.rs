//! Internal macros: open string enums, constant string tags, and the `HasMeta` impls.

/// An enum over the string values a schema lists, plus `Other(String)` for values this crate
/// does not know, so that a newer peer's value never makes a message fail to parse.
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value not defined by any protocol version this crate knows (kept verbatim).
            ///
            /// Build values with `From<&str>`, which never puts a known value here.
            Other(String),
        }

        impl $name {
            /// Every value defined by the protocol, in schema order.
            pub const KNOWN: &'static [&'static str] = &[$($value),+];

            /// The wire string.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $value, )+
                    Self::Other(s) => s,
                }
            }

            /// True unless this is [`Self::Other`].
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::Other(_))
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $( $value => Self::$variant, )+
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                match s.as_str() {
                    $( $value => Self::$variant, )+
                    _ => Self::Other(s),
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <String as ::serde::Deserialize>::deserialize(deserializer).map(Self::from)
            }
        }
    };
}

/// A zero-sized type that serializes as one constant string and accepts only that string:
/// the `type`, `mode` and `jsonrpc` discriminators of the schema.
macro_rules! tag {
    ($(#[$meta:meta])* $name:ident = $value:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            /// The constant wire value.
            pub const VALUE: &'static str = $value;
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($value)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct TagVisitor;
                impl ::serde::de::Visitor<'_> for TagVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(concat!("the string \"", $value, "\""))
                    }
                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        if v == $value {
                            Ok($name)
                        } else {
                            Err(E::invalid_value(::serde::de::Unexpected::Str(v), &self))
                        }
                    }
                }
                deserializer.deserialize_str(TagVisitor)
            }
        }
    };
}

/// Implements [`crate::HasMeta`] for types with `meta: Option<Meta>` and `extra: Map` fields.
macro_rules! has_meta {
    ($($ty:ty),+ $(,)?) => {
        $(
            impl $crate::meta::HasMeta for $ty {
                fn meta(&self) -> Option<&$crate::meta::Meta> {
                    self.meta.as_ref()
                }
                fn meta_mut(&mut self) -> &mut Option<$crate::meta::Meta> {
                    &mut self.meta
                }
            }
        )+
    };
}

/// Implements [`crate::common::Extensible`] for types with an `extra: Map` field.
macro_rules! extensible {
    ($($ty:ty),+ $(,)?) => {
        $(
            impl $crate::common::Extensible for $ty {
                fn extra(&self) -> &::serde_json::Map<String, ::serde_json::Value> {
                    &self.extra
                }
                fn extra_mut(&mut self) -> &mut ::serde_json::Map<String, ::serde_json::Value> {
                    &mut self.extra
                }
            }
        )+
    };
}

/// Implements [`crate::common::ResultFields`] for result types with `result_type` and `meta`.
macro_rules! result_fields {
    ($($ty:ty),+ $(,)?) => {
        $(
            impl $crate::common::ResultFields for $ty {
                fn result_type(&self) -> Option<&$crate::common::ResultType> {
                    self.result_type.as_ref()
                }
                fn result_type_mut(&mut self) -> &mut Option<$crate::common::ResultType> {
                    &mut self.result_type
                }
            }
        )+
    };
}

/// Implements [`crate::common::CacheHints`] and [`crate::common::ResultFields`] for cacheable
/// results (with `ttl_ms`, `cache_scope`, `result_type` and `meta`).
macro_rules! cache_hints {
    ($($ty:ty),+ $(,)?) => {
        $(
            impl $crate::common::ResultFields for $ty {
                fn result_type(&self) -> Option<&$crate::common::ResultType> {
                    self.result_type.as_ref()
                }
                fn result_type_mut(&mut self) -> &mut Option<$crate::common::ResultType> {
                    &mut self.result_type
                }
                fn cache_hints_mut(&mut self) -> Option<&mut dyn $crate::common::CacheHints> {
                    Some(self)
                }
            }

            impl $crate::common::CacheHints for $ty {
                fn ttl_ms(&self) -> Option<u64> {
                    self.ttl_ms
                }
                fn cache_scope(&self) -> Option<&$crate::common::CacheScope> {
                    self.cache_scope.as_ref()
                }
                fn set_cache_hints(&mut self, ttl_ms: u64, scope: $crate::common::CacheScope) {
                    self.ttl_ms = Some(ttl_ms);
                    self.cache_scope = Some(scope);
                }
            }
        )+
    };
}

/// Deserializes a union from a [`serde_json::Value`] chosen by inspecting the value, so that an
/// unrecognized shape lands in an `Unknown(Value)` variant instead of failing.
macro_rules! value_union_serde {
    ($name:ident, |$v:ident| $pick:expr) => {
        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                let $v = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                let picked: Result<$name, ::serde_json::Error> = $pick;
                picked.map_err(<D::Error as ::serde::de::Error>::custom)
            }
        }
    };
}

pub(crate) use {
    cache_hints, extensible, has_meta, result_fields, string_enum, tag, value_union_serde,
};
