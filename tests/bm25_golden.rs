//! Golden test: recallkit's BM25 ranks like SQLite FTS5's `bm25()`.
//!
//! `tests/golden/bm25/bm25_golden.txt` holds a generated corpus (2,400 texts), 300 OR-queries
//! and, for each query, SQLite's match count and top 50 `(rowid, -bm25)`, from
//! `fts5(body, tokenize='porter unicode61 remove_diacritics 2')` (the generator,
//! `gen_bm25_golden.py` beside it, records its seed, parameters and SQLite version; rerun it
//! with `python3 tests/golden/bm25/gen_bm25_golden.py` and review the diff). It also holds
//! SQLite's own token sequence for every text and query.
//!
//! The index is built twice: from `recallkit::text::for_each_term` (the full pipeline, the
//! test that matters), and from SQLite's tokens (which isolates BM25 from tokenisation). For
//! each query: the match counts are equal, every golden score agrees within
//! [`RELATIVE_EPSILON`], and the top 10 are in the same order (ties by ascending rowid).

use std::collections::HashMap;

use recallkit::index::bm25::{self, Bm25Params};
use recallkit::index::postings::InvertedIndex;
use recallkit::store::DocId;

/// Allowed relative score difference. The implementation is in fact bit-exact on x86-64;
/// the margin leaves room for a different `ln` (wasm's libm).
const RELATIVE_EPSILON: f64 = 1e-9;
/// Leading ranks whose order must be identical.
const ORDER_CHECKED: usize = 10;
/// Failures printed before giving up.
const MAX_REPORTED: usize = 20;

struct Golden {
    texts: Vec<String>,
    text_tokens: Vec<Vec<String>>,
    queries: Vec<Query>,
}

struct Query {
    text: String,
    tokens: Vec<String>,
    matches: usize,
    hits: Vec<(u32, f64)>,
}

fn load() -> Golden {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/bm25/bm25_golden.txt"
    );
    let data = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let mut golden = Golden {
        texts: Vec::new(),
        text_tokens: Vec::new(),
        queries: Vec::new(),
    };
    for (n, line) in data.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let mut fields = line.splitn(3, ' ');
        let (kind, id, rest) = (
            fields.next().unwrap_or(""),
            fields.next().unwrap_or(""),
            fields.next().unwrap_or(""),
        );
        let id: usize = id
            .parse()
            .unwrap_or_else(|_| panic!("line {}: bad id in {line:?}", n + 1));
        let expect_next = |len: usize| assert_eq!(id, len, "line {}: ids out of order", n + 1);
        match kind {
            "doc" => {
                expect_next(golden.texts.len());
                golden.texts.push(unescape(rest));
            }
            "tokens" => {
                expect_next(golden.text_tokens.len());
                golden.text_tokens.push(split_tokens(rest));
            }
            "query" => {
                expect_next(golden.queries.len());
                golden.queries.push(Query {
                    text: rest.to_owned(),
                    tokens: Vec::new(),
                    matches: 0,
                    hits: Vec::new(),
                });
            }
            "qtokens" => golden.queries[id].tokens = split_tokens(rest),
            "matches" => golden.queries[id].matches = rest.parse().expect("match count"),
            "hit" => {
                let (rowid, score) = rest.split_once(' ').expect("hit has rowid and score");
                let hit = (rowid.parse().expect("rowid"), score.parse().expect("score"));
                golden.queries[id].hits.push(hit);
            }
            _ => panic!("line {}: unknown record {kind:?}", n + 1),
        }
    }
    assert_eq!(golden.texts.len(), golden.text_tokens.len());
    golden
}

fn split_tokens(field: &str) -> Vec<String> {
    field
        .split(' ')
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Reverses the generator's escaping of `\`, newline, carriage return and tab.
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            other => panic!("bad escape \\{other:?} in {field:?}"),
        }
    }
    out
}

fn analyse(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    recallkit::text::for_each_term(text, |term| terms.push(term.to_owned()));
    terms
}

fn build(docs: &[Vec<String>], order: impl IntoIterator<Item = usize>) -> InvertedIndex {
    let mut index = InvertedIndex::new();
    for i in order {
        let terms = docs[i].iter().map(String::as_str);
        index.insert(DocId(i as u32), terms).expect("fresh id");
    }
    index
}

/// Compares every golden query; panics listing the failures. Returns (queries, scores
/// compared, scores bit-equal).
fn compare(index: &InvertedIndex, golden: &Golden, query_terms: &[Vec<String>]) -> [usize; 3] {
    let params = Bm25Params::default();
    let mut failures = Vec::new();
    let (mut compared, mut exact) = (0, 0);
    for (query, terms) in golden.queries.iter().zip(query_terms) {
        let terms: Vec<&str> = terms.iter().map(String::as_str).collect();
        let all = bm25::search(index, &terms, &params, usize::MAX, |_| true);
        let mut fail = |what: String| {
            failures.push(format!("query {:?} (terms {terms:?}): {what}", query.text));
        };
        let counted = bm25::count_matches(index, &terms, |_| true);
        if all.len() != query.matches || counted != query.matches {
            fail(format!(
                "{} matches (count_matches {counted}), FTS5 has {}",
                all.len(),
                query.matches
            ));
            continue;
        }
        let top = bm25::search(index, &terms, &params, ORDER_CHECKED, |_| true);
        if top[..] != all[..top.len()] {
            fail("top-10 search differs from the head of the full search".into());
        }
        let order: Vec<u32> = top.iter().map(|s| s.doc.0).collect();
        let expected: Vec<u32> = query.hits.iter().take(ORDER_CHECKED).map(|h| h.0).collect();
        if order != expected {
            fail(format!("top-10 order {order:?}, FTS5 has {expected:?}"));
        }
        let scores: HashMap<u32, f64> = all.iter().map(|s| (s.doc.0, s.score)).collect();
        for &(rowid, score) in &query.hits {
            compared += 1;
            match scores.get(&rowid) {
                Some(&ours) if ours == score => exact += 1,
                Some(&ours) if (ours - score).abs() <= RELATIVE_EPSILON * score.abs() => {}
                ours => fail(format!("rowid {rowid} scores {ours:?}, FTS5 has {score:?}")),
            }
        }
    }
    if !failures.is_empty() {
        let shown = failures.len().min(MAX_REPORTED);
        panic!(
            "{} failures against FTS5, first {shown}:\n{}",
            failures.len(),
            failures[..shown].join("\n")
        );
    }
    println!(
        "{} queries over {} docs: {compared} scores compared, {exact} bit-equal",
        golden.queries.len(),
        golden.texts.len()
    );
    [golden.queries.len(), compared, exact]
}

#[test]
fn bm25_equals_fts5_through_the_text_pipeline() {
    let golden = load();
    let docs: Vec<Vec<String>> = golden.texts.iter().map(|t| analyse(t)).collect();
    let index = build(&docs, 0..docs.len());
    let queries: Vec<Vec<String>> = golden.queries.iter().map(|q| analyse(&q.text)).collect();
    let [queries, compared, _] = compare(&index, &golden, &queries);
    assert!(queries >= 200 && compared >= 5_000);
}

#[test]
fn bm25_equals_fts5_on_sqlite_tokens() {
    let golden = load();
    let index = build(&golden.text_tokens, 0..golden.text_tokens.len());
    assert_eq!(index.doc_count() as usize, golden.texts.len());
    let queries: Vec<Vec<String>> = golden.queries.iter().map(|q| q.tokens.clone()).collect();
    let [_, compared, exact] = compare(&index, &golden, &queries);
    assert_eq!(
        exact, compared,
        "scores are expected to be bit-equal to FTS5"
    );
}

#[test]
fn bm25_equals_fts5_after_out_of_order_inserts_and_updates() {
    let golden = load();
    let docs = &golden.text_tokens;
    let mut index = build(docs, (0..docs.len()).rev());
    // Update every seventh document: remove it, index another text, then restore it.
    let other = &docs[docs.len() / 2];
    for i in (0..docs.len()).step_by(7) {
        let id = DocId(i as u32);
        assert!(index.remove(id, docs[i].iter().map(String::as_str)));
        index
            .insert(id, other.iter().map(String::as_str))
            .expect("removed id");
    }
    for i in (0..docs.len()).step_by(7).rev() {
        let id = DocId(i as u32);
        assert!(index.remove(id, other.iter().map(String::as_str)));
        index
            .insert(id, docs[i].iter().map(String::as_str))
            .expect("removed id");
    }
    let queries: Vec<Vec<String>> = golden.queries.iter().map(|q| q.tokens.clone()).collect();
    compare(&index, &golden, &queries);
}

#[test]
fn text_pipeline_yields_fts5_tokens_for_every_golden_text() {
    let golden = load();
    let mut mismatches = Vec::new();
    for (i, (text, expected)) in golden.texts.iter().zip(&golden.text_tokens).enumerate() {
        let ours = analyse(text);
        if &ours != expected {
            mismatches.push(format!(
                "doc {i} {text:?}:\n  ours {ours:?}\n  FTS5 {expected:?}"
            ));
        }
    }
    for query in &golden.queries {
        if analyse(&query.text) != query.tokens {
            mismatches.push(format!("query {:?}: FTS5 {:?}", query.text, query.tokens));
        }
    }
    let shown = mismatches.len().min(MAX_REPORTED);
    assert!(
        mismatches.is_empty(),
        "{} texts tokenise differently from FTS5, first {shown}:\n{}",
        mismatches.len(),
        mismatches[..shown].join("\n")
    );
}
