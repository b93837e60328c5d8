//! Engram's query pipeline end to end: pronouns (from the session, from the reader's newest
//! memories, ambiguous, Vietnamese, isolated by user), entity → memories, and the time window
//! read from the question's words that is dropped when it holds nothing.

use super::mentions::ENTITY_MENTION_STAGE;
use super::{Engine, EngineConfig, RecallOptions, RecallOutput};
use crate::graph::Entity;
use crate::rank::Context;
use crate::store::Memory;
use crate::test_support::recall_untracked as recall;

const DAY: f64 = 86_400_000.0;
/// 2024-03-15T12:00:00Z, a Friday.
const NOW: f64 = 1_710_504_000_000.0;

fn memory(id: &str, text: &str, user: Option<&str>, days_ago: f64, entities: &[&str]) -> Memory {
    Memory {
        id: id.into(),
        text: text.into(),
        user_id: user.map(Into::into),
        created_at: NOW - days_ago * DAY,
        updated_at: NOW - days_ago * DAY,
        entities: entities.iter().map(|s| s.to_string()).collect(),
        ..Memory::default()
    }
}

fn entity(name: &str, kind: &str, user: Option<&str>) -> Entity {
    Entity {
        name: name.into(),
        kind: Some(kind.into()),
        user_id: user.map(Into::into),
        ..Entity::default()
    }
}

fn engine(memories: Vec<Memory>, entities: Vec<Entity>) -> Engine {
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    e.insert_many(memories, &[]).unwrap();
    for x in entities {
        e.add_entity(x).unwrap();
    }
    e
}

fn options(user: Option<&str>, session: &[(&str, Option<&str>)]) -> RecallOptions {
    let mut o = RecallOptions::default();
    o.filter.now = NOW;
    o.filter.user_id = user.map(Into::into);
    if !session.is_empty() {
        o.context = Some(Context {
            entities: (session.iter())
                .map(|(n, k)| (n.to_string(), k.map(Into::into)))
                .collect(),
            ..Context::default()
        });
    }
    o
}

fn searched(out: &RecallOutput) -> Option<&str> {
    out.query.as_ref().map(|q| q.search_text.as_str())
}

use crate::test_support::ids;

fn decisions() -> Engine {
    engine(
        vec![
            memory(
                "alice",
                "Alice decided to ship the beta in May",
                None,
                3.0,
                &[],
            ),
            memory(
                "bob",
                "Bob decided to paint the office blue",
                None,
                2.0,
                &[],
            ),
        ],
        Vec::new(),
    )
}

#[test]
fn she_is_the_most_recent_person_of_the_session() {
    let mut e = decisions();
    let session = [
        ("Bob", Some("person")),
        ("Alice", Some("Person")),
        ("Acme", Some("company")),
    ];
    let out = recall(&mut e, "what did she decide?", options(None, &session));
    assert_eq!(searched(&out), Some("what did Alice decide?"));
    assert_eq!(ids(&out)[0], "alice");
    let q = out.query.unwrap();
    assert_eq!(
        (
            q.pronouns[0].pronoun.as_str(),
            q.pronouns[0].entity.as_deref()
        ),
        ("she", Some("Alice"))
    );
    // "it" takes any entity: the last one.
    let out = recall(&mut e, "what about it?", options(None, &session));
    assert_eq!(searched(&out), Some("what about Acme?"));
    // Turned off, the question is searched as asked.
    let o = RecallOptions {
        resolve_pronouns: false,
        ..options(None, &session)
    };
    assert_eq!(recall(&mut e, "what did she decide?", o).query, None);
}

#[test]
fn vietnamese_pronouns_resolve_too() {
    let mut e = decisions();
    let session = [("Alice", Some("person")), ("Acme", None)];
    let out = recall(&mut e, "cô ấy đã quyết định gì?", options(None, &session));
    assert_eq!(searched(&out), Some("Alice đã quyết định gì?"));
    let out = recall(&mut e, "nó thế nào?", options(None, &session));
    assert_eq!(searched(&out), Some("Acme thế nào?"));
}

fn users() -> Engine {
    engine(
        vec![
            memory("a1", "met about the roadmap", Some("ann"), 5.0, &["Alice"]),
            memory("a2", "signed the contract", Some("ann"), 4.0, &["Acme"]),
            memory("b1", "called about the invoice", Some("ben"), 1.0, &["Bob"]),
            memory("d1", "lunch with both", Some("dee"), 2.0, &["Carol", "Dan"]),
        ],
        vec![
            entity("Alice", "person", None),
            entity("Acme", "company", None),
            entity("Bob", "person", Some("ben")),
            entity("Carol", "person", None),
            entity("Dan", "person", None),
        ],
    )
}

#[test]
fn without_a_session_a_pronoun_is_the_entity_of_the_readers_newest_memory() {
    let mut e = users();
    // Ann's newest memory names a company: "he" goes back to the person before it.
    let out = recall(&mut e, "what did he say?", options(Some("ann"), &[]));
    assert_eq!(searched(&out), Some("what did Alice say?"));
    let out = recall(&mut e, "what did it cost?", options(Some("ann"), &[]));
    assert_eq!(searched(&out), Some("what did Acme cost?"));
    let out = recall(&mut e, "what did he say?", options(Some("ben"), &[]));
    assert_eq!(searched(&out), Some("what did Bob say?"));
}

#[test]
fn another_users_entities_never_resolve_a_pronoun() {
    let mut e = users();
    // Ben's memory is the newest of the store, and his entity a person: neither reaches Ann
    // or Carl, whose own memories decide (Carl has none: nothing to resolve).
    for (user, want) in [("ann", Some("what did Alice say?")), ("carl", None)] {
        let out = recall(&mut e, "what did he say?", options(Some(user), &[]));
        assert_eq!(searched(&out), want, "{user}");
    }
    // Ben's "Bob" is not a person to a reader who cannot see that entity.
    let mut e = engine(
        vec![memory("x", "a note", Some("ann"), 1.0, &["Bob"])],
        vec![entity("Bob", "person", Some("ben"))],
    );
    let out = recall(&mut e, "what did he say?", options(Some("ann"), &[]));
    assert_eq!(out.query, None);
}

#[test]
fn two_fitting_entities_of_one_memory_leave_the_pronoun_and_say_so() {
    let mut e = users();
    let out = recall(&mut e, "what did she order?", options(Some("dee"), &[]));
    let q = out.query.expect("reported");
    assert_eq!(q.search_text, "what did she order?");
    assert_eq!(q.pronouns[0].entity, None);
    assert_eq!(q.pronouns[0].ambiguous, ["Carol", "Dan"]);
}

#[test]
fn an_entity_of_the_query_brings_the_memories_naming_it() {
    let mut e = engine(
        vec![
            memory(
                "launch",
                "The launch moves to May",
                Some("ann"),
                2.0,
                &["Alice"],
            ),
            memory(
                "other",
                "The launch party is on Friday",
                Some("ben"),
                1.0,
                &["Alice"],
            ),
            memory("tea", "Tea is served at four", Some("ann"), 1.0, &[]),
        ],
        vec![entity("Alice", "person", None)],
    );
    let out = recall(&mut e, "what did Alice decide?", options(Some("ann"), &[]));
    assert_eq!(
        ids(&out),
        ["launch"],
        "not Ben's memory, not one naming nobody"
    );
    let hit = &out.results[0];
    assert_eq!(
        (hit.stage, hit.match_type),
        (ENTITY_MENTION_STAGE, "entity")
    );
    assert!(hit.components.get("entityMention").is_some_and(|c| c > 0.0));
    assert!(hit.components.get("graph").is_some());
    // A memory whose text holds the name has the lexical evidence already, not this too.
    let mut e = engine(
        vec![memory(
            "said",
            "Alice decided the budget",
            None,
            1.0,
            &["Alice"],
        )],
        Vec::new(),
    );
    let out = recall(&mut e, "what did Alice decide?", options(None, &[]));
    assert_eq!(ids(&out), ["said"]);
    assert_eq!(out.results[0].components.get("entityMention"), None);
    assert_ne!(out.results[0].stage, ENTITY_MENTION_STAGE);
    // A name only memories know (no graph entity) works the same.
    let mut e = engine(
        vec![memory(
            "m",
            "moved the launch",
            None,
            1.0,
            &["Project Tuesday"],
        )],
        Vec::new(),
    );
    let out = recall(&mut e, "news on project tuesday", options(None, &[]));
    assert_eq!(ids(&out), ["m"]);
}

#[test]
fn a_window_read_from_words_that_holds_nothing_is_dropped_in_one_call() {
    let mut e = engine(
        vec![memory(
            "office",
            "the office is open on Saturday",
            None,
            40.0,
            &[],
        )],
        Vec::new(),
    );
    let out = recall(
        &mut e,
        "is the office open on Saturday?",
        options(None, &[]),
    );
    assert_eq!(ids(&out), ["office"]);
    assert_eq!(out.time_window, None);
    let q = out.query.expect("reported");
    assert!(q.window_dropped);
    assert_eq!(q.resolved_from, "on Saturday?");
    // A window that holds something stays.
    let mut e = engine(
        vec![memory("recent", "the office is open", None, 1.0, &[])],
        Vec::new(),
    );
    let out = recall(&mut e, "was the office open yesterday?", options(None, &[]));
    assert_eq!(ids(&out), ["recent"]);
    assert_eq!(out.time_window.map(|w| w.source), Some("query"));
    assert!(!out.query.unwrap().window_dropped);
}

#[test]
fn a_question_about_a_time_whose_other_words_match_nothing_then_gets_that_times_memories() {
    // "say" is in no memory of last Tuesday (one from weeks ago says it): the window holds
    // memories, so they answer, newest first, and the window stays.
    let mut e = engine(
        vec![
            memory("tue1", "the launch slips to May", None, 3.0, &[]),
            memory("tue2", "we pick Grafana for dashboards", None, 3.2, &[]),
            memory(
                "old",
                "I say hello to the team every morning",
                None,
                40.0,
                &[],
            ),
        ],
        Vec::new(),
    );
    let out = recall(&mut e, "what did I say last Tuesday?", options(None, &[]));
    assert_eq!(ids(&out), ["tue1", "tue2"]);
    assert_eq!(out.time_window.map(|w| w.source), Some("query"));
    let q = out.query.expect("reported");
    assert!(!q.window_dropped);
    assert_eq!(q.resolved_from, "last Tuesday?");
}

#[test]
fn time_words_are_read_at_as_of_when_it_is_set() {
    let deploys = || {
        engine(
            vec![
                memory("before", "deployed the billing service", None, 11.0, &[]),
                memory("recent", "deployed the search service", None, 1.0, &[]),
            ],
            Vec::new(),
        )
    };
    let as_of = NOW - 10.0 * DAY; // Tuesday 2024-03-05 12:00: "yesterday" is the 4th.
    let yesterday = Some(NOW - 11.5 * DAY);
    let mut o = options(None, &[]);
    o.filter.as_of = Some(as_of);
    let out = recall(&mut deploys(), "what did I deploy yesterday?", o);
    assert_eq!(ids(&out), ["before"]);
    assert_eq!(out.time_window.and_then(|w| w.start), yesterday);
    let mut o = options(None, &[]);
    o.filter.as_of = Some(as_of);
    o.time_query = Some("last 24 hours".into());
    let w = recall(&mut deploys(), "deployed", o).time_window.unwrap();
    assert_eq!((w.start, w.end), (Some(as_of - DAY), Some(as_of)));
    // Without `asOf`, at `now`.
    let out = recall(
        &mut deploys(),
        "what did I deploy yesterday?",
        options(None, &[]),
    );
    assert_eq!(ids(&out), ["recent"]);
}

#[test]
fn explicit_bounds_narrow_the_window_of_the_questions_time_words() {
    let deploys = || {
        engine(
            vec![
                memory("yesterday", "deployed the billing service", None, 1.0, &[]),
                memory("today", "deployed the search service", None, 0.1, &[]),
            ],
            Vec::new(),
        )
    };
    // `end` (a conversation lane's cutoff, say) no longer turns "yesterday" off.
    let mut o = options(None, &[]);
    o.filter.end = Some(NOW);
    let out = recall(&mut deploys(), "what did I deploy yesterday?", o);
    assert_eq!(ids(&out), ["yesterday"]);
    assert_eq!(out.time_window.map(|w| w.source), Some("query"));
    // A `start` after yesterday leaves nothing of it: the words' window is dropped, the bounds
    // stay, and the whole question is searched within them.
    let mut o = options(None, &[]);
    o.filter.start = Some(NOW - 0.5 * DAY);
    let out = recall(&mut deploys(), "what did I deploy yesterday?", o);
    assert_eq!(ids(&out), ["today"]);
    let w = out.time_window.expect("the caller's bounds");
    assert_eq!((w.source, w.start), ("options", Some(NOW - 0.5 * DAY)));
    assert!(out.query.expect("reported").window_dropped);
}

#[test]
fn a_noun_in_y_finds_its_adjective_in_ic_and_back() {
    // Porter stems "allergies" to allergi and "allergic" to allerg, "history" to histori and
    // "historic" to histor: without the stem variant neither question found anything.
    let mut e = engine(
        vec![
            memory(
                "allergy",
                "I'm allergic to peanuts and shellfish",
                None,
                1.0,
                &[],
            ),
            memory("rome", "We read about the history of Rome", None, 1.0, &[]),
            memory(
                "lunch",
                "Peanut butter sandwiches for lunch",
                None,
                1.0,
                &[],
            ),
        ],
        Vec::new(),
    );
    let out = recall(&mut e, "what allergies do I have?", options(None, &[]));
    assert_eq!(ids(&out), ["allergy"]);
    let out = recall(&mut e, "historic", options(None, &[]));
    assert_eq!(ids(&out), ["rome"]);
    // Stems shorter than five letters are left alone: "parti" (party) is not "part".
    let out = recall(&mut e, "party", options(None, &[]));
    assert!(ids(&out).is_empty());
}
