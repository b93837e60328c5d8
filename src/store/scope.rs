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

/// The user and classification ceiling a read is for; copy it freely.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scope<'a> {
    /// Only this user's records and shared ones (`None`: every user's).
    pub user_id: Option<&'a str>,
    /// Hide records classified above this level (`None`: no ceiling).
    pub max_classification: Option<i64>,
}

impl<'a> Scope<'a> {
    /// Everything: no user, no ceiling.
    pub const ALL: Scope<'static> = Scope {
        user_id: None,
        max_classification: None,
    };

    /// A scope for `user_id` (if any) below `max_classification` (if any).
    pub fn new(user_id: Option<&'a str>, max_classification: Option<i64>) -> Self {
        Scope {
            user_id,
            max_classification,
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
