//! Isolation through the whole engine: a recall for one user below a classification ceiling
//! returns nothing of another user's or above the ceiling (memories, note paragraphs, edges)
//! and names no such id anywhere in a result (an edge's `memoryIds`, timelines, conflicts).
//! A seeded property test over every search mode and ranking, and the regressions of issue 27;
//! conversation turns reach only the recall that names their conversation (issue 25).

use super::*;
use crate::graph::Relation;
use crate::notes::Period;
use crate::rank::Ranking;
use crate::recall::filter::Filter;
use crate::store::Scope;
use crate::test_support::SplitMix64;

const DAY: f64 = 86_400_000.0;
const NOW: f64 = 1_800_000_000_000.0;
const DIMS: usize = 4;
const USERS: [&str; 3] = ["u0", "u1", "u2"];
const WORDS: [&str; 8] = [
    "atlas",
    "budget",
    "lisbon",
    "garden",
    "migration",
    "coffee",
    "deadline",
    "piano",
];
const NAMES: [&str; 5] = ["Ana", "Bo", "Cy", "Dee", "Eve"];
const RANKINGS: [Ranking; 5] = Ranking::ALL;
const MODES: [SearchMode; 3] = [
    SearchMode::Hybrid,
    SearchMode::Lexical,
    SearchMode::Semantic,
];

/// The shared seeded generator, with this test's vocabulary of random records.
struct Rng(SplitMix64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.index(n)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// A user, or `None` (shared) one time in four.
    fn owner(&mut self) -> Option<&'static str> {
        if self.below(4) == 0 {
            None
        } else {
            Some(self.pick(&USERS))
        }
    }

    fn words(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| self.pick(&WORDS))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn vector(&mut self) -> Vec<f32> {
        (0..DIMS)
            .map(|_| (self.below(2001) as f32 - 1000.0) / 1000.0 + 0.01)
            .collect()
    }
}

/// A store of every kind of record, for random owners at random levels.
fn random_engine(rng: &mut Rng) -> (Engine, Vec<String>) {
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    let mut ids = Vec::new();
    for i in 0..30 {
        let m = Memory {
            id: format!("m{i}"),
            text: format!("{} {}", rng.words(3), rng.pick(&NAMES)),
            user_id: rng.owner().map(str::to_owned),
            classification: rng.below(4) as i64,
            topic: Some(rng.pick(&["work", "home"]).to_owned()),
            created_at: NOW - rng.below(30) as f64 * DAY,
            updated_at: NOW,
            ..Memory::default()
        };
        let vector = rng.vector();
        ids.push(m.id.clone());
        e.insert(m, (rng.below(4) != 0).then_some(vector.as_slice()))
            .unwrap();
    }
    for i in 0..12 {
        let text = format!("{}\n\n{} {}", rng.words(4), rng.words(2), rng.pick(&NAMES));
        let start = NOW - rng.below(30) as f64 * DAY;
        let note = Note {
            user_id: rng.owner().map(str::to_owned),
            classification: rng.below(4) as i64,
            ..Note::new(format!("n{i}"), Period::Daily, start, text, NOW)
        };
        e.add_note(note).unwrap();
    }
    for _ in 0..3 {
        let entity = Entity {
            user_id: rng.owner().map(str::to_owned),
            classification: rng.below(4) as i64,
            aliases: vec![format!("{} {}", rng.pick(&NAMES), rng.pick(&WORDS))],
            ..Entity::new(rng.pick(&NAMES), NOW)
        };
        // A name another owner holds is refused: that is part of what is tested.
        let _ = e.add_entity(entity);
    }
    for _ in 0..25 {
        // Edges cite any memory, another user's too, and ids no memory has.
        let cited = (0..1 + rng.below(4))
            .map(|_| match rng.below(6) {
                0 => format!("ghost{}", rng.below(3)),
                _ => ids[rng.below(ids.len())].clone(),
            })
            .collect();
        let r = Relation {
            strength: Some(rng.below(11) as f64 / 10.0),
            memory_ids: cited,
            user_id: rng.owner().map(str::to_owned),
            classification: (rng.below(2) == 0).then(|| rng.below(4) as i64),
            ..Relation::new(
                rng.pick(&NAMES),
                rng.pick(&["knows", "works_on", "visited"]),
                rng.pick(&NAMES),
            )
        };
        let _ = e.relate(&r, NOW - rng.below(10) as f64 * DAY);
    }
    (e, ids)
}

/// Whether `scope` may see the record a result id names: a memory (by the memory rule), a
/// note paragraph (`note:<id>#<n>`) or an edge.
fn may_see(e: &Engine, filter: &Filter, id: &str) -> bool {
    if let Some(rest) = id.strip_prefix("note:") {
        let note_id = rest.rsplit_once('#').map_or(rest, |(n, _)| n);
        return e
            .note(note_id)
            .is_some_and(|n| filter.scope().sees(n.user_id.as_deref(), n.classification));
    }
    if let Some(edge) = e.graph().edge(id) {
        return e.graph().is_visible(edge, filter.scope());
    }
    may_see_memory(e, filter, id)
}

fn may_see_memory(e: &Engine, filter: &Filter, id: &str) -> bool {
    e.get(id).is_some_and(|m| {
        filter
            .user_id
            .as_ref()
            .map_or(true, |u| m.user_id.as_ref() == Some(u))
            && filter
                .max_classification
                .map_or(true, |max| m.classification <= max)
    })
}

/// Checks one recall's output; returns how many edge memory ids and note hits it showed.
fn check_output(e: &Engine, filter: &Filter, out: &RecallOutput, what: &str) -> (usize, usize) {
    let (mut cited, mut notes) = (0, 0);
    for hit in &out.results {
        assert!(may_see(e, filter, &hit.id), "{what}: result {}", hit.id);
        if let Some(m) = &hit.memory {
            assert_eq!(m.id, hit.id, "{what}");
        }
        if let Some(note) = &hit.note {
            assert!(may_see(e, filter, &format!("note:{}#0", note.id)), "{what}");
            notes += 1;
        }
        if let Some(edge) = &hit.edge {
            for id in &edge.memory_ids {
                assert!(
                    may_see_memory(e, filter, id),
                    "{what}: edge {} shows memory {id}",
                    edge.id
                );
                cited += 1;
            }
        }
        for item in hit.timeline.iter().flatten() {
            assert!(may_see(e, filter, &item.id), "{what}: timeline {}", item.id);
        }
        for id in hit.conflicts.iter().flatten() {
            assert!(may_see(e, filter, id), "{what}: conflict {id}");
        }
    }
    (cited, notes)
}

#[test]
fn no_recall_shows_another_users_or_a_higher_classified_record_in_any_mode_or_ranking() {
    let (mut cited, mut notes, mut edges) = (0, 0, 0);
    for seed in 0..24u64 {
        let mut rng = Rng(SplitMix64(seed));
        let (mut e, _) = random_engine(&mut rng);
        for round in 0..30 {
            let mut filter = Filter {
                user_id: Some(rng.pick(&USERS).to_owned()),
                max_classification: (rng.below(3) != 0).then(|| rng.below(4) as i64),
                now: NOW,
                ..Filter::default()
            };
            if rng.below(5) == 0 {
                filter.start = Some(NOW - 15.0 * DAY);
            }
            let mode = rng.pick(&MODES);
            let ranking = rng.pick(&RANKINGS);
            let (name, n) = (rng.pick(&NAMES), 1 + rng.below(2));
            let query = format!("{name} {}", rng.words(n));
            let options = RecallOptions {
                limit: 1 + rng.below(20),
                filter: filter.clone(),
                track_recalls: false,
                mode,
                ranking: Some(ranking),
                min_score: Some(0.0),
                ..RecallOptions::default()
            };
            let vector = rng.vector();
            let embedding = (mode != SearchMode::Lexical).then_some(vector.as_slice());
            let what =
                format!("seed {seed} round {round} {mode:?} {ranking:?} {query:?} {filter:?}");
            let out = e.recall(&query, &options, embedding, &|| 0.0).unwrap();
            let (c, n) = check_output(&e, &filter, &out, &what);
            cited += c;
            notes += n;
            edges += out.results.iter().filter(|h| h.edge.is_some()).count();
        }
        for user in USERS {
            let filter = Filter::for_scope(Scope::new(Some(user), Some(rng.below(4) as i64)));
            for n in e.visible_notes(&filter) {
                assert!(
                    may_see(&e, &filter, &format!("note:{}#0", n.id)),
                    "seed {seed}"
                );
            }
            for entity in e.visible_entities(&filter) {
                assert!(filter
                    .scope()
                    .sees(entity.user_id.as_deref(), entity.classification));
            }
            for edge in e.visible_edges(&filter) {
                assert!(
                    may_see(&e, &filter, &edge.id),
                    "seed {seed}: edge {}",
                    edge.id
                );
                for id in &edge.memory_ids {
                    assert!(may_see_memory(&e, &filter, id), "seed {seed}: {id}");
                }
            }
        }
    }
    // The test means something only if notes, edges and their cited memories come back.
    assert!(
        notes > 50 && edges > 50 && cited > 20,
        "{notes} {edges} {cited}"
    );
}

fn shared_edge_citing(e: &mut Engine, ids: &[&str]) {
    let r = Relation {
        memory_ids: ids.iter().map(|s| s.to_string()).collect(),
        ..Relation::new("Ana", "works_on", "Atlas")
    };
    e.relate(&r, NOW).unwrap();
}

fn owned_memory(id: &str, user: &str, classification: i64) -> Memory {
    Memory {
        id: id.into(),
        text: format!("Ana on the atlas migration ({id})"),
        user_id: Some(user.into()),
        classification,
        created_at: NOW,
        updated_at: NOW,
        ..Memory::default()
    }
}

fn options_for(user: &str, max: Option<i64>, ranking: Ranking) -> RecallOptions {
    let mut o = RecallOptions {
        track_recalls: false,
        ranking: Some(ranking),
        min_score: Some(0.0),
        ..RecallOptions::default()
    };
    o.filter.user_id = Some(user.into());
    o.filter.max_classification = max;
    o.filter.now = NOW;
    o
}

#[test]
fn an_edge_never_shows_the_ids_of_memories_its_reader_may_not_see() {
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    e.insert(owned_memory("alice-1", "alice", 0), None).unwrap();
    e.insert(owned_memory("alice-secret", "alice", 5), None)
        .unwrap();
    e.insert(owned_memory("bob-1", "bob", 0), None).unwrap();
    shared_edge_citing(&mut e, &["alice-1", "alice-secret", "bob-1", "not-stored"]);
    for ranking in RANKINGS {
        let recall = |e: &mut Engine, user, max| {
            let out = e
                .recall(
                    "what is Ana working on?",
                    &options_for(user, max, ranking),
                    None,
                    &|| 0.0,
                )
                .unwrap();
            let edge = out.results.iter().find_map(|h| h.edge.clone());
            let memories: Vec<String> = out
                .results
                .iter()
                .filter(|h| h.kind == HitKind::Memory)
                .map(|h| h.id.clone())
                .collect();
            (edge.expect("the shared edge is shown").memory_ids, memories)
        };
        let (cited, memories) = recall(&mut e, "bob", None);
        assert_eq!(cited, ["bob-1"], "{ranking:?}");
        assert!(memories.iter().all(|id| id == "bob-1"), "{ranking:?}");
        let (cited, _) = recall(&mut e, "alice", Some(1));
        assert_eq!(cited, ["alice-1"], "{ranking:?}");
        let (cited, _) = recall(&mut e, "alice", None);
        assert_eq!(cited, ["alice-1", "alice-secret"], "{ranking:?}");
    }
    // Stored as given; the unfiltered listing (persistence, export) shows every id.
    let stored = e.graph().edge("ana|works_on|atlas").unwrap();
    assert_eq!(stored.memory_ids.len(), 4);
    let listed = e.visible_edges(&Filter::for_scope(Scope::new(Some("bob"), None)));
    assert_eq!(listed[0].memory_ids, ["bob-1"]);
}

#[test]
fn a_note_of_one_user_never_reaches_another_users_recall() {
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    let note = |id: &str, user: Option<&str>, classification, text: &str| Note {
        user_id: user.map(str::to_owned),
        classification,
        ..Note::new(id, Period::Weekly, NOW - DAY, text, NOW)
    };
    e.add_note(note(
        "alice",
        Some("alice"),
        0,
        "Alice's diagnosis came back",
    ))
    .unwrap();
    e.add_note(note("shared", None, 0, "The team diagnosis meeting"))
        .unwrap();
    e.add_note(note("classified", None, 3, "The diagnosis of the breach"))
        .unwrap();
    for ranking in RANKINGS {
        let notes = |e: &mut Engine, user, max| {
            let out = e
                .recall("diagnosis", &options_for(user, max, ranking), None, &|| 0.0)
                .unwrap();
            let mut ids: Vec<String> = out
                .results
                .iter()
                .filter_map(|h| h.note.as_ref().map(|n| n.id.clone()))
                .collect();
            ids.sort();
            ids
        };
        assert_eq!(notes(&mut e, "bob", Some(0)), ["shared"], "{ranking:?}");
        assert_eq!(
            notes(&mut e, "bob", None),
            ["classified", "shared"],
            "{ranking:?}"
        );
        assert_eq!(
            notes(&mut e, "alice", Some(2)),
            ["alice", "shared"],
            "{ranking:?}"
        );
    }
}

#[test]
fn another_users_edge_and_entity_never_reach_a_recall() {
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    e.relate(&Relation::new("Bo", "knows", "Ana"), NOW).unwrap();
    let private = Relation {
        user_id: Some("alice".into()),
        ..Relation::new("Ana", "dates", "Carol")
    };
    e.relate(&private, NOW).unwrap();
    for ranking in RANKINGS {
        let edges = |e: &mut Engine, user| {
            let out = e
                .recall(
                    "who is Ana with?",
                    &options_for(user, None, ranking),
                    None,
                    &|| 0.0,
                )
                .unwrap();
            let mut ids: Vec<String> = out
                .results
                .iter()
                .filter(|h| h.kind == HitKind::Edge)
                .map(|h| h.id.clone())
                .collect();
            ids.sort();
            ids
        };
        assert_eq!(edges(&mut e, "bob"), ["bo|knows|ana"], "{ranking:?}");
        assert_eq!(
            edges(&mut e, "alice"),
            ["ana|dates|carol", "bo|knows|ana"],
            "{ranking:?}"
        );
    }
    // Carol exists only through alice's relation: she is alice's, not shared vocabulary.
    let bob = Filter::for_scope(Scope::new(Some("bob"), None));
    let names: Vec<_> = e.visible_entities(&bob).map(|x| x.name.clone()).collect();
    assert_eq!(names, ["Ana", "Bo"]);
}

#[test]
fn conversation_turns_reach_only_the_recall_naming_their_conversation() {
    use crate::recall::filter::CONVERSATION_TOPIC_PREFIX;
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    let memory = |id: &str, topic: Option<String>| Memory {
        id: id.into(),
        text: format!("Ana on the atlas migration ({id})"),
        topic,
        created_at: NOW,
        updated_at: NOW,
        ..Memory::default()
    };
    let lane = format!("{CONVERSATION_TOPIC_PREFIX}c1");
    e.insert(
        memory("plain", Some("work".into())),
        Some(&[1.0, 0.0, 0.0, 0.1]),
    )
    .unwrap();
    e.insert(
        memory("turn-1", Some(lane.clone())),
        Some(&[1.0, 0.0, 0.0, 0.1]),
    )
    .unwrap();
    e.insert(
        memory("turn-2", Some(format!("{CONVERSATION_TOPIC_PREFIX}c2"))),
        None,
    )
    .unwrap();
    e.add_note(Note::new(
        "n",
        Period::Weekly,
        NOW - DAY,
        "Ana on the atlas migration",
        NOW,
    ))
    .unwrap();
    shared_edge_citing(&mut e, &["plain", "turn-1"]);
    let query_vector = [1.0, 0.0, 0.0, 0.1];
    for ranking in RANKINGS {
        for mode in MODES {
            let ids = |e: &mut Engine, topic: Option<&str>| {
                let mut o = RecallOptions {
                    track_recalls: false,
                    ranking: Some(ranking),
                    mode,
                    min_score: Some(0.0),
                    ..RecallOptions::default()
                };
                o.filter.topic = topic.map(str::to_owned);
                o.filter.now = NOW;
                let embedding = (mode != SearchMode::Lexical).then_some(&query_vector[..]);
                let out = e
                    .recall("Ana atlas migration", &o, embedding, &|| 0.0)
                    .unwrap();
                let mut ids: Vec<String> = out.results.iter().map(|h| h.id.clone()).collect();
                for h in &out.results {
                    if let Some(edge) = &h.edge {
                        ids.extend(edge.memory_ids.iter().map(|m| format!("cited {m}")));
                    }
                }
                ids.sort();
                ids
            };
            let what = format!("{ranking:?} {mode:?}");
            let ordinary = ids(&mut e, None);
            assert!(
                ordinary.iter().all(|id| !id.contains("turn")),
                "{what}: {ordinary:?}"
            );
            assert_eq!(ids(&mut e, Some(&lane)), ["turn-1"], "{what}");
            assert!(
                ids(&mut e, Some("work"))
                    .iter()
                    .all(|id| !id.contains("turn")),
                "{what}"
            );
        }
    }
}
