//! `toolgate gate`: the policy layer's properties, and the gateway end to
//! end over pipes (one test binary; regressions in `proptest-regressions/gate.txt`).
#![cfg(feature = "gate")]

#[cfg(feature = "cli")]
mod lifecycle;
mod props;
#[cfg(feature = "cli")]
mod session;
