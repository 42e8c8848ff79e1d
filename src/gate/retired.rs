//! The ids of requests the gateway gave up on (cancelled or timed out, past
//! their `--cancel-hold`) that the server has not answered ([`RetiredIds`]).
//!
//! The gateway forwards ids as the client wrote them. Once it stops waiting
//! for a request, a late answer from the server carries that id: were the id
//! free, a new request reusing it would get the old call's answer (attack
//! s60, K10-A). So each such id stays reserved until the server answers it,
//! kept as a SHA-256 digest of its JSON text (32 bytes, whatever its
//! length), at most [`MAX_RETIRED_IDS`] of them.

use std::collections::HashSet;

use sha2::{Digest, Sha256};

use crate::engine::Id;

/// Most ids of requests given up on and not yet answered that a session
/// keeps reserved ([`RetiredIds`]). With this many, no more is retired: a
/// hold that ends keeps its request pending (its id and its slots) until
/// the server answers (fail closed). As many as the requests that may be
/// pending ([`MAX_PENDING_REQUESTS`](super::MAX_PENDING_REQUESTS)).
pub const MAX_RETIRED_IDS: usize = 4096;

/// The ids given up on and not yet answered, at most [`MAX_RETIRED_IDS`].
#[derive(Debug, Default)]
pub struct RetiredIds {
    digests: HashSet<[u8; 32]>,
}

impl RetiredIds {
    /// Reserves `id` until the server answers it. Returns `false`, keeping
    /// nothing, when [`MAX_RETIRED_IDS`] are reserved already: the caller
    /// then keeps waiting for the request instead of giving it up.
    pub fn retire(&mut self, id: &Id) -> bool {
        if self.digests.len() >= MAX_RETIRED_IDS {
            return false;
        }
        self.digests.insert(digest(id));
        true
    }

    /// Whether `id` is reserved: a request reusing it is refused.
    pub fn contains(&self, id: &Id) -> bool {
        self.digests.contains(&digest(id))
    }

    /// The server answered `id`: free again. Returns whether it was
    /// reserved (its answer is then dropped).
    pub fn answered(&mut self, id: &Id) -> bool {
        self.digests.remove(&digest(id))
    }

    /// How many ids are reserved.
    pub fn len(&self) -> usize {
        self.digests.len()
    }

    /// Whether none is reserved.
    pub fn is_empty(&self) -> bool {
        self.digests.is_empty()
    }
}

/// The SHA-256 digest of an id as JSON writes it.
fn digest(id: &Id) -> [u8; 32] {
    Sha256::digest(id.to_value().to_string().as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(v: serde_json::Value) -> Id {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn an_id_is_reserved_until_answered() {
        let mut r = RetiredIds::default();
        assert!(r.is_empty() && !r.contains(&id(1.into())));
        assert!(r.retire(&id(1.into())));
        assert!(r.contains(&id(1.into())));
        // A number and a string of the same digits are two ids.
        assert!(!r.contains(&id("1".into())));
        assert!(!r.answered(&id("1".into())));
        assert!(r.answered(&id(1.into())));
        assert!(!r.contains(&id(1.into())) && !r.answered(&id(1.into())));
    }

    #[test]
    fn at_the_bound_nothing_more_is_retired() {
        assert_eq!(MAX_RETIRED_IDS, crate::gate::MAX_PENDING_REQUESTS);
        let mut r = RetiredIds::default();
        for n in 0..MAX_RETIRED_IDS {
            assert!(r.retire(&id(n.into())), "{n}");
        }
        assert_eq!(r.len(), MAX_RETIRED_IDS);
        let past = id("one past".into());
        assert!(!r.retire(&past));
        assert!(!r.contains(&past));
        assert_eq!(r.len(), MAX_RETIRED_IDS);
        // One answered: room for one more.
        assert!(r.answered(&id(0.into())));
        assert!(r.retire(&past) && r.contains(&past));
    }
}
