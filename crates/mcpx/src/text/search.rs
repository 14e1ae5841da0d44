//! Which tools match a query: BM25 over tool names, descriptions and server names.
//!
//! `inspect` with a query ranks every cached tool with BM25 (k1 = 1.2, b = 0.75) in its BM25F
//! form: a term's frequency is summed over the fields, each weighted and normalized by that
//! field's length, before saturation. A tool's name counts three times its description (the
//! name says what the tool does; the description also says how), and the server's name once,
//! so `github` finds that server's tools. A query that names a tool puts that tool first: the
//! whole query is the name in any identifier style (`list_issues`, `list issues`,
//! `ListIssues`), or one of its words is the name spelled exactly (`call list_issues`).
//!
//! Text becomes terms the same way for documents and queries: identifier boundaries split,
//! stopwords dropped, light stemming. Results are deterministic: equal scores are ordered by
//! server, then tool.

use std::collections::{HashMap, HashSet};

use super::terms::{terms, words};

/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// BM25's length normalization.
const B: f64 = 0.75;

/// The fields of a tool document, in the order of [`FIELD_WEIGHTS`].
const FIELDS: usize = 3;
/// Weights of the tool name, the description and the server name.
const FIELD_WEIGHTS: [f64; FIELDS] = [3.0, 1.0, 1.0];
const NAME: usize = 0;
const DESCRIPTION: usize = 1;
const SERVER: usize = 2;

/// One tool to index: which server offers it, its name and its description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchDoc<'a> {
    /// The upstream server's name.
    pub server: &'a str,
    /// The tool's name, as the server spells it.
    pub tool: &'a str,
    /// The tool's description (empty if it has none).
    pub description: &'a str,
}

/// A tool that matches a query, with its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The upstream server's name.
    pub server: String,
    /// The tool's name.
    pub tool: String,
    /// The BM25 score, always above 0; higher is better. Scores compare hits of one query only.
    pub score: f32,
}

/// A BM25 index over tool documents; build it once per catalog with [`SearchIndex::new`],
/// query it with [`SearchIndex::search`].
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    docs: Vec<Doc>,
    /// Term → its row in `postings`.
    vocabulary: HashMap<String, usize>,
    /// Per term, the documents holding it, in document order.
    postings: Vec<Vec<Posting>>,
    /// Mean length in terms of each field over all documents.
    mean_len: [f64; FIELDS],
}

/// What the index keeps of a document.
#[derive(Debug, Clone)]
struct Doc {
    server: String,
    tool: String,
    /// The tool name's words joined by `_`, to recognize a query that is the name.
    name_key: String,
    /// Length in terms of each field.
    len: [u32; FIELDS],
}

/// A term's occurrences in one document, per field.
#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    tf: [u32; FIELDS],
}

impl SearchIndex {
    /// Indexes `docs`. Each document is kept, even with a name seen before (the same tool
    /// name on two servers is two documents).
    pub fn new<'a>(docs: impl IntoIterator<Item = SearchDoc<'a>>) -> Self {
        let mut index = Self::default();
        let mut total_len = [0_u64; FIELDS];
        for doc in docs {
            let id = u32::try_from(index.docs.len()).expect("fewer than 2^32 tools");
            let mut fields: [Vec<String>; FIELDS] = Default::default();
            fields[NAME] = terms(doc.tool);
            fields[DESCRIPTION] = terms(doc.description);
            fields[SERVER] = terms(doc.server);

            // Term frequencies of this document, per field. Each term's postings stay in
            // document order whatever order the map yields its terms in.
            let mut tf: HashMap<usize, [u32; FIELDS]> = HashMap::new();
            let mut len = [0_u32; FIELDS];
            for (field, field_terms) in fields.iter().enumerate() {
                len[field] = u32::try_from(field_terms.len()).unwrap_or(u32::MAX);
                total_len[field] += u64::from(len[field]);
                for term in field_terms {
                    tf.entry(index.term_id(term)).or_default()[field] += 1;
                }
            }
            for (term_id, counts) in tf {
                index.postings[term_id].push(Posting {
                    doc: id,
                    tf: counts,
                });
            }
            index.docs.push(Doc {
                server: doc.server.to_owned(),
                tool: doc.tool.to_owned(),
                name_key: words(doc.tool).join("_"),
                len,
            });
        }
        if !index.docs.is_empty() {
            let n = index.docs.len() as f64;
            for (mean, total) in index.mean_len.iter_mut().zip(total_len) {
                *mean = total as f64 / n;
            }
        }
        index
    }

    /// The number of documents indexed.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether no document is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The `limit` best matches of `query`, best first; only hits scoring above 0, so a query
    /// with no known term (or none but stopwords) finds nothing. Equal scores are ordered by
    /// server, then tool name.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        if limit == 0 || self.docs.is_empty() {
            return Vec::new();
        }
        let n = self.docs.len() as f64;
        let mut scores = vec![0.0_f64; self.docs.len()];
        // The most any document can score: no term scores its idf, as tf/(k1+tf) < 1.
        let mut ceiling = 0.0;
        let mut query_terms = terms(query);
        dedup_keep_order(&mut query_terms);
        for term in &query_terms {
            let Some(&term_id) = self.vocabulary.get(term) else {
                continue;
            };
            let postings = &self.postings[term_id];
            let df = postings.len() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            ceiling += idf;
            for posting in postings {
                let doc = &self.docs[posting.doc as usize];
                let tf = self.weighted_tf(doc, posting);
                scores[posting.doc as usize] += idf * tf / (K1 + tf);
            }
        }
        // A tool named by the query outranks every other: its bonus exceeds any BM25 score.
        let name_bonus = ceiling + 1.0;
        let query_key = words(query).join("_");
        // Words of the query that look like identifiers of two words or more (`list_issues`,
        // `getMe`), so that a plain word such as `fetch` is not taken for a tool's name.
        let named: Vec<&str> = query
            .split_whitespace()
            .map(|word| word.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')))
            .filter(|word| words(word).len() > 1)
            .collect();
        for (doc, score) in self.docs.iter().zip(&mut scores) {
            let is_named = (!query_key.is_empty() && doc.name_key == query_key)
                || named
                    .iter()
                    .any(|word| word.eq_ignore_ascii_case(&doc.tool));
            if is_named {
                *score += name_bonus;
            }
        }

        let mut hits: Vec<(f32, &Doc)> = self
            .docs
            .iter()
            .zip(scores)
            .map(|(doc, score)| (score as f32, doc))
            .filter(|(score, _)| *score > 0.0)
            .collect();
        hits.sort_by(|(score_a, a), (score_b, b)| {
            score_b
                .total_cmp(score_a)
                .then_with(|| a.server.cmp(&b.server))
                .then_with(|| a.tool.cmp(&b.tool))
        });
        hits.truncate(limit);
        hits.into_iter()
            .map(|(score, doc)| Hit {
                server: doc.server.clone(),
                tool: doc.tool.clone(),
                score,
            })
            .collect()
    }

    /// BM25F's pseudo term frequency: each field's count, normalized by the field's length
    /// against its mean and weighted.
    fn weighted_tf(&self, doc: &Doc, posting: &Posting) -> f64 {
        (0..FIELDS)
            .filter(|&field| posting.tf[field] > 0)
            .map(|field| {
                let mean = self.mean_len[field];
                let norm = if mean > 0.0 {
                    1.0 - B + B * f64::from(doc.len[field]) / mean
                } else {
                    1.0
                };
                FIELD_WEIGHTS[field] * f64::from(posting.tf[field]) / norm
            })
            .sum()
    }

    /// The row of `term` in `postings`, added if new.
    fn term_id(&mut self, term: &str) -> usize {
        if let Some(&id) = self.vocabulary.get(term) {
            return id;
        }
        let id = self.postings.len();
        self.vocabulary.insert(term.to_owned(), id);
        self.postings.push(Vec::new());
        id
    }
}

/// Removes repeated items, keeping each one's first occurrence in place.
fn dedup_keep_order(items: &mut Vec<String>) {
    let mut seen = HashSet::with_capacity(items.len());
    items.retain(|item| seen.insert(item.clone()));
}
