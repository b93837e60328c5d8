//! Pronouns in the question (Engram's query pipeline, stage 3): "what did she decide?"
//! becomes "what did Alice decide?" before any stage searches it.
//!
//! [`find`] reads the pronouns: "he", "she", "him", "her", "his" and the Vietnamese "anh ấy",
//! "cô ấy", "chị ấy", "ông ấy", "bà ấy" stand for a person ([`Fit::Person`]); "it", "they",
//! "them" and "nó" for any entity ([`Fit::Any`]). Matching is by whole word, the English forms
//! in any case except all capitals ("IT", "HE" are acronyms), the Vietnamese ones in lower case
//! or capitalised ("Cô ấy") and with their diacritics ("no" is English).
//!
//! [`resolve`] asks the caller for each pronoun's referent ([`Referent`]) and writes the
//! entity's name in its place. A possessive is replaced by the name alone ("his project" →
//! "Alice project"): the name is what the stages match, and "'s" adds no word they index. A
//! pronoun with no candidate stays as written and is not reported ("it" and "his" are common
//! words); an ambiguous one stays too, and is reported with its candidates.

use crate::text::slice;

/// What a pronoun may stand for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// A person: an entity whose type is `person` ([`is_person`]).
    Person,
    /// Any entity.
    Any,
}

/// A pronoun of the question: its byte span and what it may stand for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pronoun {
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset after its last character.
    pub end: usize,
    /// What it may stand for.
    pub fit: Fit,
}

/// What a pronoun stands for, as the caller knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Referent {
    /// No fitting entity: the pronoun stays and is not reported.
    Nobody,
    /// The most recent fitting entity's name.
    One(String),
    /// Two or more fitting entities with no recency order between them.
    Ambiguous(Vec<String>),
}

/// One pronoun as it was resolved (the answer's `query.pronouns`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// The pronoun as written.
    pub pronoun: String,
    /// The entity it now names; `None` when ambiguous.
    pub entity: Option<String>,
    /// The candidates when ambiguous (the pronoun was left alone), else empty.
    pub ambiguous: Vec<String>,
}

/// Whether an entity type names a person: `person`, in any case.
pub fn is_person(kind: Option<&str>) -> bool {
    kind.is_some_and(|k| k.trim().eq_ignore_ascii_case("person"))
}

/// The words of `text` as byte spans: maximal runs of the tokenizer's token characters
/// ([`crate::text::is_token_char`]: letters, digits, marks).
fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (crate::text::is_token_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// What a one-word pronoun may stand for: the English forms in any case but all capitals
/// ("IT" is an acronym), "nó" in lower case or capitalised. Compared as bytes: no Unicode
/// case tables in the wasm.
fn one_word(word: &str) -> Option<Fit> {
    let mut folded = [0u8; 4];
    let bytes = word.as_bytes();
    if bytes.len() > 4 || bytes.len() > 1 && !bytes.iter().any(u8::is_ascii_lowercase) {
        return None;
    }
    for (f, b) in folded.iter_mut().zip(bytes) {
        *f = b.to_ascii_lowercase();
    }
    match &folded[..bytes.len()] {
        b"he" | b"she" | b"him" | b"her" | b"his" => Some(Fit::Person),
        // "nó": n, then ó (U+00F3) in UTF-8.
        b"it" | b"they" | b"them" | [b'n', 0xC3, 0xB3] => Some(Fit::Any),
        _ => None,
    }
}

/// Whether `word` opens a Vietnamese person form ("anh ấy"), lower case or capitalised.
fn vietnamese_person(word: &str) -> bool {
    matches!(
        word,
        "anh" | "Anh" | "cô" | "Cô" | "chị" | "Chị" | "ông" | "Ông" | "bà" | "Bà"
    )
}

/// The pronouns of `text`, in order (module doc).
pub fn find(text: &str) -> Vec<Pronoun> {
    let spans = words(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < spans.len() {
        let (start, end) = spans[i];
        let word = slice(text, start..end);
        // "anh ấy": two words with only spacing between them.
        let next = (spans.get(i + 1)).filter(|&&(s, e)| {
            slice(text, end..s).trim().is_empty() && matches!(slice(text, s..e), "ấy" | "Ấy")
        });
        let fit = match next {
            Some(&(_, e)) if vietnamese_person(word) => {
                i += 1;
                Some((e, Fit::Person))
            }
            _ => one_word(word).map(|fit| (end, fit)),
        };
        out.extend(fit.map(|(end, fit)| Pronoun { start, end, fit }));
        i += 1;
    }
    out
}

/// `text` with each pronoun replaced by its referent's name (module doc), and what became of
/// each pronoun that had a candidate; `None` when no pronoun had one. `referent` is asked
/// once per [`Fit`].
#[inline(never)]
pub fn resolve(
    text: &str,
    mut referent: impl FnMut(Fit) -> Referent,
) -> Option<(String, Vec<Resolution>)> {
    let mut out = String::with_capacity(text.len());
    let mut resolved = Vec::new();
    let mut at = 0;
    // Asked once per kind of pronoun, however many the question holds.
    let mut known: [Option<Referent>; 2] = [None, None];
    for p in find(text) {
        let pronoun = slice(text, p.start..p.end).to_owned();
        let slot = &mut known[usize::from(p.fit == Fit::Any)];
        match slot.get_or_insert_with(|| referent(p.fit)).clone() {
            Referent::Nobody => continue,
            Referent::One(name) => {
                out.push_str(slice(text, at..p.start));
                out.push_str(&name);
                at = p.end;
                resolved.push(Resolution {
                    pronoun,
                    entity: Some(name),
                    ambiguous: Vec::new(),
                });
            }
            Referent::Ambiguous(names) => resolved.push(Resolution {
                pronoun,
                entity: None,
                ambiguous: names,
            }),
        }
    }
    if resolved.is_empty() {
        return None;
    }
    out.push_str(slice(text, at..));
    Some((out, resolved))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(&str, Fit)> {
        let list = find(text);
        list.iter()
            .map(|p| (&text[p.start..p.end], p.fit))
            .collect()
    }

    #[test]
    fn reads_english_and_vietnamese_pronouns_by_whole_word() {
        assert_eq!(
            found("What did She say to him about it? They know."),
            [
                ("She", Fit::Person),
                ("him", Fit::Person),
                ("it", Fit::Any),
                ("They", Fit::Any)
            ]
        );
        assert_eq!(
            found("anh ấy nói gì với nó? Cô  ấy"),
            [
                ("anh ấy", Fit::Person),
                ("nó", Fit::Any),
                ("Cô  ấy", Fit::Person)
            ]
        );
        // Not pronouns: parts of words, an acronym, Vietnamese without its marks, "anh" alone.
        assert!(found("the hero hits items; IT said no; anh ay; anh Nam").is_empty());
        assert_eq!(found("his"), [("his", Fit::Person)]);
    }

    #[test]
    fn replaces_resolved_pronouns_and_leaves_ambiguous_and_unknown_ones() {
        let person = |fit| match fit {
            Fit::Person => Referent::One("Alice".into()),
            Fit::Any => Referent::Nobody,
        };
        let (text, report) =
            resolve("what did she decide about his project and it?", person).expect("resolved");
        assert_eq!(text, "what did Alice decide about Alice project and it?");
        assert_eq!(report.len(), 2);
        assert_eq!(report[0].entity.as_deref(), Some("Alice"));
        let ambiguous = |_| Referent::Ambiguous(vec!["Alice".into(), "Bob".into()]);
        let (text, report) = resolve("what did he say?", ambiguous).unwrap();
        assert_eq!(text, "what did he say?");
        assert_eq!(report[0].ambiguous, ["Alice", "Bob"]);
        assert_eq!(report[0].entity, None);
        assert_eq!(resolve("is it raining?", |_| Referent::Nobody), None);
        assert_eq!(resolve("no pronoun here", person), None);
        assert!(is_person(Some(" Person ")) && !is_person(Some("project")) && !is_person(None));
    }

    #[test]
    fn the_referent_is_asked_once_per_kind_of_pronoun() {
        let mut asked = Vec::new();
        let (text, report) = resolve("he, him, it, his, they", |fit| {
            asked.push(fit);
            Referent::One(format!("{fit:?}"))
        })
        .unwrap();
        assert_eq!(asked, [Fit::Person, Fit::Any]);
        assert_eq!(text, "Person, Person, Any, Person, Any");
        assert_eq!(report.len(), 5);
    }
}
