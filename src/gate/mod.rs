//! `toolgate::gate` (feature `gate`): the policy gateway's decisions.
//!
//! `toolgate gate -- CMD ...` puts the vetted core in front of any stdio MCP
//! server. This module holds the policy layer, pure and testable without a
//! child process:
//!
//! * [`Policy`]: the TOML policy file, validated (errors name the line).
//! * [`Gatekeeper::tool_decision`]: the one decision that both filters
//!   `tools/list` and refuses `tools/call`, so a hidden tool is never callable
//!   and a callable tool is never hidden.
//! * [`Gatekeeper::check_arguments`]: URLs anywhere in `arguments`
//!   ([`looks_like_url`], then [`crate::net::NetPolicy::classify_url`] with the
//!   `[net]` entries), path arguments confined to the roots ([`Roots`]), the
//!   `[[args]]` rules.
//! * [`Limiter`]: per-tool `max_concurrent` and `rate`.
//! * [`definition_hash`] and [`Pins`]: tool pinning over RFC 8785 canonical JSON.
//! * [`poison`]: invisible and deceptive characters in definitions and results.
//! * [`Audit`]: the append-only audit log.
//! * [`GateCode`] and [`Refusal`]: the stable `policy.*`, `tool.*` and
//!   `gate.*` codes.
//!
//! The reference, the code table and the threat model are in `docs/gate.md`.

mod audit;
mod child;
mod code;
mod curlglob;
mod decide;
mod encoded;
mod entries;
mod hidden;
mod limits;
mod listing;
mod literals;
mod named;
mod owned;
mod paths;
mod pin;
pub mod poison;
mod policy;
pub(crate) mod prescan;
mod proxy;
pub(crate) mod pycodec;
mod resolve;
mod retired;
mod run;
mod settings;
mod states;
mod unquote;
mod urls;
mod yaml;

pub use crate::engine::{id_candidates, tail_id_candidates, MAX_ID_CANDIDATES, MAX_ID_SCAN_BYTES};
pub use audit::{
    argument_sizes, audit_name, audit_uri, rfc3339, rfc3339_now, Audit, Record, AUDIT_LOCK_WAIT,
    AUDIT_REOPENS, DEFAULT_AUDIT_MAX_BYTES, MAX_AUDIT_URI_SCHEMES, MIN_AUDIT_MAX_BYTES,
};
pub use child::{child_env, escape_controls, ChildProcess, ProcessGroup, BASE_ENV};
pub use code::{AnyCode, GateCode, Refusal};
pub use curlglob::MAX_GLOB_EXPANSIONS;
pub use decide::{
    params_shape, representative_expansion, Answered, Gatekeeper, ParamsShapeError, ToolState,
    MAX_EMBEDDED_JSON_DEPTH, MAX_LISTEN_SUBSCRIPTIONS, MAX_NAME_BYTES, MAX_OWN_URI_VALUES,
    MAX_SCANNED_STRINGS, PASSED_METHODS, SHOWN_NAME_BYTES,
};
pub use encoded::MAX_BASE64_READINGS;
pub use entries::{HiddenEntries, MAX_HIDDEN_ENTRIES};
pub use hidden::{
    is_hidden_char, MAX_JOINER_LOOKAHEAD, MAX_SUBDIVISION_TAGS, RGI_SUBDIVISION_FLAGS,
};
pub use limits::{Limiter, Slot, Subject, MAX_TRACKED_TOOLS};
pub use listing::{
    tool_state, ListEvent, ListingId, PageAsked, ToolView, MAX_CURSOR_BYTES,
    MAX_LISTINGS_IN_PROGRESS, MAX_TOOL_MEMO_BYTES,
};
pub use paths::{
    host_name, is_path_name, settings_name, splits_a_path, uri_name, PathLists, RelativePaths,
    Roots, TildePaths, VariablePaths, CODE_SOURCE_WORDS, DESTINATION_VERBS, EDITED_SOURCE_WORDS,
    FILE_CONTENT_WORDS, FILE_LOCATION_WORDS, HARDWARE_ADDRESS_WORDS, HOST_ADDRESS_WORDS,
    HOST_ARGUMENT_WORDS, HOST_COMPOUND_ENDINGS, HOST_COMPOUND_HEADS, HOST_NAME_ENDINGS,
    MAX_DIR_ENTRIES_SCANNED, MAX_PATH_BYTES, MAX_SYMLINKS, NOT_PATH_NAME_ENDINGS,
    PATH_ABBREVIATIONS, PATH_ARGUMENT_NAMES, PATH_NAME_ENDINGS, PATH_ROLE_WORDS, PATH_TEXT_WORDS,
    PREPOSITIONS, QUALIFIER_WORDS, SETTINGS_ARGUMENT_WORDS, URI_ARGUMENT_WORDS,
};
pub use pin::{definition_hash, Pins, MAX_PIN_FILE_BYTES, MAX_TOOLS};
pub use poison::{
    PoisonMode, MAX_ENCODING_LAYERS, MAX_STRIP_PASSES, MAX_UNTYPED_MALFORMED,
    MIN_TEXT_PER_MALFORMED,
};
pub use policy::{
    fold_name, valid_pointer, ArgKind, ArgRule, GlobList, LimitRule, Policy, PolicyError,
    MAX_POLICY_BYTES, MAX_POLICY_ENTRIES,
};
pub use prescan::{MAX_DECLARATION_BYTES, MAX_PRESCAN_BYTES};
pub use proxy::{
    DenyAs, GateConfig, GateService, PinMode, ToServer, CANCELLED_CALL_DEADLINE,
    DEFAULT_MAX_RESPONSE_BYTES, GATE_ERROR, GATE_ID_PREFIX, MAX_FROM_SERVER_BYTES,
    MAX_OWN_LIST_PAGES, MAX_PENDING_REQUESTS, MAX_SCREENING_BYTES, MAX_SERVER_LINE_VALUES,
    MAX_TO_SERVER_BYTES, OWN_LIST_TIMEOUT,
};
pub use resolve::{
    note_name, Resolver, MAX_RESOLVED_NAMES, MAX_RESOLVER_THREADS, MAX_VETTED_DESTINATIONS,
    RESOLVE_DEADLINE,
};
pub use retired::{RetiredIds, MAX_RETIRED_IDS};
#[cfg(feature = "harness")]
pub(crate) use run::read_child;
pub use run::{run, GRACE, TERM_GRACE, WRITE_BATCH_LINES};
pub use states::{
    issued_state, state_subject, IssuedStates, INPUT_REQUIRED_METHODS, MAX_REQUEST_STATES,
    MAX_REQUEST_STATE_BYTES,
};
pub use unquote::MAX_PERCENT_DECODINGS;
pub use urls::{
    lenient_form, looks_like_url, url_form, vet_addresses, vet_url, PendingName, URL_SCHEMES,
};
pub use yaml::MAX_YAML_FORMS;
