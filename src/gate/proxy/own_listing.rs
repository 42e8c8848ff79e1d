//! The gateway's own listings: a request that names a tool, prompt or
//! resource before any complete listing of its kind has passed is decided
//! by a listing the gateway asks the child for itself, so that what a
//! listing would hide (a poisoned definition, an unpinned tool) is
//! unreachable whether or not the client listed first.
//!
//! Its requests carry ids in the gateway's namespace ([`GATE_ID_PREFIX`]):
//! a client request with such an id is refused, so the child's answers
//! can never be taken for a client's. A tool listing goes through the same
//! filter as a client's ([`GateService::filter_list`]): it is checked
//! against the pins (or learned from, under trust on first use), recorded
//! in the view and audited; a prompt or resource listing through the same
//! screens as a client's, which remember what they hide. Their pages are
//! never written to the client. The client's next message is read once the
//! request that waited has gone to the child (message order, backpressure).

use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use super::off_session::off_session;
use super::{lock, GateService, Pending, PinMode, Unsent};
use crate::engine::{Charge, Id, Request};
use crate::gate::poison::PoisonMode;

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

/// The listings of prompts and resources a client's request `method`
/// (with `params`) names an entry of, whose hidden entries refuse it
/// ([`crate::gate::HiddenEntries::refusal`]): `prompts/list` for
/// `prompts/get` and a `ref/prompt` completion; `resources/list` and
/// `resources/templates/list` for `resources/read`, `resources/subscribe`,
/// `resources/unsubscribe` and a `ref/resource` completion. None for any
/// other (`tools/call` is [`GateService::needs_own_listing`]'s).
pub(super) fn entry_listings(method: &str, params: Option<&Value>) -> &'static [&'static str] {
    const PROMPTS: &[&str] = &["prompts/list"];
    const RESOURCES: &[&str] = &["resources/list", "resources/templates/list"];
    match method {
        "prompts/get" => PROMPTS,
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => RESOURCES,
        "subscriptions/listen" => {
            let uris = params
                .and_then(|p| p.get("notifications"))
                .and_then(|n| n.get("resourceSubscriptions"))
                .and_then(Value::as_array);
            if uris.is_some_and(|u| !u.is_empty()) {
                RESOURCES
            } else {
                &[]
            }
        }
        "completion/complete" => {
            let kind = params
                .and_then(|p| p.get("ref"))
                .and_then(|r| r.get("type"))
                .and_then(Value::as_str);
            match kind {
                Some("ref/prompt") => PROMPTS,
                Some("ref/resource") => RESOURCES,
                _ => &[],
            }
        }
        _ => &[],
    }
}

/// The `_meta` of the request that needs a listing, its progress token
/// aside: it goes with each page, so a stateless-era listing carries the
/// same protocol version and client description as the client's request.
fn trigger_meta(trigger: &Request) -> Option<Map<String, Value>> {
    trigger
        .params_object()
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .map(|m| {
            let mut m = m.clone();
            m.remove("progressToken");
            m
        })
}

/// Why one of the gateway's own requests got no result.
enum Unanswered {
    /// The server does not know the method (-32601).
    UnknownMethod,
    /// Any other failure, said for the log and the refusal.
    Failed(String),
}

impl Unanswered {
    fn why(self, method: &str) -> String {
        match self {
            Self::UnknownMethod => format!("the server does not know `{method}`"),
            Self::Failed(why) => why,
        }
    }
}

impl GateService {
    /// `true` when a call to `tool` must wait for the gateway's own
    /// listing: the server said its tools changed and no complete listing
    /// has passed since (any tool's definition may be new); or no complete
    /// listing has passed since the session began, and the tool is not in
    /// the view or the pins are still to be learned (trust on first use
    /// learns from a complete listing only). Whatever `--pin` says: a
    /// listing decides what is hidden (`--poison`, names folded together,
    /// a tool listed twice), and a tool hidden is never callable.
    pub(super) fn needs_own_listing(&self, tool: &str) -> bool {
        let st = lock(&self.shared.state);
        if st.audit_failed || st.pin_failed {
            // Refused whatever a listing says.
            return false;
        }
        let learning = matches!(self.shared.pin, PinMode::Learn(_)) && !st.learning_done;
        st.tools_changed || (!st.listed && (learning || st.view.get(tool).is_none()))
    }

    /// The listings of prompts and resources ([`entry_listings`]) a
    /// client's request waits for: those the gateway has not completed
    /// this session (or since the server said that kind changed). None
    /// under `--poison keep`, where a listing hides no entry.
    pub(super) fn entry_listings_needed(&self, request: &Request) -> Vec<&'static str> {
        if self.shared.keeper.poison == PoisonMode::Keep {
            return Vec::new();
        }
        let st = lock(&self.shared.state);
        if st.audit_failed {
            return Vec::new();
        }
        entry_listings(&request.method, request.params.as_ref())
            .iter()
            .copied()
            .filter(|m| !st.entries_listed.contains(m))
            .collect()
    }

    /// Lists the child's tools (every page, up to [`MAX_OWN_LIST_PAGES`],
    /// all of them by `by`) through the gateway's filter, once per
    /// session: concurrent callers wait for the one listing.
    ///
    /// # Errors
    /// Why the listing did not complete (the child's error, a timeout, a
    /// closed pipe, too many pages): the call is then refused unless the
    /// view holds its tool (fail closed).
    pub(super) async fn own_listing(
        &self,
        trigger: &Request,
        by: tokio::time::Instant,
    ) -> Result<(), String> {
        let Ok(_one) = tokio::time::timeout_at(by, self.shared.listing.lock()).await else {
            return Err("no complete listing in the call's time".into());
        };
        let meta = trigger_meta(trigger);
        // A listing of its own, apart from the client's: one left
        // unfinished before starts over.
        let listing = lock(&self.shared.state).view.own_listing();
        let outcome = self
            .own_pages("tools/list", meta.as_ref(), by, move |me, result| {
                me.filter_list(None, result, listing, true);
            })
            .await
            .map_err(|u| u.why("tools/list"));
        // Ended however it went (a failed or needless listing holds nothing).
        lock(&self.shared.state).view.end_listing(listing);
        outcome
    }

    /// Lists the child's prompts, resources or resource templates
    /// (`method`; every page, up to [`MAX_OWN_LIST_PAGES`], by `by`)
    /// through the screens of a client's listing, which remember what
    /// they hide; once per session (or per change the server announces).
    /// A server that does not know `method` (-32601) lists none.
    ///
    /// # Errors
    /// Why the listing did not complete: the request that waited for it is
    /// then refused (fail closed).
    pub(super) async fn own_entry_listing(
        &self,
        method: &'static str,
        trigger: &Request,
        by: tokio::time::Instant,
    ) -> Result<(), String> {
        let Ok(_one) = tokio::time::timeout_at(by, self.shared.listing.lock()).await else {
            return Err(format!("no complete `{method}` listing in time"));
        };
        if lock(&self.shared.state).entries_listed.contains(method) {
            return Ok(());
        }
        let meta = trigger_meta(trigger);
        let outcome = self
            .own_pages(method, meta.as_ref(), by, move |me, result| {
                me.filter_entries(None, method, result, true);
            })
            .await;
        match outcome {
            Ok(()) | Err(Unanswered::UnknownMethod) => {
                lock(&self.shared.state).entries_listed.insert(method);
                Ok(())
            }
            Err(u) => Err(u.why(method)),
        }
    }

    /// The pages of the gateway's own listing `method`, each through
    /// `page` (away from the session, by `by`: [`off_session`]), until its
    /// last, a client's complete tool listing meanwhile, or the first
    /// failure.
    async fn own_pages(
        &self,
        method: &'static str,
        meta: Option<&Map<String, Value>>,
        by: tokio::time::Instant,
        page: impl Fn(&Self, &mut Value) + Copy + Send + 'static,
    ) -> Result<(), Unanswered> {
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_OWN_LIST_PAGES {
            if method == "tools/list" && lock(&self.shared.state).listed {
                return Ok(());
            }
            let mut params = Map::new();
            if let Some(c) = cursor.take() {
                params.insert("cursor".into(), c);
            }
            if let Some(m) = meta {
                params.insert("_meta".into(), Value::Object(m.clone()));
            }
            // The page's charge is held until it has been screened.
            let (mut result, charge) = self.own_request(method, params, by).await?;
            if let Err(why) = crate::gate::listing::listing_entries(method, &result) {
                return Err(Unanswered::Failed(format!(
                    "a listing page of the server: {why}"
                )));
            }
            let me = self.clone();
            let weight = charge.bytes();
            let screened = off_session(&self.shared.screening, weight, Some(by), move || {
                page(&me, &mut result);
                result
            });
            let Ok(result) = screened.await else {
                return Err(Unanswered::Failed(
                    "a listing page of the server was not screened in the call's time".into(),
                ));
            };
            match crate::gate::listing::next_cursor(&result) {
                Ok(None) => return Ok(()),
                Ok(Some(c)) => cursor = Some(Value::from(c)),
                Err(why) => {
                    return Err(Unanswered::Failed(format!(
                        "a listing page of the server: {why}"
                    )))
                }
            }
        }
        Err(Unanswered::Failed(format!(
            "the listing has more than {MAX_OWN_LIST_PAGES} pages"
        )))
    }

    /// Sends the child one request of the gateway's own and waits until
    /// `by` for its result, with the charge of the line that carried it.
    async fn own_request(
        &self,
        method: &str,
        params: Map<String, Value>,
        by: tokio::time::Instant,
    ) -> Result<(Value, Charge), Unanswered> {
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
                    limited: None,
                    seq,
                    started: std::time::Instant::now(),
                    progress: None,
                    timed_out: false,
                    quiet: false,
                    _slot: None,
                },
            );
            id
        };
        let line =
            json!({"jsonrpc": "2.0", "id": id.to_value(), "method": method, "params": params});
        // Under the call's deadline: room may not come while the call
        // that waits for this listing holds its own (attack s75-A, F1).
        let sent =
            tokio::time::timeout_at(by, self.send_child_when_room(line.to_string().as_bytes()))
                .await
                .unwrap_or(Err(Unsent::Full));
        if let Err(why) = sent {
            self.finish(&id);
            return Err(Unanswered::Failed(format!(
                "the request could not be passed to the server ({why:?})"
            )));
        }
        match tokio::time::timeout_at(by, rx).await {
            Ok(Ok((Ok(result), charge))) => Ok((result, charge)),
            Ok(Ok((Err(error), _))) => {
                if error.get("code").and_then(Value::as_i64) == Some(crate::rpc::METHOD_NOT_FOUND) {
                    Err(Unanswered::UnknownMethod)
                } else {
                    Err(Unanswered::Failed(format!(
                        "the server answered with an error: {error}"
                    )))
                }
            }
            Ok(Err(_)) => Err(Unanswered::Failed(
                "the server exited before answering".into(),
            )),
            Err(_) => {
                self.finish(&id);
                Err(Unanswered::Failed("no answer in the call's time".into()))
            }
        }
    }
}
