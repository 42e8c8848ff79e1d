//! `toolgate::engine` (feature `engine`): the session engine, below every
//! service.
//!
//! One engine, several services, several transports. The engine owns what
//! every front needs once: one core parse per line ([`wire`]), ids, the
//! concurrency bound and its queue, cancellation, progress, batches, and the
//! typed outbound messages ([`Outgoing`]) that name the request they answer.
//! A [`Service`] owns only what its methods mean: `toolgate mcp` serves the
//! PDF tools ([`crate::mcp`]), `toolgate gate` a child server through a
//! policy ([`crate::gate`]). A transport ([`transport::stdio`] today)
//! feeds the engine frames and writes what it sends.
//!
//! The protocol revisions ([`Revision`]) and the era state machine
//! ([`Era`]) live here too, so every service answers in the revision its
//! session uses.
//!
//! Layers: the engine imports the core (`json`, `rpc`) and nothing above
//! it; `mcp` and `gate` import the engine and never each other.

pub mod budget;
mod dispatch;
mod era;
mod message;
mod recover;
mod render;
mod revision;
mod service;
pub mod transport;
pub mod wire;

pub use budget::{BudgetClosed, ByteBudget, Charge, MAX_BUDGET_BYTES};
pub use dispatch::{
    default_concurrency, Engine, EngineConfig, DEFAULT_MAX_QUEUED_CALLS, MAX_FINISHED_BYTES,
    MAX_PENDING_PROGRESS,
};
pub use era::{
    has_stateless_envelope, stateless_envelope, stateless_versions, supported_versions, Admitted,
    Era, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, META_SERVER_INFO,
};
pub use message::{
    Body, ClientResponse, ErrorObject, Id, Notification, Outbound, Payload, Reply, Request,
    Response,
};
pub use recover::{
    id_candidates, line_id, names_string_member, tail_id_candidates, tail_names_string_member,
    MAX_ID_CANDIDATES, MAX_ID_SCAN_BYTES,
};
pub(crate) use render::line_safe;
pub use revision::{Revision, HANDSHAKE_REVISIONS, LATEST_HANDSHAKE, STATELESS_REVISIONS};
pub use service::{
    server_busy, BoxFuture, CallContext, CancelToken, Closed, Handled, Peer, Progress, RefusedLine,
    Service, PROGRESS_INTERVAL, SERVER_BUSY,
};
pub use transport::{Outgoing, Route, Transport, MAX_PENDING_LINES, MAX_TO_CLIENT_BYTES};
