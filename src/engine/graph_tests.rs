//! The graph through the whole engine: edges that hold for a time (Memoria's bi-temporal
//! facts: `asOf`, `includeInvalid`) in every ranking and in the expansions, and stage S8's
//! Personalized PageRank (Memoria's graph signal) beside abmind's first-match lookup.

use super::*;
use crate::graph::Relation;

/// 2024-06-01 and the years of Memoria's example, in ms.
const NOW: f64 = 1_717_200_000_000.0;
const Y2019: f64 = 1_546_300_800_000.0;
const Y2020: f64 = 1_577_836_800_000.0;
const Y2021: f64 = 1_609_459_200_000.0;

const RANKINGS: [Ranking; 5] = Ranking::ALL;

fn options(ranking: Ranking) -> RecallOptions {
    let mut o = RecallOptions {
        track_recalls: false,
        ranking: Some(ranking),
        ..RecallOptions::default()
    };
    o.filter.now = NOW;
    o
}

fn edge_ids(out: &RecallOutput) -> Vec<&str> {
    let mut ids: Vec<&str> = (out.results.iter())
        .filter(|h| h.kind == HitKind::Edge)
        .map(|h| h.id.as_str())
        .collect();
    ids.sort();
    ids
}

fn component(hit: &RecallHit, name: &str) -> Option<f64> {
    hit.components.0.iter().find(|c| c.0 == name).map(|c| c.1)
}

/// Memoria's example: Stefan lived in Berlin from 2019 until 2021, then in Stockholm; the
/// Berlin edge was recorded in 2019, the Stockholm one when he moved.
fn stefan() -> Engine {
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    let memory = |id: &str, text: &str, at: f64| Memory {
        id: id.into(),
        text: text.into(),
        created_at: at,
        updated_at: at,
        ..Memory::default()
    };
    e.insert_many(
        vec![
            memory("berlin", "Moved to a flat in Kreuzberg", Y2019),
            memory("stockholm", "Moved to a flat in Södermalm", Y2021),
        ],
        &[],
    )
    .unwrap();
    let berlin = Relation {
        valid_from: Some(Y2019),
        valid_to: Some(Y2021),
        memory_ids: vec!["berlin".into()],
        ..Relation::new("Stefan", "lives in", "Berlin")
    };
    e.relate(&berlin, Y2019).unwrap();
    let stockholm = Relation {
        valid_from: Some(Y2021),
        memory_ids: vec!["stockholm".into()],
        ..Relation::new("Stefan", "lives in", "Stockholm")
    };
    e.relate(&stockholm, Y2021).unwrap();
    e
}

#[test]
fn an_edge_holds_for_its_time_in_every_ranking() {
    let mut e = stefan();
    for ranking in RANKINGS {
        let mut read = |as_of: Option<f64>, include_invalid: bool| {
            let mut o = options(ranking);
            o.filter.as_of = as_of;
            o.filter.include_invalid = include_invalid;
            let out = e
                .recall("where does Stefan live?", &o, None, &|| 0.0)
                .unwrap();
            edge_ids(&out).join(", ")
        };
        assert_eq!(
            read(Some(Y2020), false),
            "stefan|lives_in|berlin",
            "{ranking:?}"
        );
        assert_eq!(
            read(None, false),
            "stefan|lives_in|stockholm",
            "{ranking:?}"
        );
        assert_eq!(
            read(None, true),
            "stefan|lives_in|berlin, stefan|lives_in|stockholm",
            "{ranking:?}"
        );
        assert_eq!(read(Some(Y2019 - 1.0), false), "", "not recorded yet");
        assert_eq!(
            read(Some(Y2021 + 1.0), true),
            "stefan|lives_in|stockholm",
            "asOf wins over includeInvalid"
        );
    }
}

#[test]
fn the_expansions_and_the_listings_read_edges_as_the_recall_does() {
    let mut e = stefan();
    let mut o = options(Ranking::Recallkit);
    o.expand_relations = true;
    o.filter.as_of = Some(Y2020);
    let out = e.recall("Kreuzberg flat", &o, None, &|| 0.0).unwrap();
    let flat = out.results.iter().find(|h| h.id == "berlin").unwrap();
    assert_eq!(
        flat.relations.as_deref(),
        Some(&["stefan|lives_in|berlin".to_string()][..])
    );
    o.filter.as_of = None;
    let out = e.recall("Kreuzberg flat", &o, None, &|| 0.0).unwrap();
    let flat = out.results.iter().find(|h| h.id == "berlin").unwrap();
    assert_eq!(
        flat.relations.as_deref(),
        Some(&[][..]),
        "the Berlin edge has ended"
    );
    // A listing is of the stored records: every edge, whatever its validity.
    let all = crate::recall::Filter::for_scope(crate::store::Scope::new(None, None));
    assert_eq!(e.visible_edges(&all).len(), 2);
}

#[test]
fn a_validity_is_checked_and_a_bad_one_changes_nothing() {
    let mut e = stefan();
    let backwards = Relation {
        valid_from: Some(Y2021),
        valid_to: Some(Y2020),
        ..Relation::new("Stefan", "works at", "Spotify")
    };
    let err = e.relate(&backwards, NOW).unwrap_err();
    assert_eq!(err.code(), "invalid_argument");
    assert!(err.to_string().contains("validTo"), "{err}");
    // Ending Stockholm before it started, on the existing edge.
    let ends_early = Relation {
        valid_to: Some(Y2020),
        ..Relation::new("Stefan", "lives in", "Stockholm")
    };
    assert_eq!(
        e.relate(&ends_early, NOW).unwrap_err().code(),
        "invalid_argument"
    );
    assert_eq!(e.graph().edge_count(), 2);
    assert!(e.graph().entity("Spotify").is_none());
    let stockholm = e.graph().edge("stefan|lives_in|stockholm").unwrap();
    assert_eq!((stockholm.valid_to, stockholm.last_seen_at), (None, Y2021));
    // Ending it later is a relate like any other.
    let moved_on = Relation {
        valid_to: Some(NOW),
        ..Relation::new("Stefan", "lives in", "Stockholm")
    };
    let edge = e.relate(&moved_on, NOW).unwrap();
    assert_eq!((edge.valid_from, edge.valid_to), (Some(Y2021), Some(NOW)));
}

/// The example: the Tuesday project, what it depends on, and who owns it.
fn tuesday() -> Engine {
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    for (from, relation, to) in [
        ("Tuesday project", "depends on", "Auth service"),
        ("Auth service", "depends on", "Postgres"),
        ("Tuesday project", "owned by", "Priya"),
        ("Priya", "lives in", "Lisbon"),
        ("Acme", "acquired by", "Globex"),
    ] {
        let r = Relation {
            strength: Some(0.8),
            ..Relation::new(from, relation, to)
        };
        e.relate(&r, NOW).unwrap();
    }
    e
}

#[test]
fn pagerank_finds_the_dependency_two_hops_away_and_abmind_keeps_its_first_match() {
    let mut e = tuesday();
    let query = "what does my tuesday project depend on?";
    for ranking in [
        Ranking::Recallkit,
        Ranking::Rrf,
        Ranking::Composite,
        Ranking::Weighted,
    ] {
        let out = e.recall(query, &options(ranking), None, &|| 0.0).unwrap();
        let ids = edge_ids(&out);
        assert!(
            ids.contains(&"tuesday project|depends_on|auth service"),
            "{ranking:?} {ids:?}"
        );
        assert!(
            ids.contains(&"auth service|depends_on|postgres"),
            "{ranking:?} {ids:?}"
        );
        for hit in out.results.iter().filter(|h| h.kind == HitKind::Edge) {
            assert!(
                component(hit, "ppr").is_some_and(|p| p > 0.0),
                "{ranking:?} {}",
                hit.id
            );
        }
    }
    let out = e
        .recall(query, &options(Ranking::Abmind), None, &|| 0.0)
        .unwrap();
    assert_eq!(
        edge_ids(&out),
        [
            "tuesday project|depends_on|auth service",
            "tuesday project|owned_by|priya"
        ],
        "abmind: the first entity's own edges, as before"
    );
}

#[test]
fn a_relation_type_is_searchable() {
    let mut e = tuesday();
    let out = e
        .recall(
            "which company was acquired by another?",
            &options(Ranking::Recallkit),
            None,
            &|| 0.0,
        )
        .unwrap();
    assert_eq!(edge_ids(&out), ["acme|acquired_by|globex"]);
    assert_eq!(out.results[0].text, "Acme —[acquired_by]→ Globex");
}

#[test]
fn entity_hints_seed_pagerank_and_are_checked() {
    let mut e = tuesday();
    let mut o = options(Ranking::Recallkit);
    o.entity_hints = vec!["globex".into(), "Unknown Co".into()];
    let out = e.recall("who bought it?", &o, None, &|| 0.0).unwrap();
    assert_eq!(edge_ids(&out), ["acme|acquired_by|globex"]);
    // abmind's S8 reads the query only.
    o.ranking = Some(Ranking::Abmind);
    let out = e.recall("who bought it?", &o, None, &|| 0.0).unwrap();
    assert!(edge_ids(&out).is_empty());
    for (hints, message) in [
        (
            vec!["—".to_string()],
            "entityHints \"—\" has no letters or digits",
        ),
        (
            (0..17).map(|i| format!("e{i}")).collect(),
            "entityHints must hold at most 16 names, got 17",
        ),
    ] {
        o.entity_hints = hints;
        let err = e.recall("x", &o, None, &|| 0.0).unwrap_err();
        assert_eq!(err.to_string(), format!("invalid_argument: {message}"));
    }
}

#[test]
fn pagerank_never_reaches_another_users_entities_or_edges() {
    let mut e = tuesday();
    // Bob's private project depends on the shared Auth service.
    let private = Relation {
        user_id: Some("bob".into()),
        strength: Some(1.0),
        ..Relation::new("Bob's secret project", "depends on", "Auth service")
    };
    e.relate(&private, NOW).unwrap();
    for ranking in [Ranking::Recallkit, Ranking::Rrf] {
        let mut o = options(ranking);
        o.filter.user_id = Some("alice".into());
        o.entity_hints = vec!["Bob's secret project".into()];
        let out = e
            .recall("tuesday project auth service", &o, None, &|| 0.0)
            .unwrap();
        assert!(!edge_ids(&out).is_empty());
        assert!(
            out.results.iter().all(|h| !h.text.contains("secret")),
            "{ranking:?}"
        );
        o.filter.user_id = Some("bob".into());
        let out = e
            .recall("tuesday project auth service", &o, None, &|| 0.0)
            .unwrap();
        assert!(edge_ids(&out).contains(&"bob s secret project|depends_on|auth service"));
    }
}
