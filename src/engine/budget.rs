//! Byte budgets: a queue bounded by the bytes it holds, not only by how
//! many messages.
//!
//! A [`ByteBudget`] is shared by a queue's two ends. The sender takes a
//! [`Charge`] for a message's bytes before queueing it, waiting while they
//! do not fit (backpressure: the producer stops, nothing is refused); the
//! charge travels with the message and gives its bytes back when it is
//! dropped, once the message has left the queue (written out, or handed to
//! the next queue, which has charged it first). So the bytes a budget
//! counts never exceed it: [`ByteBudget::used`] `<=` [`ByteBudget::bytes`]
//! at every moment.
//!
//! A message larger than the whole budget is charged the whole budget: it
//! waits for an empty queue and then travels alone. (Every budget toolgate
//! sets is at least the largest line its queue carries, so this is a
//! guard, not a path.)

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Largest budget (the semaphore takes at most `u32::MAX` permits at once).
pub const MAX_BUDGET_BYTES: usize = u32::MAX as usize;

/// The bytes one queue may hold; cheap to clone (clones share the count).
#[derive(Debug, Clone)]
pub struct ByteBudget {
    semaphore: Arc<Semaphore>,
    bytes: usize,
}

/// Bytes taken from a [`ByteBudget`], given back when dropped. Clones
/// share the charge (the bytes come back with the last one); charges
/// compare equal whatever they hold (bookkeeping, not content).
#[derive(Debug, Clone, Default)]
pub struct Charge {
    permit: Option<Arc<OwnedSemaphorePermit>>,
    /// Dropped with the last clone, after the bytes are given back
    /// ([`Charge::with_receipt`]).
    receipt: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

impl PartialEq for Charge {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Charge {}

/// The budget was closed: its queue's consumer has gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetClosed;

impl ByteBudget {
    /// A budget of `bytes` (at least 1, at most [`MAX_BUDGET_BYTES`]).
    pub fn new(bytes: usize) -> Self {
        let bytes = bytes.clamp(1, MAX_BUDGET_BYTES);
        Self {
            semaphore: Arc::new(Semaphore::new(bytes)),
            bytes,
        }
    }

    /// The budget, in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Bytes charged now (never more than [`bytes`](Self::bytes)).
    pub fn used(&self) -> usize {
        self.bytes
            .saturating_sub(self.semaphore.available_permits())
    }

    fn permits(&self, bytes: usize) -> u32 {
        u32::try_from(bytes.min(self.bytes)).unwrap_or(u32::MAX)
    }

    /// Takes `bytes`, waiting until they fit.
    ///
    /// # Errors
    /// When the budget is [closed](Self::close).
    pub async fn take(&self, bytes: usize) -> Result<Charge, BudgetClosed> {
        let permit = Arc::clone(&self.semaphore)
            .acquire_many_owned(self.permits(bytes))
            .await
            .map_err(|_| BudgetClosed)?;
        Ok(Charge {
            permit: Some(Arc::new(permit)),
            receipt: None,
        })
    }

    /// Takes `bytes` when they fit now.
    pub fn try_take(&self, bytes: usize) -> Option<Charge> {
        let permit = Arc::clone(&self.semaphore)
            .try_acquire_many_owned(self.permits(bytes))
            .ok()?;
        Some(Charge {
            permit: Some(Arc::new(permit)),
            receipt: None,
        })
    }

    /// Closes the budget: whoever waits in [`take`](Self::take) gets
    /// [`BudgetClosed`], and so does every later taker.
    pub fn close(&self) {
        self.semaphore.close();
    }

    /// Whether the budget is closed.
    pub fn is_closed(&self) -> bool {
        self.semaphore.is_closed()
    }
}

impl Charge {
    /// No bytes (for a message no budget counts).
    pub fn none() -> Self {
        Self::default()
    }

    /// The bytes this charge holds.
    pub fn bytes(&self) -> usize {
        self.permit.as_ref().map_or(0, |p| p.num_permits())
    }

    /// Splits `bytes` off this charge (a reservation handing out part of
    /// itself); `None` when it holds fewer, or is shared with a clone.
    pub fn split(&mut self, bytes: usize) -> Option<Charge> {
        if bytes == 0 {
            return Some(Charge::none());
        }
        let permit = Arc::get_mut(self.permit.as_mut()?)?.split(bytes)?;
        Some(Charge {
            permit: Some(Arc::new(permit)),
            receipt: None,
        })
    }

    /// A clone of this charge (sharing its bytes) that carries no receipt:
    /// once this one is dropped, the receipt is dropped with the last clone
    /// that carries it, whatever clones of the new one live on.
    pub fn without_receipt(&self) -> Self {
        Self {
            permit: self.permit.clone(),
            receipt: None,
        }
    }

    /// This charge carrying `receipt`, dropped once the last clone of the
    /// charge is (after its bytes are given back): whoever holds what the
    /// receipt's drop tells learns that the message the charge travels
    /// with has left its queue. A part [split](Self::split) off carries
    /// none; a later receipt replaces an earlier one.
    pub fn with_receipt(mut self, receipt: Arc<dyn std::any::Any + Send + Sync>) -> Self {
        self.receipt = Some(receipt);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_come_back_when_dropped_and_never_exceed_the_budget() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let budget = ByteBudget::new(10);
        let a = budget.try_take(6).unwrap();
        assert_eq!(budget.used(), 6);
        assert!(budget.try_take(5).is_none());
        let mut a = a;
        let part = a.split(4).unwrap();
        assert!(a.split(3).is_none());
        let shared = a.clone();
        drop(a);
        assert_eq!(budget.used(), 6, "a clone still holds the rest");
        drop(shared);
        assert_eq!(budget.used(), 4, "the part split off still holds its bytes");
        drop(part);
        assert_eq!(budget.used(), 0);
        let whole = rt.block_on(budget.take(1_000)).unwrap();
        assert_eq!((whole.bytes(), budget.used()), (10, 10));
        drop(whole);
        budget.close();
        assert_eq!(rt.block_on(budget.take(1)).err(), Some(BudgetClosed));
        assert!(budget.is_closed());
    }

    /// A receipt is dropped with the last clone of its charge, once the
    /// bytes are back; a part split off does not carry it.
    #[test]
    fn a_receipt_goes_with_the_last_clone_after_the_bytes() {
        struct Told(ByteBudget, Arc<std::sync::Mutex<Vec<usize>>>);
        impl Drop for Told {
            fn drop(&mut self) {
                self.1.lock().unwrap().push(self.0.used());
            }
        }
        let budget = ByteBudget::new(10);
        let told = Arc::new(std::sync::Mutex::new(Vec::new()));
        let receipt = Arc::new(Told(budget.clone(), Arc::clone(&told)));
        let mut a = budget.try_take(6).unwrap().with_receipt(receipt);
        let part = a.split(2).unwrap();
        let b = a.clone();
        drop(a);
        assert!(told.lock().unwrap().is_empty());
        drop(b);
        assert_eq!(
            *told.lock().unwrap(),
            [2],
            "told after its 4 bytes came back"
        );
        drop(part);
        assert_eq!(*told.lock().unwrap(), [2]);
        // A clone without the receipt holds the bytes, not the receipt.
        let told = Arc::new(std::sync::Mutex::new(Vec::new()));
        let receipt = Arc::new(Told(budget.clone(), Arc::clone(&told)));
        let a = budget.try_take(5).unwrap().with_receipt(receipt);
        let bare = a.without_receipt();
        assert_eq!(bare.bytes(), 5);
        drop(a);
        assert_eq!(*told.lock().unwrap(), [5], "told with its bytes still held");
        drop(bare);
        assert_eq!(budget.used(), 0);
    }
}
