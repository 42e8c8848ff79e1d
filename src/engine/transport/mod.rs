//! Where the engine meets the outside: frames in, typed outbound messages
//! out.
//!
//! A transport feeds [`Transport::frames`] and drains
//! [`Transport::outgoing`]. Each [`Outgoing::Message`] is one whole
//! rendered JSON-RPC message and names where it goes ([`Route`]): the
//! response to a request (by id), a notification tied to a request in
//! flight (progress), or a message for the session as a whole. The end of
//! the session's output is [`Outgoing::End`]. The stdio transport writes
//! everything to one stream; a transport with several streams (Streamable
//! HTTP) routes each message by the request it names.

pub mod framing;
#[cfg(feature = "http")]
pub mod http;
pub mod stdio;

use tokio::sync::mpsc;

use super::budget::Charge;
use crate::rpc::Id;
pub use framing::{Frame, Framer, LineReader};

/// Most outbound messages waiting for the transport's writer (a client
/// that does not read stalls the engine, not its memory).
pub const MAX_PENDING_LINES: usize = 64;

/// Budget of the lines waiting for the transport's writer, in bytes (each
/// [`Outgoing::Message`] is charged its line when queued, and the charge
/// comes back when the transport drops it, once written): a client that
/// does not read stalls whoever produces answers, down to the server. At
/// least one whole answer ([`crate::json::MAX_RESPONSE_BYTES`]) fits.
pub const MAX_TO_CLIENT_BYTES: usize = 2 * crate::json::MAX_RESPONSE_BYTES;

/// Where one outbound message goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The response to the request with this id; `None` for an error
    /// answering bytes whose id is not known for certain (`"id": null`):
    /// it goes back to whoever sent those bytes.
    Response(Option<Id>),
    /// A batch answer (JSON-RPC 2.0 §6): one array answering the requests
    /// with these ids, in the array's order.
    Batch(Vec<Option<Id>>),
    /// A notification about the request in flight with this id
    /// (`notifications/progress`); never sent after that request's
    /// response.
    Request(Id),
    /// A message for the session, tied to no request (a server-initiated
    /// request or notification, a line a service forwards).
    Session,
}

/// What the engine hands its transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outgoing {
    /// One message, rendered once.
    Message {
        /// Where it goes.
        route: Route,
        /// One JSON text followed by `\n` (never a newline inside it).
        line: Vec<u8>,
        /// Its bytes on [`MAX_TO_CLIENT_BYTES`], given back when the
        /// message is dropped (write it first).
        charge: Charge,
    },
    /// The end of the session's output: nothing follows. (A service may
    /// still hold a way to send, so the channel itself need not close.)
    End,
}

impl Outgoing {
    /// The rendered line of a message; `None` for [`Outgoing::End`].
    pub fn line(&self) -> Option<&[u8]> {
        match self {
            Self::Message { line, .. } => Some(line),
            Self::End => None,
        }
    }
}

/// The engine's side of a transport.
#[derive(Debug)]
pub struct Transport {
    /// Frames from the client; the engine stops reading when this closes
    /// or yields [`Frame::Eof`].
    pub frames: mpsc::Receiver<Frame>,
    /// Messages to the client, in the order they are to be written.
    pub outgoing: mpsc::Sender<Outgoing>,
}
