//! The work budget of one call, shared by every stream the call interprets.
//!
//! Page content streams, Form XObjects (at any depth), annotation appearance
//! streams, and the tables built from fonts (CMap entries, widths) all draw
//! from the same two budgets:
//! * operations: [`super::limits::MAX_OPERATIONS_PER_CALL`] units, one per
//!   content-stream operator interpreted and one per font table entry built;
//! * CPU time: [`super::limits::MAX_CALL_CPU_MS`] of the calling thread's CPU
//!   time, read every [`OP_BATCH`] units, so a path the operator count does
//!   not model still ends.
//!
//! When either runs out, interpretation stops where it is: the text placed so
//! far is kept, the result is `truncated`, and a warning names the limit.
//! Type 3 glyph procedures, patterns, shadings and image data are not
//! interpreted (text extraction does not need them), so they cost nothing.

use super::limits::{Limit, Limits};

/// Units charged between two readings of the CPU clock. The operations
/// budget is exact (never exceeded); the CPU-time budget is exceeded by at
/// most one batch of work.
pub const OP_BATCH: usize = 1024;

/// What one call may still spend, and what it spent.
#[derive(Debug, Clone)]
pub(crate) struct Work {
    max_ops: usize,
    ops: usize,
    max_cpu_ns: u64,
    start_cpu_ns: u64,
    until_clock: usize,
    spent: Option<Limit>,
}

/// The calling thread's CPU time in nanoseconds.
fn thread_cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    u64::try_from(t.tv_sec)
        .unwrap_or(0)
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::try_from(t.tv_nsec).unwrap_or(0))
}

impl Work {
    /// A fresh budget from `limits` (operations per call, CPU time per call);
    /// the CPU clock starts now.
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            max_ops: limits.max_operations_per_call,
            ops: 0,
            max_cpu_ns: limits.max_call_cpu_ms.saturating_mul(1_000_000),
            start_cpu_ns: thread_cpu_ns(),
            until_clock: OP_BATCH,
            spent: None,
        }
    }

    /// Charges `units` of work.
    ///
    /// # Errors
    /// The limit that ran out ([`Limit::OperationsPerCall`] or
    /// [`Limit::CallCpuTime`]); every later call fails with it too. Units
    /// past the operations budget are not counted.
    pub(crate) fn charge(&mut self, units: usize) -> Result<(), Limit> {
        if let Some(limit) = self.spent {
            return Err(limit);
        }
        let room = self.max_ops.saturating_sub(self.ops);
        if units > room {
            self.ops = self.max_ops;
            self.spent = Some(Limit::OperationsPerCall);
            return Err(Limit::OperationsPerCall);
        }
        self.ops = self.ops.saturating_add(units);
        self.until_clock = self.until_clock.saturating_sub(units);
        if self.until_clock == 0 {
            self.until_clock = OP_BATCH;
            self.check_clock()?;
        }
        Ok(())
    }

    /// Reads the CPU clock now (between pages, before costly steps).
    ///
    /// # Errors
    /// As [`Work::charge`].
    pub(crate) fn check_clock(&mut self) -> Result<(), Limit> {
        if let Some(limit) = self.spent {
            return Err(limit);
        }
        if thread_cpu_ns().saturating_sub(self.start_cpu_ns) > self.max_cpu_ns {
            self.spent = Some(Limit::CallCpuTime);
            return Err(Limit::CallCpuTime);
        }
        Ok(())
    }

    /// The limit that ran out, if one did.
    pub(crate) fn spent(&self) -> Option<Limit> {
        self.spent
    }

    /// Units charged so far (at most the operations budget).
    pub(crate) fn ops(&self) -> usize {
        self.ops
    }

    /// The operations budget.
    pub(crate) fn max_ops(&self) -> usize {
        self.max_ops
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_are_never_exceeded() {
        let limits = Limits {
            max_operations_per_call: 10,
            ..Limits::default()
        };
        let mut w = Work::new(&limits);
        assert_eq!(w.charge(4), Ok(()));
        assert_eq!(w.charge(6), Ok(()));
        assert_eq!(w.ops(), 10);
        assert_eq!(w.charge(1), Err(Limit::OperationsPerCall));
        assert_eq!(w.check_clock(), Err(Limit::OperationsPerCall));
        assert_eq!(w.ops(), 10);
        let mut w = Work::new(&limits);
        assert_eq!(w.charge(11), Err(Limit::OperationsPerCall));
        assert_eq!(w.spent(), Some(Limit::OperationsPerCall));
    }

    #[test]
    fn cpu_time_runs_out() {
        let limits = Limits {
            max_call_cpu_ms: 0,
            ..Limits::default()
        };
        let mut w = Work::new(&limits);
        let mut x = 0u64;
        for i in 0..1_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        assert!(x != 1);
        assert_eq!(w.check_clock(), Err(Limit::CallCpuTime));
        assert_eq!(w.charge(1), Err(Limit::CallCpuTime));
    }
}
