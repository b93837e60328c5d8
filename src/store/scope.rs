//! [`Scope`]: who a read is for, and the visibility rule of notes, entities and edges.
//!
//! | record's `userId` | scope without `userId` | scope with `userId = u` |
//! |---|---|---|
//! | absent (shared) | visible | visible |
//! | `u` | visible | visible |
//! | another user's | visible | hidden |
//!
//! and a record whose `classification` exceeds the scope's `maxClassification` is hidden.
//!
//! Memories follow the same rule except one row: with `userId = u`, a memory without a
//! `userId` is hidden ([`crate::recall::filter::Filter::accepts`]). Notes, entities and edges
//! without one stay visible: stores written before they had owners hold only such records,
//! and every recall saw them. A scope without `userId` filters no user, as for memories.
//!
//! A scope also carries its [`Moment`]: the time facts with a validity (memories and edges)
//! are judged at, Memoria's bi-temporal reading. A recall's scope has the recall's `asOf`,
//! `includeInvalid` and `now`; a listing's ([`Scope::new`]) keeps every fact.

/// When a read judges facts that hold for a time (Memoria's bi-temporal reading), the one
/// rule of memories and edges:
///
/// | `asOf` | keeps a fact when |
/// |---|---|
/// | `Some(t)` | it held then (`validFrom ≤ t < validTo`, open ends allowed) and was already recorded (`createdAt ≤ t`) |
/// | `None` | `includeInvalid`, or its `validTo` (if any) is after `now` |
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moment {
    /// The time the facts are read at (ms); `None`: now.
    pub as_of: Option<f64>,
    /// Without `as_of`, keep facts whose validity has ended too.
    pub include_invalid: bool,
    /// The time an ended validity is judged against (ms).
    pub now: f64,
}

impl Moment {
    /// Every fact, whatever its validity.
    pub const ANY: Moment = Moment {
        as_of: None,
        include_invalid: true,
        now: 0.0,
    };

    /// Whether a fact recorded at `created_at`, valid from `valid_from` until `valid_to`
    /// (open when `None`), is kept (the table above).
    ///
    /// ```
    /// use recallkit::store::Moment;
    /// let (lived_in_x, since_2021) = ((Some(2010.0), Some(2021.0)), (Some(2021.0), None));
    /// let at = |t| Moment { as_of: Some(t), include_invalid: false, now: 2024.0 };
    /// assert!(at(2020.0).keeps(2015.0, lived_in_x.0, lived_in_x.1));
    /// assert!(!at(2020.0).keeps(2021.0, since_2021.0, since_2021.1));
    /// let now = Moment { as_of: None, include_invalid: false, now: 2024.0 };
    /// assert!(!now.keeps(2015.0, lived_in_x.0, lived_in_x.1));
    /// assert!(now.keeps(2021.0, since_2021.0, since_2021.1));
    /// ```
    pub fn keeps(&self, created_at: f64, valid_from: Option<f64>, valid_to: Option<f64>) -> bool {
        match self.as_of {
            Some(t) => {
                created_at <= t
                    && !valid_from.is_some_and(|from| from > t)
                    && !valid_to.is_some_and(|to| t >= to)
            }
            None => self.include_invalid || !valid_to.is_some_and(|to| to <= self.now),
        }
    }
}

/// The user, classification ceiling and [`Moment`] a read is for; copy it freely.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scope<'a> {
    /// Only this user's records and shared ones (`None`: every user's).
    pub user_id: Option<&'a str>,
    /// Hide records classified above this level (`None`: no ceiling).
    pub max_classification: Option<i64>,
    /// Which facts with a validity it keeps (edges; memories through their filter).
    pub moment: Moment,
}

impl Default for Scope<'_> {
    fn default() -> Self {
        Scope::ALL
    }
}

impl<'a> Scope<'a> {
    /// Everything: no user, no ceiling, every fact.
    pub const ALL: Scope<'static> = Scope {
        user_id: None,
        max_classification: None,
        moment: Moment::ANY,
    };

    /// A scope for `user_id` (if any) below `max_classification` (if any), keeping every
    /// fact whatever its validity.
    pub fn new(user_id: Option<&'a str>, max_classification: Option<i64>) -> Self {
        Scope {
            user_id,
            max_classification,
            moment: Moment::ANY,
        }
    }

    /// Whether a note, entity or edge owned by `owner` (`None`: shared) at `classification`
    /// is visible (the module doc's table).
    ///
    /// ```
    /// use recallkit::store::Scope;
    /// let alice = Scope::new(Some("alice"), Some(1));
    /// assert!(alice.sees(None, 0) && alice.sees(Some("alice"), 1));
    /// assert!(!alice.sees(Some("bob"), 0) && !alice.sees(Some("alice"), 2));
    /// assert!(Scope::ALL.sees(Some("bob"), 9));
    /// ```
    pub fn sees(&self, owner: Option<&str>, classification: i64) -> bool {
        let user_ok = match (self.user_id, owner) {
            (Some(me), Some(owner)) => me == owner,
            _ => true,
        };
        user_ok
            && self
                .max_classification
                .map_or(true, |max| classification <= max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_records_are_seen_by_every_user_and_owned_ones_by_their_owner() {
        let bob = Scope::new(Some("bob"), None);
        assert!(bob.sees(None, 0));
        assert!(bob.sees(Some("bob"), 7));
        assert!(!bob.sees(Some("alice"), 0));
        assert!(
            !bob.sees(Some(""), 0),
            "an empty user id is a user, not shared"
        );
    }

    #[test]
    fn the_ceiling_hides_higher_classifications_for_everyone() {
        let low = Scope::new(None, Some(1));
        assert!(low.sees(None, 1) && low.sees(Some("x"), -3));
        assert!(!low.sees(None, 2) && !low.sees(Some("x"), 2));
    }
}
