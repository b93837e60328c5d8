#!/usr/bin/env python3
"""Generate tests/golden/bm25/bm25_golden.txt: SQLite FTS5 bm25() rankings that
tests/bm25_golden.rs compares recallkit's BM25 against.

Usage: python3 tests/golden/bm25/gen_bm25_golden.py   (needs `pip install pysqlite3`:
SQLite >= 3.51; the system `sqlite3` module is older and is not used).

Everything is deterministic: the corpus and the queries come from random.Random(SEED), and
the output records SEED, the parameters and the SQLite version. Rerun the script and review
the diff after changing anything here.

Steps:
1. build a corpus of varied texts (diacritics, Vietnamese, Greek, Cyrillic, CJK, NFD forms,
   punctuation, numbers, repeated words, empty texts, 1- to 200-word texts, mixed case,
   words that stem together);
2. index it in `fts5(body, tokenize='porter unicode61 remove_diacritics 2')`, rowid = index;
3. read back every document's tokens (fts5vocab 'instance' table), so that the Rust test can
   check its tokeniser and, independently, its BM25 on SQLite's own tokens;
4. build queries of 1 to 8 plain words (letters/digits only, each one token), written as the
   OR of quoted words, and record the match count and the top TOP (rowid, score) of
   `SELECT rowid, -bm25(docs) ... ORDER BY bm25(docs), rowid`;
5. recompute every score in Python from the tokens with FTS5's formula (fts5_aux.c) and
   require bit equality, to pin down the formula the Rust side implements.

Output format (UTF-8, one record per line, fields separated by one space; `#` lines are
comments):
    doc <rowid> <text>          text with \\ \n \r \t escaped as \\\\ \\n \\r \\t
    tokens <rowid> <t1 t2 ...>  SQLite's tokens of the document, in order
    query <qid> <text>          the query words separated by spaces
    qtokens <qid> <t1 ...>      SQLite's tokens of the query, one per word
    matches <qid> <count>       number of matching documents
    hit <qid> <rowid> <score>   top TOP hits in order; score is Python repr (round-trips)
"""

import math
import os
import random
import unicodedata

import pysqlite3 as sqlite3

SEED = 20250611
DOC_COUNT = 2400
QUERY_COUNT = 300
TOP = 50
TOKENIZER = "porter unicode61 remove_diacritics 2"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bm25_golden.txt")

COMMON = (
    "the of and to in is it that for on with as was at by be this from or have an are "
    "not but all we you they one my her his our their there what when which who will "
    "would can about into more some time new like just over also after"
).split()

FAMILIES = [
    "connect connected connecting connection connections connective connects CONNECT",
    "run running runs runner ran",
    "happy happiness happily happier",
    "general generally generalize generalization generalizations",
    "relate related relating relation relational relations relativity",
    "organize organized organizing organization organizations",
    "argue argued arguing argument arguments",
    "compute computer computers computing computation computational",
    "memory memories memorize memorized memorial",
    "search searched searching searches searcher",
    "recall recalled recalling recalls",
    "index indexes indexed indexing indices",
    "play played playing player plays",
    "study studies studied studying student",
    "nation national nationality nationalize",
    "agree agreed agreement agreeable",
    "hope hoped hoping hopeful hopefully",
    "meeting meetings meet meets",
    "probate probation probe probed",
    "sky skies skiing ski",
]
FAMILIES = [f.split() for f in FAMILIES]

DIACRITICS = (
    "café Café CAFÉ cafe naïve naive résumé resume señor niño mañana jalapeño über Über "
    "Müller Mueller Zürich Straße STRASSE strasse straße Grüße smørrebrød Øresund "
    "København fjørd Ærø crème brûlée façade déjà vu Ångström Škoda Dvořák Łódź Kraków "
    "Việt Nam Nguyễn NGUYỄN nguyen Trần Phạm phở bánh mì tiếng Hà Nội đường Đà Nẵng thành "
    "phố Hồ Chí Minh Huế Đông ăn uống"
).split()

OTHER_SCRIPTS = "Αθήνα ΣΊΣΥΦΟΣ σοφία Москва привет Ёлка 東京 北京大学 カタカナ".split()

NUMBERS = "2024 42 3.14 1,000 10k v2 0.5 007 1e6 12:30 2024-06-11 99 100 7".split()

PUNCTUATED = (
    "don't it's e-mail U.S.A. state-of-the-art foo_bar C++ #hashtag @mention "
    "user@example.com http://example.com/path?q=1 \"quoted\" (parens) [brackets] "
    "ellipsis… em—dash 🙂 🎉 ½ x² ①"
).split()

SEPARATORS = [" "] * 20 + [", ", ". ", " - ", "\n", "\t", "  ", "; ", "! ", "? ", " / "]


def pseudo_words(rng, count):
    """Made-up words from syllables: a long tail of rare terms."""
    onsets = ["", "b", "c", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
              "br", "tr", "st", "ch", "sh"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ou"]
    codas = ["", "", "n", "r", "s", "t", "l", "m"]
    words = set()
    while len(words) < count:
        n = rng.randint(1, 4)
        words.add("".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                          for _ in range(n)))
    return sorted(words)


def zipf_choice(rng, items, s=1.1):
    # Inverse-CDF sampling over precomputed weights would be faster; the corpus is small.
    weights = zipf_choice.cache.get((id(items), s))
    if weights is None:
        weights = [1.0 / (i + 1) ** s for i in range(len(items))]
        zipf_choice.cache[(id(items), s)] = weights
    return rng.choices(items, weights=weights)[0]


zipf_choice.cache = {}


def vary_case(rng, word):
    r = rng.random()
    if r < 0.08:
        return word.upper()
    if r < 0.20:
        return word[:1].upper() + word[1:]
    return word


def pick_word(rng, pseudo):
    r = rng.random()
    if r < 0.08:
        return "the"  # keeps `the` in more than half the documents: the idf clamp path
    if r < 0.40:
        return zipf_choice(rng, COMMON)
    if r < 0.55:
        return rng.choice(rng.choice(FAMILIES))
    if r < 0.66:
        word = rng.choice(DIACRITICS)
        if rng.random() < 0.1:
            word = unicodedata.normalize("NFD", word)
        return word
    if r < 0.68:
        return rng.choice(OTHER_SCRIPTS)
    if r < 0.73:
        return rng.choice(NUMBERS)
    if r < 0.77:
        return rng.choice(PUNCTUATED)
    return zipf_choice(rng, pseudo)


def make_text(rng, pseudo, i):
    special = ["", "!!!", "— … —", "🙂", " ", "...", "\n\t"]
    if i < len(special):
        return special[i]
    r = rng.random()
    if r < 0.10:
        n = 1
    elif r < 0.14:
        n = 200
    elif r < 0.24:
        n = rng.randint(100, 199)
    else:
        n = rng.randint(2, 60)
    words = []
    while len(words) < n:
        word = vary_case(rng, pick_word(rng, pseudo))
        repeat = rng.randint(2, 8) if rng.random() < 0.03 else 1
        words.extend([word] * min(repeat, n - len(words)))
    text = words[0]
    for word in words[1:]:
        text += rng.choice(SEPARATORS) + word
    if rng.random() < 0.3:
        text += rng.choice([".", "!", "?", "…", ""])
    return text


def escape(text):
    return (text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
            .replace("\t", "\\t"))


def tokens_of(con, texts):
    """SQLite's token sequence of each text, from a scratch FTS5 table."""
    con.execute("DROP TABLE IF EXISTS scratch")
    con.execute(f"CREATE VIRTUAL TABLE scratch USING fts5(body, tokenize='{TOKENIZER}')")
    con.executemany("INSERT INTO scratch(rowid, body) VALUES (?, ?)", enumerate(texts))
    con.execute("DROP TABLE IF EXISTS scratch_vocab")
    con.execute("CREATE VIRTUAL TABLE scratch_vocab USING fts5vocab(scratch, instance)")
    out = [[] for _ in texts]
    for term, doc, _col, offset in con.execute(
            "SELECT term, doc, col, offset FROM scratch_vocab ORDER BY doc, offset"):
        assert offset == len(out[doc]), (doc, offset)
        out[doc].append(term)
    return out


def query_words(rng, pseudo, doc_tokens_of_word, i):
    """A list of 1 to 8 plain words (letters/digits)."""
    kind = i % 10
    n = rng.randint(1, 8)
    absent = ["xylophonequartz", "zzzz", "qwxv", "nonexistentterm", "9999999", "ümlautless"]
    fixed = [["the"], ["the", "the"], ["connections"], ["cafe", "CAFÉ", "café"],
             ["strasse", "Straße"], ["nguyen", "NGUYỄN", "Việt"], ["xylophonequartz"],
             ["2024", "42"], ["running", "runner", "ran"], ["zzzz", "qwxv"]]
    if i < len(fixed):
        return fixed[i]
    pool = [w for w in doc_tokens_of_word]
    words = []
    for _ in range(n):
        r = rng.random()
        if kind == 0 and r < 0.5:
            words.append(rng.choice(absent))
        elif r < 0.25:
            words.append(vary_case(rng, rng.choice(rng.choice(FAMILIES))))
        elif r < 0.40:
            words.append(vary_case(rng, rng.choice(DIACRITICS)))
        elif r < 0.50:
            words.append(zipf_choice(rng, COMMON))
        elif r < 0.55:
            words.append(rng.choice(absent))
        else:
            words.append(vary_case(rng, rng.choice(pool)))
    if kind == 1 and words:
        words.append(rng.choice(words))  # a repeated query word counts twice in FTS5
    return words[:8]


def bm25_reference(query_tokens, doc_tokens, n_docs, avgdl, df):
    """fts5Bm25Function, operation for operation (k1 = 1.2, b = 0.75)."""
    k1, b = 1.2, 0.75
    scores = {}
    for doc, toks in enumerate(doc_tokens):
        freqs = [float(toks.count(t)) for t in query_tokens]
        if not any(freqs):
            continue
        d = float(len(toks))
        score = 0.0
        for t, f in zip(query_tokens, freqs):
            idf = math.log((n_docs - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            score += idf * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * d / avgdl)))
        scores[doc] = score
    return scores


def main():
    rng = random.Random(SEED)
    pseudo = pseudo_words(rng, 3000)
    texts = [make_text(rng, pseudo, i) for i in range(DOC_COUNT)]
    for text in texts:
        assert "\r" not in text

    con = sqlite3.connect(":memory:")
    con.execute(f"CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='{TOKENIZER}')")
    con.executemany("INSERT INTO docs(rowid, body) VALUES (?, ?)", enumerate(texts))
    doc_tokens = tokens_of(con, texts)

    # Query words: plain letters/digits that SQLite reads as exactly one token.
    candidates = sorted({w for t in texts for w in t.split() if w.isalnum()})
    single = [w for w, toks in zip(candidates, tokens_of(con, candidates)) if len(toks) == 1]
    queries, query_tokens = [], []
    while len(queries) < QUERY_COUNT:
        words = query_words(rng, single, single, len(queries))
        toks = tokens_of(con, words)
        if any(len(t) != 1 for t in toks) or any(not w.isalnum() for w in words):
            continue
        queries.append(words)
        query_tokens.append([t[0] for t in toks])

    n_docs = len(texts)
    avgdl = sum(len(t) for t in doc_tokens) / n_docs
    df = {}
    for toks in doc_tokens:
        for t in set(toks):
            df[t] = df.get(t, 0) + 1
    assert df["the"] * 2 > n_docs, "the idf clamp must be exercised"

    results = []
    exact = 0
    for words, qtoks in zip(queries, query_tokens):
        match = " OR ".join(f'"{w}"' for w in words)
        count = con.execute("SELECT count(*) FROM docs WHERE docs MATCH ?", (match,)).fetchone()[0]
        rows = con.execute(
            "SELECT rowid, -bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid",
            (match,)).fetchall()
        assert len(rows) == count
        reference = bm25_reference(qtoks, doc_tokens, n_docs, avgdl, df)
        assert sorted(reference) == sorted(r for r, _ in rows), words
        for rowid, score in rows:
            assert reference[rowid] == score, (words, rowid, reference[rowid], score)
            exact += 1
        results.append((count, rows[:TOP]))

    version = con.execute("SELECT sqlite_version()").fetchone()[0]
    lines = [
        "# recallkit BM25 golden data: SQLite FTS5 bm25() rankings. Generated by",
        "# tests/golden/bm25/gen_bm25_golden.py; do not edit by hand.",
        f"# seed={SEED} docs={DOC_COUNT} queries={QUERY_COUNT} top={TOP} sqlite={version}",
        f"# tokenize='{TOKENIZER}'",
        "# query: SELECT rowid, -bm25(docs) FROM docs WHERE docs MATCH '\"w1\" OR \"w2\" ...'"
        " ORDER BY bm25(docs), rowid",
        f"# stats: total_tokens={sum(len(t) for t in doc_tokens)} vocabulary={len(df)}"
        f" df(the)={df['the']} python_reference_exact_scores={exact}",
    ]
    for rowid, (text, toks) in enumerate(zip(texts, doc_tokens)):
        lines.append(f"doc {rowid} {escape(text)}")
        lines.append(f"tokens {rowid} {' '.join(toks)}".rstrip(" "))
    for qid, (words, qtoks, (count, rows)) in enumerate(zip(queries, query_tokens, results)):
        lines.append(f"query {qid} {' '.join(words)}")
        lines.append(f"qtokens {qid} {' '.join(qtoks)}")
        lines.append(f"matches {qid} {count}")
        for rowid, score in rows:
            lines.append(f"hit {qid} {rowid} {score!r}")
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {OUT}: {len(texts)} docs, {len(queries)} queries, "
          f"{exact} scores bit-equal to the Python reference, sqlite {version}")


if __name__ == "__main__":
    main()
