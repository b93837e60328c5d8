//! Phase 2 of a recall for the rankings that weigh every stage's evidence (`recallkit`, `rrf`,
//! `composite`, `weighted`): every stage adds what it found about a candidate to that
//! candidate's [`Evidence`](crate::rank::evidence::Evidence) instead of the first stage
//! keeping it (abmind's rule, which the `abmind` ranking keeps in `recall.rs`). One function
//! per stage; what the two pipelines share is in `stages.rs`.
//!
//! - **Sf**: every sub-query candidate (not only the first `limit`), ranked by lexical evidence.
//! - **Se**: the best `max(limit × 3, 50)` by cosine, with no fixed threshold (unless the store
//!   sets `similarityThreshold`); the scan also measures the query's background
//!   ([`SemanticScale`]). Every other candidate with a vector gets its cosine too, so a memory
//!   Sf found is not judged without its embedding.
//! - **Ss**: the fallback for meaning without embeddings, run when Se did not run with a
//!   query vector and the model reads it (`recallkit` gives it weight 0 by default, and the
//!   stage is then skipped with reason `not_ranked`); every candidate's signature similarity
//!   is measured.
//! - **S6**: note paragraphs, with the share of the query's content words they hold.
//! - **S8**: the edges Personalized PageRank ranks from the entities the query names
//!   ([`crate::graph::ppr`]), with their coverage and their mass (`ppr`); a memory an edge
//!   cites in `memoryIds` gets the edge's `strength × coverage` as graph evidence (and becomes
//!   a candidate) when the recall's filter accepts it, so an edge never brings in another
//!   user's memory. A memory naming an entity of the query in its `entities` gets graph
//!   evidence too (`mentions.rs`).

use super::output::StageReport;
use super::recall::{PendingRecall, Ranked, RecallOptions, SearchMode, SE_OVERFETCH};
use super::stages::{
    accepts, edge_candidate, meaning_skip, note_candidate, se_vector, Found, Pool, StageQuery,
};
use super::Engine;
use crate::error::Result;
use crate::index::bm25::Bm25Source;
use crate::index::postings::Membership;
use crate::rank::evidence::{self, SemanticScale};
use crate::rank::fused::{self, FusedOptions};
use crate::rank::model::{self, Facts};
use crate::rank::{CandidateKey, Ranking};
use crate::recall::score::{SfComponents, MS_PER_DAY};
use crate::recall::sf::{SfHit, MIN_CANDIDATES};
use crate::sort;
use crate::store::{DocId, StoredMemory};

/// AutoMem's recency horizon: `max(0, 1 − days since last access / 180)`.
const ACCESS_HORIZON_DAYS: f64 = 180.0;

impl Engine {
    /// Phase 2 for the evidence-weighing rankings (module doc): every stage adds its evidence
    /// to the candidates, then the model ranks them ([`fused::rank`]).
    pub(super) fn rank_fused(
        &mut self,
        pending: PendingRecall,
        query_embedding: Option<&[f32]>,
        se_skip_reason: Option<&str>,
        clock: &dyn Fn() -> f64,
        depth: usize,
    ) -> Result<Ranked> {
        let PendingRecall {
            query,
            options,
            limit,
            mut sf,
            corrected,
            sf_report,
            short_circuit,
            ranking,
            weights,
            min_score,
            ..
        } = pending;
        let q = StageQuery::new(&query, &options, limit, clock);
        let terms = evidence::query_terms(&query);
        let skip = meaning_skip(options.mode, short_circuit);
        let mut pool = Pool::default();
        let mut found = Found::default();
        let covered = self.fused_sf(&mut sf, &mut pool);
        let mut stages = vec![sf_report];
        let se = se_vector(skip, query_embedding, se_skip_reason);
        let semantic = se.is_ok();
        stages.push(match se {
            Ok(vector) => self.fused_se(&q, vector, &mut pool, &mut found)?,
            Err(skipped) => skipped,
        });
        let ss = self.fused_ss(&q, skip, semantic, ranking, &mut pool);
        let ss_ran = !ss.skipped;
        stages.push(ss);
        stages.push(self.fused_s6(&q, &terms, &mut pool, &mut found));
        stages.push(self.fused_s8(&q, &terms, &mut pool, &mut found));
        self.fused_mentions(&q, &terms, &mut pool);
        self.fused_facts(&mut pool, &covered, &terms, &options, ranking);

        // The stage lists that ran, for `rrf`'s scale: Sf, Se and Ss when they ran, S6 and S8
        // when they found something.
        let lists = [
            options.mode != SearchMode::Semantic,
            semantic,
            ss_ran,
            !found.notes.is_empty(),
            !found.edges.is_empty(),
        ]
        .into_iter()
        .map(u32::from)
        .sum();
        let fused_options = FusedOptions {
            ranking,
            fusion: self.config.fusion,
            weights,
            semantic,
            lists,
            latest: model::asks_for_latest(&query),
            corrected,
            context: options.context.clone(),
            lambda: options.mmr_lambda,
            min_score,
            // Room for the repeats the content dedup drops (`dedup.rs`).
            limit: depth + self.repeated_texts(&pool.cands),
            keep: self.priority_docs(&options),
            adjacent: if ranking == Ranking::Recallkit && self.config.fusion.adjacent_weight > 0.0 {
                self.adjacent_pairs(&pool)
            } else {
                Vec::new()
            },
        };
        self.apply_hints(&mut pool.cands, &options);
        let ranked = fused::rank(pool.cands, &fused_options);
        Ok(Ranked {
            ranked,
            found,
            stages,
            options,
            limit,
            plan: Default::default(),
        })
    }

    /// Stage Sf's hits (run in phase 1), ranked by lexical evidence, as the first candidates.
    /// Returns, by pool position, whether the porter postings already gave a candidate's
    /// coverage ([`SfHit::coverage`]).
    fn fused_sf(&self, sf: &mut [SfHit], pool: &mut Pool) -> Vec<bool> {
        let mut order = sort::order_by_key(sf.iter().map(|h| sort::desc_key(h.lexical)));
        sort::permute(sf, &mut order);
        let mut covered: Vec<bool> = Vec::new();
        for (rank, hit) in sf.iter().enumerate() {
            let Some(i) = pool.slot(self, hit.doc, hit.source.label(), hit.lexical) else {
                continue;
            };
            let e = &mut pool.cands[i].evidence;
            e.porter = hit.porter;
            e.trigram = hit.trigram;
            e.lexical = hit.lexical;
            e.sf_rank = Some(rank as u32 + 1);
            if let Some(coverage) = hit.coverage {
                e.exact = coverage;
                covered.resize(covered.len().max(i + 1), false);
                covered[i] = true;
            }
        }
        covered
    }

    /// Stage Se (embedding) with the query's `vector`: the best `max(limit × 3, 50)` by cosine
    /// join the pool, and every memory candidate with a vector gets its cosine and its
    /// semantic evidence against the query's background ([`SemanticScale`]).
    fn fused_se(
        &self,
        q: &StageQuery,
        vector: &[f32],
        pool: &mut Pool,
        found: &mut Found,
    ) -> Result<StageReport> {
        let started = q.time();
        let records = &self.records;
        let k = (q.limit * SE_OVERFETCH).max(MIN_CANDIDATES);
        let threshold = self.config.se_threshold.unwrap_or(-1.0) as f32;
        let scan = (self.vectors).scan(vector, k, threshold, |d| accepts(records, q.filter, d))?;
        let scale = SemanticScale::from_moments(scan.count, scan.sum, scan.sum_sq);
        found.se_hits = scan.hits.len();
        for (rank, &(doc, cosine)) in scan.hits.iter().enumerate() {
            let Some(i) = pool.slot(self, doc, "Se", f64::from(cosine)) else {
                continue;
            };
            pool.cands[i].evidence.cosine = Some(f64::from(cosine));
            pool.cands[i].evidence.se_rank = Some(rank as u32 + 1);
        }
        let unit = self.vectors.unit_query(vector);
        for c in &mut pool.cands {
            if let (CandidateKey::Memory(doc), Some(unit)) = (c.key, &unit) {
                if c.evidence.cosine.is_none() {
                    c.evidence.cosine = self.vectors.cosine_of(doc, unit).map(f64::from);
                }
            }
            if let Some(cosine) = c.evidence.cosine {
                let f = &self.config.fusion;
                c.evidence.semantic =
                    scale.evidence_between(cosine, f.semantic_from, f.semantic_full);
            }
        }
        Ok(StageReport::ran("Se", found.se_hits, q.time() - started))
    }

    /// Stage Ss (signature): meaning without embeddings, for the models that read it. Skipped
    /// for `skip`, when Se ran with a query vector (`semantic`), or when the `recallkit` model
    /// gives signatures no weight; otherwise its hits join the pool and every memory
    /// candidate gets its signature similarity and evidence.
    fn fused_ss(
        &mut self,
        q: &StageQuery,
        skip: Option<&str>,
        semantic: bool,
        ranking: Ranking,
        pool: &mut Pool,
    ) -> StageReport {
        let ignored = ranking == Ranking::Recallkit && self.config.fusion.signature_weight == 0.0;
        let skip = skip
            .or(semantic.then_some("semantic_evidence"))
            .or(ignored.then_some("not_ranked"));
        if let Some(reason) = skip {
            return StageReport::skipped("Ss", reason);
        }
        let started = q.time();
        let (signature, hits) = self.ss_search(q.text, q.filter);
        for (rank, &(doc, similarity)) in hits.iter().enumerate() {
            let Some(i) = pool.slot(self, doc, "Ss", similarity) else {
                continue;
            };
            pool.cands[i].evidence.ss_rank = Some(rank as u32 + 1);
            pool.cands[i].evidence.similarity = Some(similarity);
        }
        for c in &mut pool.cands {
            if let CandidateKey::Memory(doc) = c.key {
                if c.evidence.similarity.is_none() {
                    c.evidence.similarity = self.signatures.similarity(doc, &signature);
                }
            }
            c.evidence.signature = c
                .evidence
                .similarity
                .map_or(0.0, evidence::signature_evidence);
        }
        StageReport::ran("Ss", hits.len(), q.time() - started)
    }

    /// Stage S6 (notes): every paragraph found is a candidate whose lexical evidence is the
    /// share of the query's content words it holds.
    fn fused_s6(
        &self,
        q: &StageQuery,
        terms: &[String],
        pool: &mut Pool,
        found: &mut Found,
    ) -> StageReport {
        let started = q.time();
        found.notes = self.s6_search(q);
        for (i, hit) in found.notes.iter().enumerate() {
            let mut c = note_candidate(i, hit);
            c.evidence.lexical = evidence::coverage(terms, &hit.text);
            c.evidence.s6_rank = Some(i as u32 + 1);
            c.facts = neutral_facts(fresh(hit.start, q.filter.now, self));
            pool.push(c);
        }
        StageReport::ran("S6", found.notes.len(), q.time() - started)
    }

    /// Stage S8 (graph, Personalized PageRank): every edge found is a candidate with its
    /// coverage of the query and the `entityHints`, its mass (`ppr`) and graph evidence
    /// `strength × coverage × share` (share 1 for the first seed's own edges, else its mass
    /// over the best edge's); a memory that one of the first seed's own edges cites and the
    /// recall's filter accepts gets that edge's evidence (and joins the pool), as abmind's
    /// S8 gave it: letting every edge of the walk lend its memories evidence cost the
    /// labelled set's paraphrase questions that name two entities (nDCG@10 0.747 → 0.735
    /// without vectors).
    fn fused_s8(
        &self,
        q: &StageQuery,
        terms: &[String],
        pool: &mut Pool,
        found: &mut Found,
    ) -> StageReport {
        let started = q.time();
        let graph_match = self.s8_personalized(q, terms);
        found.edges = graph_match.hits;
        // The hints say what the question is about: an edge's coverage reads them as its words.
        let with_hints;
        let terms = if q.entity_hints.is_empty() {
            terms
        } else {
            with_hints = evidence::query_terms(&format!("{} {}", q.text, q.entity_hints.join(" ")));
            &with_hints
        };
        // A seed counts as covered in its own edges (whose text names it), whatever alias the
        // query used.
        let seeds: Vec<_> = (graph_match.seeds.iter())
            .filter_map(|name| self.graph.entity(name))
            .collect();
        for (i, hit) in found.edges.iter().enumerate() {
            let mut text = hit.text.clone();
            let mut lends = false;
            for (k, e) in seeds.iter().enumerate() {
                if hit.text.starts_with(&e.name) || hit.text.ends_with(&e.name) {
                    text.push(' ');
                    text.push_str(&e.aliases.join(" "));
                    lends |= k == 0;
                }
            }
            let coverage = evidence::coverage(terms, &text);
            // Evidence fades with the walk: the first seed's own edges give all of it (as
            // abmind's S8 did), the others their share of the best edge's mass.
            let share = if lends {
                1.0
            } else {
                hit.ppr / found.edges[0].ppr
            };
            let graph = (hit.strength * coverage * share).clamp(0.0, 1.0);
            let mut c = edge_candidate(i, hit);
            c.evidence.lexical = coverage;
            c.evidence.graph = graph;
            c.evidence.s8_rank = Some(i as u32 + 1);
            c.facts = neutral_facts(1.0);
            c.components.push(("strength", hit.strength));
            c.components.push(("ppr", hit.ppr));
            pool.push(c);
            // Only the first seed's own edges lend their memories evidence (abmind's S8 rule):
            // the walk's other edges are results of their own.
            let cited = (self.graph.edge(&hit.edge_id))
                .filter(|_| lends)
                .map(|e| e.memory_ids.clone());
            for id in cited.unwrap_or_default() {
                let Some(doc) = self.ids.get(&id, &self.records) else {
                    continue;
                };
                if !accepts(&self.records, q.filter, doc) {
                    continue;
                }
                let Some(j) = pool.slot(self, doc, "S8", graph) else {
                    continue;
                };
                let e = &mut pool.cands[j].evidence;
                e.graph = e.graph.max(graph);
                e.s8_rank = Some(e.s8_rank.map_or(i as u32 + 1, |r| r.min(i as u32 + 1)));
            }
        }
        StageReport::ran("S8", found.edges.len(), q.time() - started)
    }

    /// The facts of every memory candidate, and its coverage of the query where the porter
    /// postings did not give it (`covered`) and the model reads it.
    fn fused_facts(
        &self,
        pool: &mut Pool,
        covered: &[bool],
        terms: &[String],
        options: &RecallOptions,
        ranking: Ranking,
    ) {
        let coverage_weight = self.config.fusion.coverage_weight;
        if ranking == Ranking::Weighted || coverage_weight > 0.0 {
            let uncovered: Vec<(usize, DocId)> = (pool.cands.iter().enumerate())
                .filter(|&(i, _)| !covered.get(i).copied().unwrap_or(false))
                .filter_map(|(i, c)| match c.key {
                    CandidateKey::Memory(doc) if self.memory(doc).is_some() => Some((i, doc)),
                    _ => None,
                })
                .collect();
            let docs: Vec<DocId> = uncovered.iter().map(|&(_, doc)| doc).collect();
            for (&(i, _), share) in uncovered.iter().zip(self.coverages(terms, &docs)) {
                pool.cands[i].evidence.exact = share;
            }
        }
        for c in pool.cands.iter_mut() {
            if let CandidateKey::Memory(doc) = c.key {
                if let Some(m) = self.memory(doc) {
                    c.facts = self.facts(m, terms, options, ranking);
                    if ranking == Ranking::Recallkit && coverage_weight > 0.0 {
                        c.evidence.lexical = self
                            .config
                            .fusion
                            .lexical(c.evidence.lexical, c.evidence.exact);
                    }
                }
            }
        }
    }

    /// The adjacent memories among the candidates ([`model::written_in_one_sitting`]): each
    /// memory candidate and the ones inserted up to [`model::ADJACENT_SPAN`] after it, by the
    /// same user, under the same topic, in one sitting; positions in the pool and distance.
    fn adjacent_pairs(&self, pool: &Pool) -> Vec<(u32, u32, u32)> {
        let mut pairs = Vec::new();
        for (a, c) in pool.cands.iter().enumerate() {
            let CandidateKey::Memory(doc) = c.key else {
                continue;
            };
            let Some(m) = self.memory(doc) else {
                continue;
            };
            for distance in 1..=model::ADJACENT_SPAN {
                let Some(next) = doc.0.checked_add(distance).map(DocId) else {
                    break;
                };
                // The record's fields first, the pool's hash last: most neighbours fail the
                // sitting test (memories written apart), and then cost no lookup.
                let Some(n) = self.memory(next) else {
                    continue;
                };
                if !model::written_in_one_sitting(m.created_at(), n.created_at())
                    || n.user_id() != m.user_id()
                    || n.topic_bytes() != m.topic_bytes()
                {
                    continue;
                }
                if let Some(b) = pool.position(next) {
                    pairs.push((a as u32, b as u32, distance));
                }
            }
        }
        pairs
    }

    /// The share of `terms` (porter stems, [`evidence::query_terms`]) each memory of `docs`
    /// holds in its `textEn`: what [`evidence::coverage`] reads from the text, read from the
    /// porter postings instead (which leave keywords out, as the text does), one seek per
    /// term and memory in document order. Tokenising and stemming each candidate's text was
    /// a tenth of a hybrid recall at 1k memories.
    fn coverages(&self, terms: &[String], docs: &[DocId]) -> Vec<f64> {
        let mut held = vec![0u32; docs.len()];
        let order = sort::order_by_key(docs.iter().map(|d| u64::from(d.0)));
        let view = self.porter.view(self.fuzzy_en.terms());
        for term in terms {
            let Some(list) = view.phrase(term) else {
                continue;
            };
            let mut list = Membership::new(list.postings());
            for &i in &order {
                if list.holds(docs[i as usize]) {
                    held[i as usize] += 1;
                }
            }
        }
        let n = terms.len().max(1) as f64;
        held.into_iter().map(|h| f64::from(h) / n).collect()
    }

    /// The facts the models read about memory `m` (see [`Facts`]).
    fn facts(
        &self,
        m: &StoredMemory,
        terms: &[String],
        options: &RecallOptions,
        ranking: Ranking,
    ) -> Facts {
        let now = options.filter.now;
        let params = &self.config.score;
        let seed = SfComponents::new(0.0, m, now, params);
        let emotion = if m.emotion().is_finite() {
            1.0 + m.emotion().abs() * params.emotion_boost
        } else {
            1.0
        };
        let prior = (1.0 + seed.recall_boost)
            * (1.0 + seed.relevance_boost)
            * seed.trust_factor
            * seed.credibility_factor
            * seed.tier_boost
            * emotion
            * crate::rank::boost::spacing_factor(m.recall_timestamps());
        let last_access = m.last_recalled_at().unwrap_or(m.created_at());
        let accessed =
            (1.0 - ((now - last_access) / MS_PER_DAY).max(0.0) / ACCESS_HORIZON_DAYS).max(0.0);
        let tags = if ranking == Ranking::Weighted && !terms.is_empty() {
            let joined = m.tag_list().join(" ");
            evidence::coverage(terms, &joined)
        } else {
            0.0
        };
        let window = options.filter.start.is_some() || options.filter.end.is_some();
        Facts {
            importance: m.importance().unwrap_or(0.5),
            confidence: m.confidence().unwrap_or(0.5),
            fresh: fresh(m.created_at(), now, self),
            accessed,
            tags,
            temporal: if window { 1.0 } else { 0.0 },
            prior,
        }
    }
}

/// abmind's linear recency without its floor: `max(0, 1 − ageDays / decayDays)`, 1 for a
/// time in the future.
fn fresh(created_at: f64, now: f64, engine: &Engine) -> f64 {
    let age_days = ((now - created_at) / MS_PER_DAY).max(0.0);
    let fresh = 1.0 - age_days / engine.config.score.decay_days;
    if fresh.is_nan() {
        0.0
    } else {
        fresh.clamp(0.0, 1.0)
    }
}

/// Facts of a note paragraph or an edge: no metadata of their own (importance and confidence
/// neutral, no prior).
fn neutral_facts(fresh: f64) -> Facts {
    Facts {
        importance: 0.5,
        confidence: 0.5,
        fresh,
        accessed: fresh,
        tags: 0.0,
        temporal: 0.0,
        prior: 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineConfig;
    use crate::store::Memory;

    #[test]
    fn coverage_from_the_postings_equals_coverage_from_the_text() {
        let texts = [
            (
                "a",
                "We deployed the billing service on Friday",
                None,
                vec![],
            ),
            (
                "b",
                "Deploying services: billing deploys twice",
                None,
                vec![],
            ),
            (
                "c",
                "Friday is the team's day off",
                None,
                vec!["deploy", "billing"],
            ),
            (
                "d",
                "Le service de facturation",
                Some("The invoicing service"),
                vec![],
            ),
            ("e", "billing billing billing", None, vec!["friday"]),
            ("f", "billing friday, removed", None, vec![]),
        ];
        let mut e = Engine::new(EngineConfig::default()).unwrap();
        let memories = (texts.iter())
            .map(|(id, text, en, keywords)| Memory {
                id: (*id).into(),
                text: (*text).into(),
                text_en: en.map(Into::into),
                keywords: keywords.iter().map(|k| (*k).into()).collect(),
                ..Memory::default()
            })
            .collect();
        e.insert_many(memories, &[]).unwrap();
        e.remove("f").unwrap();
        let docs: Vec<DocId> = (0..6).rev().map(DocId).collect();
        for query in [
            "deploy billing friday",
            "services invoicing",
            "the day off",
            "nothing here",
            "",
        ] {
            let terms = evidence::query_terms(query);
            let from_postings = e.coverages(&terms, &docs);
            for (doc, share) in docs.iter().zip(from_postings) {
                let text = e.memory(*doc).map_or("", |m| m.text_en());
                let from_text = evidence::coverage(&terms, text);
                assert_eq!(share, from_text, "{query:?} doc {}", doc.0);
            }
        }
    }
}
