//! The terms a text is searched by: words cut at identifier boundaries, lowercased, without
//! stopwords, lightly stemmed.
//!
//! `list_pull_requests`, `getFileContents` and `pull-request` all split into their words, so a
//! query in plain English meets tool names in any identifier style. Stemming is a handful of
//! suffix rules (plural `s`/`es`/`ies`, `ing`, `ed`, a final `e`) applied the same way to tool
//! text and queries: `created`, `creates`, `creating` and `create` all become `creat`. The
//! rules are deliberately few, so the results stay predictable.

/// English words too common to tell tools apart: articles, pronouns, prepositions,
/// conjunctions, auxiliaries, and the `s`/`t` left by splitting `issue's` or `don't`.
pub(super) const STOPWORDS: &[&str] = &[
    "a", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "do", "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into",
    "is", "it", "its", "me", "my", "of", "on", "or", "our", "s", "should", "so", "t", "than",
    "that", "the", "their", "them", "then", "there", "these", "this", "those", "to", "too", "us",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "will", "with", "would",
    "you", "your",
];

/// The search terms of `text`, in order, repeats kept: [`words`] minus stopwords, stemmed.
pub(super) fn terms(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|word| !is_stopword(word))
        .map(|word| stem(&word))
        .collect()
}

/// The lowercase words of `text`: runs of letters and digits, also cut where the case changes
/// inside a run (`getFileContents` → get, file, contents; `HTTPServer` → http, server). A
/// trailing lowercase `s` stays with the capitals before it (`IDs` → ids).
pub(super) fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for run in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|run| !run.is_empty())
    {
        let chars: Vec<char> = run.chars().collect();
        let mut word = String::new();
        for (i, &c) in chars.iter().enumerate() {
            if i > 0 && !word.is_empty() && starts_word(&chars, i) {
                words.push(std::mem::take(&mut word));
            }
            word.extend(c.to_lowercase());
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    words
}

/// Whether `chars[i]` (with `i > 0`) starts a new word of a camelCase or PascalCase run: an
/// upper-case letter after a lower-case one (`getFile`), or the last capital of an acronym
/// that is followed by a lower-case word (`HTTPServer`), but not by a lone plural `s` (`IDs`).
fn starts_word(chars: &[char], i: usize) -> bool {
    let c = chars[i];
    if !c.is_uppercase() {
        return false;
    }
    let prev = chars[i - 1];
    if prev.is_lowercase() {
        return true;
    }
    match chars.get(i + 1) {
        Some(&next) if next.is_lowercase() => {
            let plural_s = next == 's' && i + 2 == chars.len();
            !plural_s
        }
        _ => false,
    }
}

/// Whether `word` (lowercase) is on the stopword list.
pub(super) fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

/// The stem of a lowercase `word`. Only words of ASCII letters are stemmed, and only those of
/// three letters or more; anything else is returned as it is.
///
/// In order: `ies` → `y` and a plural `s` is dropped (not after `s`, `u` or `i`: `class`,
/// `status`, `analysis`); then `ied` → `y`, or `ed` / `ing` is dropped when what is left
/// holds a vowel (`string` and `need` stay), undoubling a final consonant other than `l`, `s`,
/// `z` (`getting` → get, `committed` → commit, but `add` stays); finally a trailing `e` is
/// dropped, so that `merge`, `merges`, `merged` and `merging` meet at `merg`.
pub(super) fn stem(word: &str) -> String {
    if word.len() < 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_owned();
    }
    let mut w = word.to_owned();
    // Plurals.
    if w.len() > 4 && w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.ends_with('s') && !(w.ends_with("ss") || w.ends_with("us") || w.ends_with("is")) {
        w.pop();
    }
    // Past tense and gerund.
    if w.len() > 4 && w.ends_with("ied") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.ends_with("ed") && !w.ends_with("eed") {
        strip_verb_suffix(&mut w, 2);
    } else if w.ends_with("ing") {
        strip_verb_suffix(&mut w, 3);
    }
    if w.len() >= 3 && w.ends_with('e') {
        w.pop();
    }
    w
}

/// Drops the last `suffix_len` letters of `w` when at least two letters with a vowel remain,
/// then undoubles a final double consonant (not `l`, `s`, `z`) when four letters remain.
fn strip_verb_suffix(w: &mut String, suffix_len: usize) {
    let stem = &w[..w.len() - suffix_len];
    if stem.len() < 2 || !stem.bytes().any(|b| b"aeiouy".contains(&b)) {
        return;
    }
    w.truncate(stem.len());
    let bytes = w.as_bytes();
    let n = bytes.len();
    if n >= 4 && bytes[n - 1] == bytes[n - 2] && !b"aeiouylsz".contains(&bytes[n - 1]) {
        w.pop();
    }
}
