//! The gateway's own `tools/list` (`--pin`): a `tools/call` that arrives
//! before any complete listing has passed is decided by a listing the
//! gateway asks the child for itself, not refused for want of one.
//!
//! Its requests carry ids in the gateway's namespace ([`GATE_ID_PREFIX`]):
//! a client request with such an id is refused, so the child's answers
//! can never be taken for a client's. The listing goes through the same
//! filter as a client's ([`GateService::filter_list`]): it is checked
//! against the pins (or learned from, under trust on first use), recorded
//! in the view and audited; its pages are never written to the client.

use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use super::{lock, GateService, Pending, PinMode};
use crate::engine::{Id, Request};
use crate::gate::listing::ListingId;

/// Prefix of the ids of the requests the gateway sends the child itself
/// (`"toolgate-gate/…"`, strings): a client request whose id starts with
/// it is refused with -32600, so the two can never collide.
pub const GATE_ID_PREFIX: &str = "toolgate-gate/";

/// Most pages the gateway follows in its own listing; a longer listing
/// leaves the tools past it unlisted (their calls refused, fail closed).
pub const MAX_OWN_LIST_PAGES: usize = 64;

/// How long the gateway's own listing may take in all, counted from when
/// it read the call that needs it, when there is no `--call-timeout`
/// (which bounds the listing and the call together when set).
pub const OWN_LIST_TIMEOUT: Duration = Duration::from_secs(30);

/// `true` when `id` lies in the gateway's own namespace.
pub(super) fn is_reserved(id: &Id) -> bool {
    matches!(id, Id::String(s) if s.starts_with(GATE_ID_PREFIX))
}

impl GateService {
    /// `true` when a call to `tool` must wait for the gateway's own
    /// listing: pinning is on, no complete listing has passed yet, and the
    /// tool is not in the view or the pins are still to be learned (trust
    /// on first use learns from a complete listing only).
    pub(super) fn needs_own_listing(&self, tool: &str) -> bool {
        if self.shared.pin == PinMode::Off {
            return false;
        }
        let st = lock(&self.shared.state);
        let learning = matches!(self.shared.pin, PinMode::Learn(_)) && !st.learning_done;
        !st.listed && (learning || st.view.get(tool).is_none())
    }

    /// Lists the child's tools (every page, up to [`MAX_OWN_LIST_PAGES`],
    /// all of them by `by`) through the gateway's filter, once per
    /// session: concurrent callers
    /// wait for the one listing. The trigger's `_meta` (its progress token
    /// aside) goes with each page, so a stateless-era request carries the
    /// same protocol version and client description as the client's.
    ///
    /// # Errors
    /// Why the listing did not complete (the child's error, a timeout, a
    /// closed pipe, too many pages): the call is then decided on what the
    /// view holds, so an unlisted tool stays refused.
    pub(super) async fn own_listing(
        &self,
        trigger: &Request,
        by: tokio::time::Instant,
    ) -> Result<(), String> {
        let Ok(_one) = tokio::time::timeout_at(by, self.shared.listing.lock()).await else {
            return Err("no complete listing in the call's time".into());
        };
        let meta = trigger
            .params_object()
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object)
            .map(|m| {
                let mut m = m.clone();
                m.remove("progressToken");
                m
            });
        // A listing of its own, apart from the client's: one left
        // unfinished before starts over.
        let listing = lock(&self.shared.state).view.own_listing();
        let outcome = self.own_pages(listing, meta.as_ref(), by).await;
        // Ended however it went (a failed or needless listing holds nothing).
        lock(&self.shared.state).view.end_listing(listing);
        outcome
    }

    /// The pages of the gateway's own `listing`, each through the filter,
    /// until its last, one a client's listing completes meanwhile, or the
    /// first failure.
    async fn own_pages(
        &self,
        listing: ListingId,
        meta: Option<&Map<String, Value>>,
        by: tokio::time::Instant,
    ) -> Result<(), String> {
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_OWN_LIST_PAGES {
            if lock(&self.shared.state).listed {
                return Ok(());
            }
            let mut params = Map::new();
            if let Some(c) = cursor.take() {
                params.insert("cursor".into(), c);
            }
            if let Some(m) = meta {
                params.insert("_meta".into(), Value::Object(m.clone()));
            }
            let mut result = self.own_request("tools/list", params, by).await?;
            self.filter_list(&mut result, listing);
            match crate::gate::listing::next_cursor(&result) {
                Ok(None) => return Ok(()),
                Ok(Some(c)) => cursor = Some(Value::from(c)),
                Err(why) => return Err(format!("a listing page of the server: {why}")),
            }
        }
        Err(format!(
            "the listing has more than {MAX_OWN_LIST_PAGES} pages"
        ))
    }

    /// Sends the child one request of the gateway's own and waits until
    /// `by` for its result.
    async fn own_request(
        &self,
        method: &str,
        params: Map<String, Value>,
        by: tokio::time::Instant,
    ) -> Result<Value, String> {
        let (tx, rx) = oneshot::channel();
        let id = {
            let mut st = lock(&self.shared.state);
            st.next_seq = st.next_seq.wrapping_add(1);
            let seq = st.next_seq;
            let id = Id::String(format!("{GATE_ID_PREFIX}{method}/{seq}"));
            st.pending.insert(
                id.clone(),
                Pending {
                    tx,
                    tool: None,
                    limited: false,
                    seq,
                    started: std::time::Instant::now(),
                    progress: None,
                    timed_out: false,
                    _slot: None,
                },
            );
            id
        };
        let line =
            json!({"jsonrpc": "2.0", "id": id.to_value(), "method": method, "params": params});
        if let Err(why) = self.send_child_when_room(line.to_string().as_bytes()).await {
            self.finish(&id);
            return Err(format!(
                "the request could not be passed to the server ({why:?})"
            ));
        }
        match tokio::time::timeout_at(by, rx).await {
            Ok(Ok((Ok(result), _))) => Ok(result),
            Ok(Ok((Err(error), _))) => Err(format!("the server answered with an error: {error}")),
            Ok(Err(_)) => Err("the server exited before answering".into()),
            Err(_) => {
                self.finish(&id);
                Err("no answer in the call's time".into())
            }
        }
    }
}
