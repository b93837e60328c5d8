//! [`TermList`]: a reusable list of short strings in one buffer, so analysing a text for
//! several indexes costs no allocation per term once the buffers have grown.
//!
//! [`analyse`] fills two of them from one pass over a text: the folded tokens and the porter
//! terms (exactly what [`for_each_token`](super::for_each_token) and
//! [`for_each_term`](super::for_each_term) give, in the same order).

use super::porter::Stemmer;
use super::{term_of_token, tokenize};

/// An ordered list of strings stored back to back in one `String`, with one end offset each.
///
/// ```
/// use recallkit::text::TermList;
/// let mut list = TermList::new();
/// list.push("deploy");
/// list.push("friday");
/// assert_eq!(list.iter().collect::<Vec<_>>(), ["deploy", "friday"]);
/// list.clear();
/// assert!(list.is_empty());
/// ```
#[derive(Debug, Clone, Default)]
pub struct TermList {
    text: String,
    ends: Vec<usize>,
}

impl TermList {
    /// An empty list (allocates nothing).
    pub fn new() -> Self {
        Self::default()
    }

    /// Removes every item, keeping the buffers.
    pub fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }

    /// Appends `item`.
    pub fn push(&mut self, item: &str) {
        self.text.push_str(item);
        self.ends.push(self.text.len());
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the list has no item.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The items, in the order they were pushed.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            text: &self.text,
            ends: self.ends.iter(),
            start: 0,
        }
    }
}

/// Iterator over the items of a [`TermList`].
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    text: &'a str,
    ends: std::slice::Iter<'a, usize>,
    start: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let end = *self.ends.next()?;
        let item = super::slice(self.text, self.start..end);
        self.start = end;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ends.size_hint()
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a TermList {
    type Item = &'a str;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Tokenises `text` once and replaces the contents of `tokens` with its folded tokens
/// ([`for_each_token`](super::for_each_token)) and of `terms` with its porter terms
/// ([`for_each_term`](super::for_each_term)), both in text order.
///
/// ```
/// use recallkit::text::{analyse, Stemmer, TermList};
/// let (mut tokens, mut terms) = (TermList::new(), TermList::new());
/// analyse("Running dogs", &mut Stemmer::new(), &mut tokens, &mut terms);
/// assert_eq!(tokens.iter().collect::<Vec<_>>(), ["running", "dogs"]);
/// assert_eq!(terms.iter().collect::<Vec<_>>(), ["run", "dog"]);
/// ```
pub fn analyse(text: &str, stemmer: &mut Stemmer, tokens: &mut TermList, terms: &mut TermList) {
    tokens.clear();
    terms.clear();
    tokenize::for_each_token(text, |token| {
        tokens.push(token);
        terms.push(&term_of_token(token, stemmer));
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::MAX_TERM_BYTES;

    #[test]
    fn analyse_equals_the_two_separate_passes() {
        let long = format!("{}ж tail", "x".repeat(MAX_TERM_BYTES - 1));
        let texts = [
            "",
            " ?! ",
            "The Crème Brûlée was RUNNING away, it's e-mail v2.0.1",
            "東京タワー Straße hopping a\u{1041}\u{1041}ed",
            long.as_str(),
        ];
        let (mut tokens, mut terms) = (TermList::new(), TermList::new());
        let mut stemmer = Stemmer::new();
        for text in texts {
            analyse(text, &mut stemmer, &mut tokens, &mut terms);
            assert_eq!(
                tokens.iter().collect::<Vec<_>>(),
                super::super::tokens(text)
            );
            assert_eq!(terms.iter().collect::<Vec<_>>(), super::super::terms(text));
            assert_eq!(tokens.iter().len(), terms.len());
        }
    }
}
