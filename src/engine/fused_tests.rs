//! The default (`recallkit`) ranking through the whole engine: what issue-level promises look
//! like in small stores (scores that mean something, evidence that adds up, age as a
//! preference, nothing returned for nothing relevant).

use super::*;
use crate::notes::Period;

const DAY: f64 = 86_400_000.0;
const NOW: f64 = 1_800_000_000_000.0;

fn memory(id: &str, text: &str) -> Memory {
    Memory {
        id: id.into(),
        text: text.into(),
        created_at: NOW,
        updated_at: NOW,
        ..Memory::default()
    }
}

fn options() -> RecallOptions {
    let mut o = RecallOptions {
        track_recalls: false,
        ..RecallOptions::default()
    };
    o.filter.now = NOW;
    o
}

fn engine(memories: Vec<Memory>) -> Engine {
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    e.insert_many(memories, &[]).unwrap();
    e
}

use crate::test_support::ids;

fn component(hit: &RecallHit, name: &str) -> Option<f64> {
    hit.components.0.iter().find(|c| c.0 == name).map(|c| c.1)
}

#[test]
fn the_quick_start_answer_comes_first_with_a_score_of_at_least_a_half() {
    let mut e = engine(vec![
        memory("db", "We migrated the project database to SQLite with FTS5"),
        memory("ci", "The deployment pipeline runs every Friday"),
    ]);
    let out = e
        .recall(
            "what database does the project use?",
            &options(),
            None,
            &|| 0.0,
        )
        .unwrap();
    assert_eq!(ids(&out), ["db"]);
    assert!(out.results[0].score >= 0.5, "{}", out.results[0].score);
}

#[test]
fn a_memory_holding_every_query_word_outranks_a_note_or_edge_sharing_one() {
    let mut e = engine(vec![
        memory("a", "Switched the blog to sqlite for comments"),
        memory("b", "Gardening notes: tomatoes need sun"),
        memory("c", "Coffee with Ana on Tuesday"),
    ]);
    e.add_note(Note::new(
        "w",
        Period::Weekly,
        NOW - 7.0 * DAY,
        "We looked at sqlite and the blog",
        NOW,
    ))
    .unwrap();
    let out = e
        .recall("sqlite comments", &options(), None, &|| 0.0)
        .unwrap();
    assert_eq!(out.results[0].id, "a", "{:?}", ids(&out));
    let note = out
        .results
        .iter()
        .find(|r| r.kind == HitKind::Note)
        .unwrap();
    assert!(note.score < out.results[0].score);
    let one_word = e.recall("sqlite", &options(), None, &|| 0.0).unwrap();
    assert_eq!(one_word.results[0].id, "a", "{:?}", ids(&one_word));
}

#[test]
fn an_old_exact_answer_stays_in_the_top_ten_among_recent_near_misses() {
    let mut old = memory(
        "answer",
        "The billing service deploys from the eu-west cluster",
    );
    old.created_at = NOW - 365.0 * DAY;
    let mut memories = vec![old];
    for i in 0..500 {
        let mut m = memory(
            &format!("m{i}"),
            &format!("Note {i} about the billing team lunch"),
        );
        m.created_at = NOW - f64::from(i % 30) * DAY;
        memories.push(m);
    }
    let mut e = engine(memories);
    let out = e
        .recall(
            "which cluster does the billing service deploy from",
            &options(),
            None,
            &|| 0.0,
        )
        .unwrap();
    assert_eq!(out.results[0].id, "answer", "{:?}", &ids(&out)[..3]);
}

#[test]
fn a_question_about_the_latest_state_weighs_age_more() {
    let mut old = memory("old", "Ana works at Acme as an engineer");
    old.created_at = NOW - 300.0 * DAY;
    let new = memory("new", "Ana works at Globex now, as an engineer");
    let mut e = engine(vec![old, new]);
    let plain = e
        .recall("where does Ana work", &options(), None, &|| 0.0)
        .unwrap();
    let latest = e
        .recall("where does Ana currently work", &options(), None, &|| 0.0)
        .unwrap();
    let recency = |out: &RecallOutput, id: &str| {
        let hit = out.results.iter().find(|r| r.id == id).unwrap();
        component(hit, "recency").unwrap()
    };
    assert!(recency(&latest, "old") < recency(&plain, "old"));
    assert_eq!(latest.results[0].id, "new");
}

#[test]
fn nothing_relevant_returns_nothing_and_zero_scores_never_fill_the_limit() {
    let mut e = engine(vec![
        memory("g", "Planted tomatoes and basil in the garden"),
        memory("t", "Tea with grandma on Sunday"),
    ]);
    let out = e
        .recall("billing postgres deadline", &options(), None, &|| 0.0)
        .unwrap();
    assert!(out.results.is_empty(), "{:?}", ids(&out));
    let stages: Vec<(&str, Option<&str>)> = out
        .stages
        .iter()
        .map(|s| (s.name, s.reason.as_deref()))
        .collect();
    assert!(stages.contains(&("Ss", Some("not_ranked"))), "{stages:?}");
}

#[test]
fn evidence_from_sf_and_se_adds_up_and_the_query_itself_ranks_first() {
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    let same = [1.0f32, 0.0, 0.0, 0.0];
    let other = [0.0f32, 1.0, 0.0, 0.0];
    let near = [0.96f32, 0.28, 0.0, 0.0];
    e.insert_many(
        vec![
            memory("unrelated", "Quarterly taxes are due in April"),
            memory("query", "restart the staging cluster"),
            memory("near", "bring the test environment back up"),
        ],
        &[Some(&other), Some(&same), Some(&near)],
    )
    .unwrap();
    let out = e
        .recall(
            "restart the staging cluster",
            &options(),
            Some(&same),
            &|| 0.0,
        )
        .unwrap();
    assert_eq!(out.results[0].id, "query");
    // A memory with cosine ≥ 0.9 is in the top 3, though it shares no word.
    assert!(
        ids(&out)[..out.results.len().min(3)].contains(&"near"),
        "{:?}",
        ids(&out)
    );
    // Found by Sf and Se: above what the lexical evidence alone gives in this recall
    // (0.6 × lexical, as for a memory whose vector is unrelated), and above Se's part alone.
    let both = &out.results[0];
    let lexical = component(both, "lexical").unwrap();
    let semantic = component(both, "semantic").unwrap();
    assert!(semantic > 0.0 && lexical > 0.0);
    assert!(
        both.score > 0.6 * lexical && both.score > 0.4 * semantic,
        "{}",
        both.score
    );
}

#[test]
fn porter_bm25_in_the_components_is_fts5_s_value() {
    let mut e = engine(vec![
        memory("a", "The deployment pipeline runs every Friday"),
        memory("b", "Deploying on Fridays is risky"),
        memory("c", "Lunch at noon"),
    ]);
    let out = e
        .recall("deployment friday", &options(), None, &|| 0.0)
        .unwrap();
    let a = out.results.iter().find(|h| h.id == "a").unwrap();
    // FTS5 by hand: stems the deploy pipelin run everi fridai (|a| = 6), avgdl 14/3;
    // "deploy" is in 1 of 3 memories, "fridai" in 2 (idf 1e-6).
    let k = 1.2 * (0.25 + 0.75 * 6.0 / (14.0 / 3.0));
    let want = (2.5f64 / 1.5).ln() * 2.2 / (1.0 + k) + 1e-6 * 2.2 / (1.0 + k);
    assert_eq!(component(a, "bm25"), Some(want));
    // The trigram sub-query's score is reported beside it, not in its place.
    assert!(component(a, "trigramBm25").unwrap() > want);
}

#[test]
fn every_ranking_answers_and_rejects_bad_weights() {
    let mut e = engine(vec![
        memory("a", "The deployment pipeline runs every Friday"),
        memory("b", "Lunch at noon"),
    ]);
    for ranking in [
        Ranking::Rrf,
        Ranking::Composite,
        Ranking::Weighted,
        Ranking::Abmind,
    ] {
        let o = RecallOptions {
            ranking: Some(ranking),
            ..options()
        };
        let out = e.recall("deployment pipeline", &o, None, &|| 0.0).unwrap();
        assert_eq!(out.results[0].id, "a", "{ranking:?}");
        assert!((0.0..=1.0).contains(&out.results[0].score), "{ranking:?}");
    }
    let bad = RecallOptions {
        ranking: Some(Ranking::Weighted),
        weights: vec![("vector".into(), -1.0)],
        ..options()
    };
    let err = e.recall("deployment", &bad, None, &|| 0.0).unwrap_err();
    assert_eq!(err.code(), "invalid_argument");
    let bad = RecallOptions {
        min_score: Some(2.0),
        ..options()
    };
    let err = e.recall("deployment", &bad, None, &|| 0.0).unwrap_err();
    assert_eq!(err.code(), "invalid_argument");
}

#[test]
fn a_memory_an_edge_cites_gains_graph_evidence() {
    let mut e = engine(vec![
        memory("m1", "Kickoff for the Atlas migration"),
        memory("m2", "Atlas kickoff slides"),
    ]);
    e.add_entity(crate::graph::Entity {
        name: "Atlas".into(),
        ..crate::graph::Entity::default()
    })
    .unwrap();
    e.add_entity(crate::graph::Entity {
        name: "Ana".into(),
        ..crate::graph::Entity::default()
    })
    .unwrap();
    let leads = crate::graph::Relation {
        strength: Some(1.0),
        memory_ids: vec!["m2".into()],
        ..crate::graph::Relation::new("Ana", "leads", "Atlas")
    };
    e.relate(&leads, NOW).unwrap();
    let out = e
        .recall("atlas kickoff", &options(), None, &|| 0.0)
        .unwrap();
    let m2 = out.results.iter().find(|r| r.id == "m2").unwrap();
    assert!(component(m2, "graph").unwrap() > 0.0);
    assert_eq!(out.results[0].id, "m2", "{:?}", ids(&out));
}

#[test]
fn an_edge_found_through_an_alias_is_returned() {
    let mut e = engine(vec![memory("m", "Lunch at noon")]);
    e.add_entity(crate::graph::Entity {
        name: "Zeppelin Museum".into(),
        aliases: vec!["Zeppelinmuseum".into()],
        ..crate::graph::Entity::default()
    })
    .unwrap();
    let wants = crate::graph::Relation {
        strength: Some(0.7),
        ..crate::graph::Relation::new("Tomás", "wants_to_visit", "Zeppelin Museum")
    };
    e.relate(&wants, NOW).unwrap();
    let out = e
        .recall("Zeppelinmuseum", &options(), None, &|| 0.0)
        .unwrap();
    let edge = out.results.iter().find(|r| r.kind == HitKind::Edge);
    assert!(edge.is_some_and(|h| h.score > 0.5), "{:?}", ids(&out));
}

#[test]
fn coverage_read_from_the_postings_equals_coverage_read_from_the_text() {
    let texts = [
        "Running runners ran; the runner's run was running late",
        "We migrated the project database to SQLite with FTS5",
        "Café Müller: cafés and CAFE au lait, naïve naivety",
        "The the the and of a",
        "deploy deployed deployment deploys redeploy",
        "Généralement, the project's databases are generally SQLite-based",
    ];
    let memories: Vec<Memory> = (texts.iter().enumerate())
        .map(|(i, t)| memory(&format!("m{i}"), t))
        .collect();
    let mut e = engine(memories);
    for query in [
        "running database",
        "the cafe of naive runners",
        "deployments project sqlite generally",
        "what is the SQLite project's database",
        "run run RUN runs",
    ] {
        let pending = e.begin_recall(query, options(), &|| 0.0).unwrap();
        let terms = crate::rank::evidence::query_terms(query);
        assert!(!pending.sf.is_empty(), "{query}");
        for hit in &pending.sf {
            let Some(got) = hit.coverage else { continue };
            let text = e.memory(hit.doc).unwrap().text_en().to_string();
            let want = crate::rank::evidence::coverage(&terms, &text);
            assert!(
                (got - want).abs() < 1e-12,
                "{query:?} in {text:?}: {got} vs {want}"
            );
        }
        assert!(pending.sf.iter().any(|h| h.coverage.is_some()), "{query}");
    }
}

#[test]
fn a_corrected_typo_keeps_its_lexical_match_above_vector_near_misses() {
    // The query's vector was made from "webeor", which means nothing to the model: it points
    // at the memories sharing the query's common words. The lexical stage reads "webeor" as
    // "weber" and finds the one memory that holds it; the vector must not hold it back.
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    let query_vector = [1.0f32, 0.0, 0.0, 0.0];
    let mut memories = vec![memory(
        "weber",
        "Met Maria Weber in Jakarta; we talked with a client about the book",
    )];
    let mut vectors = vec![[0.0f32, 1.0, 0.0, 0.0]];
    for (i, topic) in ["invoice", "roadmap", "budget"].iter().enumerate() {
        memories.push(memory(
            &format!("near{i}"),
            &format!("We talked with the client about the {topic}"),
        ));
        vectors.push([0.9, 0.1 * i as f32, 0.3, 0.0]);
    }
    for i in 0..40 {
        memories.push(memory(
            &format!("filler{i}"),
            &format!("Client errand number {i}"),
        ));
        vectors.push([0.0, 0.0, (i % 2) as f32, 1.0]);
    }
    let refs: Vec<Option<&[f32]>> = vectors.iter().map(|v| Some(&v[..])).collect();
    e.insert_many(memories, &refs).unwrap();
    let out = e
        .recall(
            "Webeor talked client",
            &options(),
            Some(&query_vector),
            &|| 0.0,
        )
        .unwrap();
    assert_eq!(out.results[0].id, "weber", "{:?}", ids(&out));
    assert_eq!(component(&out.results[0], "correctedWords"), Some(1.0));
    // Spelled right, nothing is corrected and the same memory still comes first.
    let out = e
        .recall(
            "Weber talked client",
            &options(),
            Some(&query_vector),
            &|| 0.0,
        )
        .unwrap();
    assert_eq!(out.results[0].id, "weber", "{:?}", ids(&out));
    assert_eq!(component(&out.results[0], "correctedWords"), None);
}

#[test]
fn only_words_read_as_a_neighbour_the_stemmer_does_not_know_count_as_corrected() {
    let mut e = engine(vec![
        memory("a", "The postgres replica lags behind"),
        memory("b", "Two kittens sleep on the sofa"),
    ]);
    for (query, corrected) in [
        ("postgres replica", 0),
        ("postgress replica", 1),   // one edit from "postgres"
        ("postgress replca", 2),    // two words, one edit each
        ("kitten sofa", 0),         // the stem of "kittens": the same word, not a correction
        ("zebra replica", 0),       // unknown, and no neighbour to read it as
        ("postgress postgress", 1), // counted once
    ] {
        let pending = e.begin_recall(query, options(), &|| 0.0).unwrap();
        assert_eq!(pending.corrected, corrected, "{query}");
    }
}

/// A conversation: turns one minute apart, by `user`; the reply to the question about
/// painting names no painting, and a later turn by the same speaker matches the query as
/// weakly as the reply does.
fn conversation(user: &str, reply_user: &str, minute: f64) -> Vec<Memory> {
    let turns = [
        (
            "ask",
            user,
            "Melanie: What did you paint in your class last week?",
        ),
        (
            "reply",
            reply_user,
            "Caroline: A sunset over the lake, with purple clouds.",
        ),
        (
            "f1",
            user,
            "Melanie: That sounds lovely, the kids would like it.",
        ),
        ("f2", user, "Melanie: We are going camping next month."),
        ("f3", user, "Melanie: The tent is still in the garage."),
        (
            "later",
            user,
            "Caroline: A long walk along the river, with my dog.",
        ),
    ];
    turns
        .iter()
        .enumerate()
        .map(|(i, (id, u, text))| {
            let at = NOW - DAY + i as f64 * minute;
            Memory {
                user_id: Some((*u).into()),
                created_at: at,
                updated_at: at,
                ..memory(id, text)
            }
        })
        .collect()
}

#[test]
fn the_turn_after_a_matching_one_gains_a_share_of_its_score() {
    let query = "what did Caroline paint?";
    let mut e = engine(conversation("u", "u", 60_000.0));
    let out = e.recall(query, &options(), None, &|| 0.0).unwrap();
    let rank = |id: &str| out.results.iter().position(|h| h.id == id);
    let reply = &out.results[rank("reply").expect("the reply is found")];
    assert!(component(reply, "adjacent").unwrap() > 0.0);
    assert!(rank("reply") < rank("later"), "{:?}", ids(&out));
    let later = &out.results[rank("later").unwrap()];
    assert_eq!(
        component(later, "adjacent"),
        None,
        "no matching turn beside it"
    );

    // With the weight at 0 no memory gains anything from its neighbours.
    let mut config = EngineConfig::default();
    config.fusion.adjacent_weight = 0.0;
    let mut e = Engine::new(config).unwrap();
    e.insert_many(conversation("u", "u", 60_000.0), &[])
        .unwrap();
    let off = e.recall(query, &options(), None, &|| 0.0).unwrap();
    assert!(off
        .results
        .iter()
        .all(|h| component(h, "adjacent").is_none()));
}

#[test]
fn a_batch_written_at_one_instant_or_another_user_s_turn_gains_nothing_from_its_neighbours() {
    let query = "what did Caroline paint?";
    for memories in [
        conversation("u", "u", 0.0),
        conversation("u", "v", 60_000.0),
        conversation("u", "u", 45.0 * 60_000.0),
    ] {
        let mut e = engine(memories);
        let out = e.recall(query, &options(), None, &|| 0.0).unwrap();
        assert!(
            out.results
                .iter()
                .all(|h| component(h, "adjacent").is_none()),
            "{:?}",
            out.results
        );
    }
}
