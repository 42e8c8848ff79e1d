//! [`FetchError`]: a destination refusal (its denial code) or a failure
//! (a [`FetchCode`]).

use super::code::FetchCode;
use crate::net::Denial;
use std::borrow::Cow;
use std::fmt;

/// Why a fetch returned no body.
///
/// [`FetchError::code`] is the stable string: the [`Denial`]'s code when a
/// policy refused a destination (`ssrf.*`, `url.*`, `dns.*`), else the
/// [`FetchCode`]'s. Reasons never carry credentials or query strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// A destination (the URL, a redirect target, a resolved or connected
    /// address) was refused: no connection was made to it.
    Denied(Denial),
    /// The final response status is not 2xx.
    Status {
        /// The HTTP status code.
        status: u16,
        /// What was asked for, without its query.
        reason: String,
    },
    /// Anything else.
    Failed {
        /// The stable code.
        code: FetchCode,
        /// A sentence saying what happened.
        reason: Cow<'static, str>,
    },
}

impl FetchError {
    pub(crate) fn failed(code: FetchCode, reason: impl Into<Cow<'static, str>>) -> Self {
        FetchError::Failed {
            code,
            reason: reason.into(),
        }
    }

    /// The stable code, e.g. `ssrf.loopback`, `http.status`, `fetch.timeout`.
    pub fn code(&self) -> &'static str {
        match self {
            FetchError::Denied(d) => d.code(),
            FetchError::Status { .. } => FetchCode::Status.code(),
            FetchError::Failed { code, .. } => code.code(),
        }
    }

    /// The [`FetchCode`], unless a policy refused a destination.
    pub fn kind(&self) -> Option<FetchCode> {
        match self {
            FetchError::Denied(_) => None,
            FetchError::Status { .. } => Some(FetchCode::Status),
            FetchError::Failed { code, .. } => Some(*code),
        }
    }

    /// The refusal, when a policy refused a destination.
    pub fn denial(&self) -> Option<&Denial> {
        match self {
            FetchError::Denied(d) => Some(d),
            _ => None,
        }
    }

    /// A sentence saying why.
    pub fn reason(&self) -> Cow<'_, str> {
        match self {
            FetchError::Denied(d) => d.reason(),
            FetchError::Status { status, reason } => {
                Cow::Owned(format!("the server answered {status} for {reason}"))
            }
            FetchError::Failed { reason, .. } => Cow::Borrowed(reason),
        }
    }
}

impl From<Denial> for FetchError {
    fn from(d: Denial) -> Self {
        FetchError::Denied(d)
    }
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.reason())
    }
}

impl std::error::Error for FetchError {}
