//! What AutoMem's recall API adds around the ranking: the time window a recall applies
//! (`timeQuery`, [`crate::recall::time`]), the answer to a recall with no query (trending,
//! [`Engine::rank_trending`]), and how each result was matched ([`match_type`]). The order
//! (`sort`) is [`crate::rank::order`]'s.

use super::output::{QueryReport, StageReport, TimeWindow};
use super::recall::{Plan, Ranked, RecallOptions};
use super::stages::{memory_candidate, Found};
use super::Engine;
use crate::error::Result;
use crate::index::postings::{InvertedIndex, Membership};
use crate::rank::evidence;
use crate::rank::order::{trending_best, Sort, TrendingFacts, DEFAULT_IMPORTANCE};
use crate::recall::time;
use crate::store::DocId;

/// The stage label of a trending result.
pub const TRENDING_STAGE: &str = "trending";
/// How many memories past `depth` a trending recall orders at first ([`trending_best`]): room
/// for repeated texts, which the answer keeps but does not count; more repeats than that and
/// the head grows fourfold.
const TRENDING_MARGIN: usize = 32;

/// Whether `query` asks for nothing in particular: empty, blank or `*` (trending).
pub fn is_trending(query: &str) -> bool {
    matches!(query.trim(), "" | "*")
}

impl Plan {
    /// The order of the results: the option, else `time_desc` for a recall with no query and
    /// a window, else by score.
    pub(super) fn sort(&self, options: &RecallOptions) -> Sort {
        let by_time = self.trending && self.window.is_some();
        (options.sort).unwrap_or(if by_time { Sort::TimeDesc } else { Sort::Score })
    }
}

impl Engine {
    /// Resolves `timeQuery` (an explicit bound wins), or the question's time words (explicit
    /// bounds narrow their window), read at `asOf` when given, else at `now`, into
    /// `options.filter`'s `start` / `end`, records the explicit bounds in the plan, the
    /// question's pronouns into entity names (`mentions.rs`), and notes whether `query` is a
    /// trending one.
    #[inline(never)]
    pub(super) fn plan(&self, query: &str, options: &mut RecallOptions) -> Result<Plan> {
        options.filter.validate()?;
        // The tag index's lists, read once into a bit set: a stage's candidate outside them
        // fails the filter without its tags being decoded (a tag held by 5 % of the store
        // rejects 95 %).
        options.filter.tag_docs = self.tags.candidate_bits(&options.filter.tags);
        // Pronouns first, over the whole question: the host's vector is made from this text.
        let resolved = (options.resolve_pronouns)
            .then(|| self.resolve_pronouns(query, options))
            .flatten();
        let (asked, pronouns) = match resolved {
            Some((text, pronouns)) => (text, pronouns),
            None => (query.to_owned(), Vec::new()),
        };
        let filter = &mut options.filter;
        let explicit = (filter.start, filter.end);
        let mut question = None;
        let offset = options.context.as_ref().map_or(0, |c| c.utc_offset_minutes);
        // Time words are read at the moment the recall answers as of: "yesterday" with an
        // `asOf` is the day before it, as the store knew it then.
        let at = filter.as_of.unwrap_or(filter.now);
        // The question's time words, when no `timeQuery` is given: their window narrowed by
        // `start` / `end` (the recall keeps what both allow); a narrowing that leaves nothing
        // drops the words' window, as one holding no memory is (`query.windowDropped`).
        let mut dropped = None;
        // The answer's `query` field: the question as asked and what the stages searched.
        let report = |search_text: String| QueryReport {
            text: query.to_owned(),
            search_text,
            ..QueryReport::default()
        };
        let found = (options.time_query.is_none() && options.resolve_time)
            .then(|| time::find_in(&asked))
            .flatten()
            .and_then(|f| {
                let w = f.expr.window(at, offset)?;
                let start = explicit.0.map_or(w.start, |s| s.max(w.start));
                let end = explicit.1.map_or(w.end, |e| e.min(w.end));
                if start > end {
                    dropped = Some(f.words);
                    return None;
                }
                Some((start, end, f.expr, f.words, f.rest))
            });
        let window = match options.time_query.as_deref() {
            Some(expr) => {
                let w = time::window_of("timeQuery", expr, at, offset)?;
                filter.start = explicit.0.or(Some(w.start));
                filter.end = explicit.1.or(Some(w.end));
                let both = explicit.0.is_some() && explicit.1.is_some();
                Some(TimeWindow {
                    start: filter.start,
                    end: filter.end,
                    source: if both { "options" } else { "timeQuery" },
                })
            }
            None if found.is_some() => {
                if let Some((start, end, expr, words, rest)) = found {
                    filter.start = Some(start);
                    filter.end = Some(end);
                    // A question of time words and stopwords ("what did I do yesterday?")
                    // asks for what happened then: the window's memories, newest first.
                    // With words left to search, a memory stating the date is about it too.
                    let rest = if evidence::query_terms(&rest).is_empty() {
                        String::new()
                    } else {
                        if expr.is_absolute() {
                            filter.stated = Some(self.docs_stating(&words));
                        }
                        rest
                    };
                    question = Some(QueryReport {
                        resolved_from: words,
                        ..report(rest)
                    });
                    Some(TimeWindow {
                        start: filter.start,
                        end: filter.end,
                        source: "query",
                    })
                } else {
                    None
                }
            }
            None if explicit.0.is_some() || explicit.1.is_some() => Some(TimeWindow {
                start: explicit.0,
                end: explicit.1,
                source: "options",
            }),
            None => None,
        };
        if let Some(words) = dropped {
            question = Some(QueryReport {
                resolved_from: words,
                window_dropped: true,
                ..report(asked.clone())
            });
        }
        if !pronouns.is_empty() {
            let q = question.get_or_insert_with(|| report(asked.clone()));
            q.pronouns = pronouns;
        }
        let searched = question.as_ref().map_or(query, |q| q.search_text.as_str());
        Ok(Plan {
            window,
            trending: is_trending(searched),
            question,
            embed_text: Some(asked),
            explicit,
            ..Plan::default()
        })
    }

    /// The documents whose text (or `textEn`, or keywords) holds every word of the time
    /// expression `words` but its leading "in" / "on" / "during" / "over" ("2024", "March 2024",
    /// "2024-08-08"), sorted: [`crate::recall::Filter::stated`]. Read from the word indexes'
    /// postings, so it costs the length of those lists, not a reading of texts.
    #[inline(never)]
    fn docs_stating(&self, words: &str) -> Vec<u32> {
        let mut tokens: Vec<String> = Vec::new();
        crate::text::tokenize::for_each_token(words, |t| {
            if !matches!(t, "in" | "on" | "during" | "over") && !tokens.iter().any(|k| k == t) {
                tokens.push(t.to_owned());
            }
        });
        let mut docs: Vec<u32> = Vec::new();
        for index in [self.fuzzy_en.terms(), self.fuzzy_orig.terms()] {
            docs.extend(holding_all(index, &tokens));
        }
        crate::sort::sort_u32(&mut docs);
        docs.dedup();
        docs
    }

    /// A recall with no query: the memories passing the filters in trending order (or the
    /// asked time order, [`crate::rank::order::trending_order`]), the best `depth` distinct
    /// texts with their repeats, each scored by its importance. With a tag filter only the
    /// tag index's candidates are read ([`crate::index::tags`]); without one every live
    /// memory is. Only the head of the order is sorted ([`trending_best`]), `depth` plus
    /// [`TRENDING_MARGIN`] at first, so the cost is a linear pass, not a sort of every memory.
    pub(super) fn rank_trending(&self, pending: super::PendingRecall, depth: usize) -> Ranked {
        let options = pending.options;
        let sort = pending.plan.sort(&options);
        // Scores are importances here: a minScore the recall or the store gives applies to
        // them, the default (a relevance floor) does not.
        let floor = options.min_score.or(self.config.min_score).unwrap_or(0.0);
        let found = self.trending(&options.filter, floor, sort, depth);
        let ranked = (found.into_iter())
            .filter_map(|(doc, importance)| {
                let mut c = memory_candidate(doc, TRENDING_STAGE, importance, self.memory(doc)?);
                c.score = importance;
                c.components = vec![("importance", importance)];
                Some(c)
            })
            .collect::<Vec<_>>();
        let mut stages = vec![pending.sf_report];
        stages.extend(["Se", "Ss", "S6", "S8"].map(|s| StageReport::skipped(s, "no_query")));
        Ranked {
            ranked,
            found: Found::default(),
            stages,
            options,
            limit: pending.limit,
            plan: Plan::default(),
        }
    }

    /// The memories of a trending recall ([`Engine::rank_trending`]) in order, each with its
    /// importance (absent: [`DEFAULT_IMPORTANCE`]).
    fn trending(
        &self,
        filter: &crate::recall::Filter,
        floor: f64,
        sort: Sort,
        depth: usize,
    ) -> Vec<(DocId, f64)> {
        let (kept, facts) = self.trending_facts(filter, floor);
        // The best `depth` distinct texts, with the repeats among them for the dedup: from the
        // head of the order, longer while repeats use up its margin.
        let mut head = depth.saturating_add(TRENDING_MARGIN);
        let order = loop {
            let mut order = trending_best(&facts, sort, head);
            if let Some(taken) = self.trending_taken(&order, &kept, depth) {
                order.truncate(taken);
                break order;
            }
            head = head.saturating_mul(4);
        };
        let mut answer = Vec::with_capacity(order.len());
        for &i in &order {
            let importance = facts[i as usize].importance;
            answer.push((kept[i as usize], importance.unwrap_or(DEFAULT_IMPORTANCE)));
        }
        answer
    }

    /// The memories passing `filter` whose importance reaches `floor`, in ascending `DocId`
    /// order, with what trending reads of each: with a tag filter only the tag index's
    /// candidates are read, without one every live memory is.
    fn trending_facts(
        &self,
        filter: &crate::recall::Filter,
        floor: f64,
    ) -> (Vec<DocId>, Vec<TrendingFacts>) {
        let docs: Vec<DocId> = match self.tags.candidates(&filter.tags) {
            Some(docs) => docs,
            None => (0..self.records.len() as u32).map(DocId).collect(),
        };
        let mut kept = Vec::new();
        let mut facts = Vec::new();
        for doc in docs {
            let Some(m) = self.memory(doc).filter(|m| filter.accepts(doc, m)) else {
                continue;
            };
            if m.importance().unwrap_or(DEFAULT_IMPORTANCE) < floor {
                continue;
            }
            kept.push(doc);
            facts.push(TrendingFacts {
                importance: m.importance(),
                created_at: m.created_at(),
                recall_count: m.recall_count(),
                updated_at: m.updated_at(),
            });
        }
        (kept, facts)
    }

    /// How many of `order` (positions in `kept`, the head of the trending order) the answer
    /// takes: the memories before the first one met once `depth` distinct texts are in
    /// ([`Engine::key_of`]). `None` when the head is shorter than `kept` and ran out before
    /// that: the answer may go on past it.
    fn trending_taken(&self, order: &[u32], kept: &[DocId], depth: usize) -> Option<usize> {
        let mut texts: Vec<u64> = Vec::new();
        for (n, &i) in order.iter().enumerate() {
            if texts.len() >= depth {
                return Some(n);
            }
            let key = self.key_of(kept[i as usize]);
            texts.extend(key.filter(|k| !texts.contains(k)));
        }
        (texts.len() >= depth || order.len() == kept.len()).then_some(order.len())
    }
}

/// The documents of `index` holding every one of `tokens` (none for no tokens), ascending:
/// the shortest list is walked, the others sought alongside it.
fn holding_all(index: &InvertedIndex, tokens: &[String]) -> Vec<u32> {
    let mut lists = Vec::with_capacity(tokens.len());
    for t in tokens {
        match index.term_id(t) {
            Some(id) => lists.push(index.postings(id)),
            None => return Vec::new(),
        }
    }
    let Some(shortest) = (0..lists.len()).min_by_key(|&i| lists[i].doc_freq()) else {
        return Vec::new();
    };
    let mut walked = lists.swap_remove(shortest);
    let mut others: Vec<Membership> = lists.into_iter().map(Membership::new).collect();
    let mut docs = Vec::new();
    let mut next = 0;
    // Seeks only, no iteration: one shared copy of the list decoder.
    while let Some(doc) = walked.seek(DocId(next)).map(|p| p.doc().0) {
        if others.iter_mut().all(|m| m.holds(DocId(doc))) {
            docs.push(doc);
        }
        let Some(after) = doc.checked_add(1) else {
            break;
        };
        next = after;
    }
    docs
}

impl Engine {
    /// Sets each memory candidate's context-hint boost ([`crate::rank::hints`]) when the
    /// recall's context has hints; before the ranking, which adds it to the context boost.
    pub(super) fn apply_hints(
        &self,
        cands: &mut [crate::rank::Candidate],
        options: &RecallOptions,
    ) {
        let Some(hints) = (options.context.as_ref())
            .map(|c| &c.hints)
            .filter(|h| !h.is_empty())
        else {
            return;
        };
        for c in cands {
            if let crate::rank::CandidateKey::Memory(doc) = c.key {
                if let Some(m) = self.memory(doc) {
                    c.hint = hints.boost(m.kind(), &m.tag_list());
                }
            }
        }
    }
}

/// How a result with stage label `stage` was matched (see
/// [`RecallHit::match_type`](super::RecallHit::match_type)).
pub fn match_type(stage: &str, options: &RecallOptions) -> &'static str {
    match stage.split(':').next().unwrap_or("") {
        "Sf" => "keyword",
        "Se" => "semantic",
        "Ss" => "signature",
        "S6" => "note",
        "S8" => "entity",
        super::multi::PRIORITY_STAGE => "priority",
        "expand" if stage == super::expand::RELATION_STAGE => "relation",
        "expand" => "entity",
        TRENDING_STAGE if !options.filter.tags.tags.is_empty() => "tag",
        _ => "trending",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EngineConfig, RecallOutput};
    use crate::recall::tags::TagFilter;
    use crate::store::Memory;

    const DAY: f64 = 86_400_000.0;
    /// 2024-03-15T12:00:00Z, a Friday.
    const NOW: f64 = 1_710_504_000_000.0;

    fn engine() -> Engine {
        let memory = |id: &str, tags: &[&str], days_ago: f64, importance: Option<f64>| Memory {
            id: id.into(),
            text: format!("deploy {id}"),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            created_at: NOW - days_ago * DAY,
            updated_at: NOW - days_ago * DAY,
            importance,
            ..Memory::default()
        };
        let mut e = Engine::new(EngineConfig::default()).unwrap();
        let memories = vec![
            memory("old", &["work:db"], 20.0, Some(0.9)),
            memory("new", &["work"], 1.0, None),
            memory("home", &["home"], 2.0, Some(0.7)),
        ];
        e.insert_many(memories, &[]).unwrap();
        e
    }

    fn recall(e: &mut Engine, query: &str, options: RecallOptions) -> RecallOutput {
        let options = RecallOptions {
            track_recalls: false,
            filter: crate::recall::Filter {
                now: NOW,
                ..options.filter
            },
            ..options
        };
        e.recall(query, &options, None, &|| 0.0).unwrap()
    }

    use crate::test_support::ids;

    #[test]
    fn time_words_set_the_window_and_an_explicit_bound_wins() {
        let e = engine();
        let mut o = RecallOptions {
            time_query: Some("last week".into()),
            ..RecallOptions::default()
        };
        o.filter.now = NOW;
        o.filter.end = Some(NOW);
        let plan = e.plan("x", &mut o).unwrap();
        let w = plan.window.unwrap();
        // Monday 4 March 2024 00:00 UTC, and the explicit end.
        assert_eq!(
            (w.start, w.end, w.source),
            (Some(1_709_510_400_000.0), Some(NOW), "timeQuery")
        );
        assert_eq!((o.filter.start, o.filter.end), (w.start, w.end));
        o.time_query = Some("next tuesday".into());
        assert!(e
            .plan("x", &mut o)
            .unwrap_err()
            .to_string()
            .contains("timeQuery"));
        assert!(e
            .plan("x", &mut RecallOptions::default())
            .unwrap()
            .window
            .is_none());
    }

    #[test]
    fn a_date_in_the_question_finds_the_memory_stating_it_in_those_words_not_only_those_recorded_that_day(
    ) {
        let memory = |id: &str, text: &str, created_at: f64| Memory {
            id: id.into(),
            text: text.into(),
            created_at,
            updated_at: created_at,
            ..Memory::default()
        };
        // 2024-03-08, a week before NOW.
        let day = NOW - 7.5 * DAY;
        let mut e = Engine::new(EngineConfig::default()).unwrap();
        let memories = vec![
            // Recorded a month before the appointment, stating its date.
            memory(
                "stated",
                "Walter has an appointment with Dr Turner on 2024-03-08",
                day - 30.0 * DAY,
            ),
            // Recorded on the day, without a date in its text.
            memory(
                "that-day",
                "Appointment with Dr Turner went well",
                day + DAY / 2.0,
            ),
            // Recorded and dated elsewhere.
            memory(
                "other",
                "Walter has an appointment with Dr Turner on 2024-02-01",
                day - 30.0 * DAY,
            ),
            memory(
                "yesterday",
                "Yesterday the appointment with Dr Turner was moved",
                day + 1.5 * DAY,
            ),
        ];
        e.insert_many(memories, &[]).unwrap();
        let out = recall(
            &mut e,
            "appointment with Dr Turner on 2024-03-08",
            RecallOptions::default(),
        );
        let mut found = ids(&out);
        found.sort_unstable();
        // "Yesterday", written the day after, names the day in other words: not read.
        assert_eq!(found, ["stated", "that-day"]);
        assert_eq!(out.time_window.as_ref().map(|w| w.source), Some("query"));
        // A question of time words alone asks what was recorded then.
        let then = recall(
            &mut e,
            "what did I do on 2024-03-08?",
            RecallOptions::default(),
        );
        assert_eq!(ids(&then), ["that-day"]);
        // An explicit window means recording time, as always.
        let mut o = RecallOptions::default();
        o.filter.start = Some(day - 0.5 * DAY);
        o.filter.end = Some(day + 0.5 * DAY + DAY - 1.0);
        assert_eq!(
            ids(&recall(&mut e, "appointment with Dr Turner", o)),
            ["that-day"]
        );
    }

    #[test]
    fn trending_orders_by_importance_and_applies_filters_through_the_tag_index() {
        let mut e = engine();
        let out = recall(&mut e, "*", RecallOptions::default());
        assert_eq!(ids(&out), ["old", "home", "new"]);
        assert!(out.results.iter().all(|r| r.match_type == "trending"));
        assert_eq!(out.stages[1].reason.as_deref(), Some("no_query"));
        let mut o = RecallOptions::default();
        o.filter.tags = TagFilter {
            tags: vec!["work".into()],
            ..TagFilter::default()
        };
        let out = recall(&mut e, "", o.clone());
        assert_eq!(ids(&out), ["old", "new"]);
        assert!(out.results.iter().all(|r| r.match_type == "tag"));
        assert_eq!(out.tags, ["work"]);
        o.time_query = Some("last 30 days".into());
        assert_eq!(
            ids(&recall(&mut e, "", o)),
            ["new", "old"],
            "time_desc with a window"
        );
    }

    #[test]
    fn sort_reorders_what_the_query_found_and_hits_say_how_they_matched() {
        let mut e = engine();
        let o = RecallOptions {
            sort: Some(Sort::TimeAsc),
            ..RecallOptions::default()
        };
        let out = recall(&mut e, "deploy", o);
        assert_eq!(ids(&out), ["old", "home", "new"]);
        assert!(out.results.iter().all(|r| r.match_type == "keyword"));
        let o = RecallOptions::default();
        assert_eq!(match_type("Se", &o), "semantic");
        assert_eq!(match_type("Ss", &o), "signature");
        assert_eq!(match_type("S6:weekly", &o), "note");
        assert_eq!(match_type("S8", &o), "entity");
    }

    /// The answer trending gave before [`trending_best`]: every passing memory in the full
    /// [`crate::rank::order::trending_order`], cut after the best `depth` distinct texts.
    fn trending_by_full_sort(
        e: &Engine,
        filter: &crate::recall::Filter,
        sort: Sort,
        depth: usize,
    ) -> Vec<(DocId, f64)> {
        let (kept, facts) = e.trending_facts(filter, 0.0);
        let mut texts: Vec<u64> = Vec::new();
        (crate::rank::order::trending_order(&facts, sort).into_iter())
            .take_while(|&i| {
                let key = e.key_of(kept[i as usize]);
                if texts.len() >= depth {
                    return false;
                }
                texts.extend(key.filter(|k| !texts.contains(k)));
                true
            })
            .map(|i| {
                let importance = facts[i as usize].importance;
                (kept[i as usize], importance.unwrap_or(DEFAULT_IMPORTANCE))
            })
            .collect()
    }

    #[test]
    fn trending_answers_as_the_full_sort_did_with_ties_repeats_filters_and_every_sort() {
        let mut rng = crate::test_support::SplitMix64(2323);
        let tags = ["work", "work:db", "home", "misc"];
        let importances = [None, Some(0.5), Some(0.9), Some(0.2), Some(0.0)];
        for round in 0..3 {
            let n = [60, 300, 900][round];
            let memories = (0..n)
                .map(|i| {
                    let created = NOW - rng.below(8) as f64 * DAY;
                    Memory {
                        id: format!("m{i}"),
                        // Few texts, so most are repeats the dedup does not count.
                        text: format!(
                            "deploy note {}",
                            rng.below(if i % 2 == 0 { 5 } else { 200 })
                        ),
                        tags: vec![tags[rng.index(tags.len())].to_string()],
                        created_at: created,
                        updated_at: created + rng.below(3) as f64 * DAY,
                        importance: importances[rng.index(importances.len())],
                        recall_count: rng.below(3) as u32,
                        ..Memory::default()
                    }
                })
                .collect();
            let mut e = Engine::new(EngineConfig::default()).unwrap();
            e.insert_many(memories, &[]).unwrap();
            let mut filters = vec![crate::recall::Filter::default()];
            for tag in ["work", "home"] {
                let mut f = crate::recall::Filter::default();
                f.tags.tags = vec![tag.into()];
                filters.push(f);
            }
            let mut f = crate::recall::Filter::default();
            f.tags.exclude = vec!["work".into()];
            f.start = Some(NOW - 4.0 * DAY);
            filters.push(f);
            for filter in &mut filters {
                filter.now = NOW;
                let sorts = [Sort::Score, Sort::TimeDesc, Sort::TimeAsc];
                for sort in sorts
                    .into_iter()
                    .chain([Sort::UpdatedDesc, Sort::UpdatedAsc])
                {
                    for depth in 1..=50 {
                        assert_eq!(
                            e.trending(filter, 0.0, sort, depth),
                            trending_by_full_sort(&e, filter, sort, depth),
                            "{n} memories, {sort:?}, depth {depth}"
                        );
                    }
                }
            }
        }
    }
}
