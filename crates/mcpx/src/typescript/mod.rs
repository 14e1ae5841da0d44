//! JSON Schema → TypeScript types, the compact form of tool schemas shown to the model.
//!
//! The model reads the type to build a tool's arguments, so the type keeps everything a caller
//! needs to build valid arguments (every property, its type and whether it is required, every
//! literal, every constraint) and spends as few o200k tokens as it can on the rest.
//!
//! ```
//! use mcpx::typescript::{TsOptions, to_typescript};
//!
//! let schema = serde_json::json!({
//!     "type": "object",
//!     "properties": {
//!         "path": {"type": "string", "description": "File to read."},
//!         "page": {"type": "integer", "minimum": 1, "default": 1},
//!         "mode": {"enum": ["text", "binary"]},
//!     },
//!     "required": ["path"],
//! });
//! let expected = "{\npath:string // File to read.\n\
//!                 page?:number // int, default: 1, >=1\n\
//!                 mode?:\"text\"|\"binary\"\n}";
//! assert_eq!(to_typescript(&schema, &TsOptions::default()), expected);
//! ```
//!
//! That is:
//!
//! ```text
//! {
//! path:string // File to read.
//! page?:number // int, default: 1, >=1
//! mode?:"text"|"binary"
//! }
//! ```
//!
//! # The format
//!
//! Every choice below was measured with o200k on GitHub's 117-tool catalog; the golden test
//! (`tests/typescript_golden.rs`) prints the totals.
//!
//! - No optional spaces: `{owner:string,page?:number}`, `"a"|"b"`, `A&B`. `:string` and
//!   `,name` are often one token where `: string` and `, name` are two; `;` costs as much as `,`
//!   and `,` reads like the JSON the model writes. (A literal union still costs about a token
//!   per value more than a JSON array; `[…][number]` would save 1% and read worse.)
//! - An object with a documented member takes one line per member, the comment after it:
//!   `page?:number // Page number. >=1`. The line break is the separator, so a comment costs one
//!   token (` //`) beside its text, where `/** … */` costs two. When the member's type itself
//!   takes several lines, the comment is the line before. Other objects take one line.
//! - Types: `string`, `number`, `boolean`, `null`; `integer` is `number` with an `int` note;
//!   no type (or `true`) is `any`, `false` is `never`; `T[]`; tuples `[A,B?,...C[]]` from
//!   `prefixItems` or a draft 7 `items` array (elements past `minItems` are optional, the rest
//!   is `...T[]` unless `items`/`additionalItems` is `false` or `maxItems` closes it); `enum`
//!   and `const` as literal unions (`"a"|1|null`); `anyOf`/`oneOf` as `A|B`, `allOf` as `A&B`,
//!   parenthesized only where precedence needs it (`(A|B)[]`); type arrays and OpenAPI's
//!   `nullable: true` as `|null`. Without `type`, object keywords make an object and array
//!   keywords an array.
//! - Objects: properties in document order (the workspace builds serde_json with
//!   `preserve_order`), `?` when not
//!   `required`, names quoted as JSON when not identifiers; `additionalProperties` (a schema,
//!   or `true` beside members) and each of `patternProperties` as `[k:string]:T`, the pattern
//!   in the member's comment. `additionalProperties: false` adds nothing: listed members are
//!   what to send either way. An object with no listed member is `object` (anything) unless
//!   `additionalProperties` is `false` (`{}`). A required name without a property schema is a
//!   member of type `any` (or of the `additionalProperties` type).
//! - `$ref`s inside the document (`#`, `#/$defs/X`, `#/definitions/X`, JSON pointer escapes,
//!   percent-encoding, `$anchor`s, the root's own `$id`) are written out in place. A recursive
//!   schema, or one several `$ref`s share when naming it is shorter, becomes an alias: the
//!   `type X = …;` lines come first, then the root type. A reference to another document, or to
//!   nothing, is `any` with a `ref:` note naming it; nothing is ever fetched.
//! - Comments say the description (else the title) on one line, cut at
//!   [`TsOptions::max_description_len`] characters with `…` (after a whole sentence or word
//!   when one keeps half the length), then notes for what the type cannot say: `int`,
//!   `default: …` (cut at 40 characters), `>=1`, `<=100`, `>0`, `<1`, `multipleOf`,
//!   `minLength`, `maxLength`, `pattern`, `format`, `encoding`, `mediaType`, `minItems` and
//!   `maxItems` (unless the tuple shows them), `minProperties`, `maxProperties`, `minContains`,
//!   `maxContains`, `uniqueItems`, `deprecated`, `readOnly` (the caller should not send it).
//!   `not`, `if`/`then`/`else`, `dependentRequired`, `dependentSchemas` (and draft 7
//!   `dependencies`), `contains` and `propertyNames` are notes too, their subschemas written as
//!   one-line types with their own notes in parentheses. Notes stay when descriptions are
//!   dropped: they are needed to build valid arguments. `*/` in any text is written `*\/`.
//! - Left out, as not needed to build valid arguments: `examples` (long), a title beside a
//!   description, `writeOnly`, `$comment`, `discriminator` (the union's literals say it),
//!   `unevaluatedItems`, and keywords this module does not know.
//! - Malformed schemas never panic and always end: values of the wrong type are ignored,
//!   schemas nested more than 32 levels below the root are `any` (a `$ref` met there is named
//!   instead, so reference chains lose nothing), and literals nested deeper than 64 levels are
//!   `any`. The output is deterministic.
//!
//! # Size
//!
//! On GitHub's catalog the types with the default options take 58% of the o200k tokens of the
//! schemas' compact JSON (median tool 56%), 23% without descriptions, 72% with whole
//! descriptions. Descriptions are prose, copied as they are: at 120 characters their text
//! alone is a third of the JSON's tokens, so 50% needs them cut at about 58 characters.

mod aliases;
mod comments;
mod print;
mod refs;
mod render;

use serde_json::Value;

/// Options of the conversion.
#[derive(Debug, Clone)]
pub struct TsOptions {
    /// Longest description kept in a comment, in characters; longer ones are cut with `…`.
    /// 0 drops descriptions (constraint notes stay).
    pub max_description_len: usize,
}

impl Default for TsOptions {
    /// 120 characters: a sentence or two. Most parameter descriptions fit whole (86% of the
    /// 656 in GitHub's catalog; half are 43 characters or fewer), and the first sentences of
    /// the long ones often say what a valid call needs ("Required when state_reason is
    /// 'duplicate'"). Cutting at about 58 characters would bring the catalog to half the JSON's
    /// tokens, at the cost of most of those.
    fn default() -> Self {
        Self {
            max_description_len: 120,
        }
    }
}

/// The TypeScript type of `schema`: `type X = …;` lines for named schemas, if any, then the
/// type. Never panics and always ends, whatever the value.
pub fn to_typescript(schema: &Value, options: &TsOptions) -> String {
    let aliases = aliases::plan(schema, options.max_description_len);
    let mut renderer = render::Renderer::new(schema, options.max_description_len, aliases);
    let root = renderer.root_type();
    let mut out = String::new();
    let mut index = 0;
    while let Some((name, body)) = renderer.alias(index) {
        out.push_str(&print::declaration(Some(&name), body));
        out.push('\n');
        index += 1;
    }
    out.push_str(&print::declaration(None, root));
    out
}

#[cfg(test)]
mod tests;
