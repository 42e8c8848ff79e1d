//! `--resolve`: the host names of one message resolved as the child will,
//! every address vetted, under three bounds that fail closed.
//!
//! * [`MAX_RESOLVED_NAMES`] distinct names (host and port) per message: a
//!   message naming more is refused (`policy.arguments_too_complex`) before
//!   any lookup.
//! * [`RESOLVE_DEADLINE`] for all the names of one message together, looked
//!   up in parallel, and never past the call's own deadline
//!   (`--call-timeout`, counted from the request's arrival): past it the
//!   message is refused (`dns.timeout`).
//! * [`MAX_RESOLVER_THREADS`] lookups running at once in the session. The
//!   system resolver cannot be interrupted, so a lookup past its deadline
//!   keeps its thread until the resolver gives up; the bound keeps a client
//!   that sends slow names from piling up threads. A lookup that finds no
//!   free thread before the deadline is refused as a slow one is.

use std::net::{IpAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::time::Instant;

use super::code::{GateCode, Refusal};
use super::urls::{vet_addresses, PendingName};
use crate::net::{Denial, DenialCode, NetPolicy};

/// Most distinct host names (with their ports) one message may make the
/// gateway resolve under `--resolve`.
pub const MAX_RESOLVED_NAMES: usize = 32;

/// How long the lookups of one message may take together under
/// `--resolve` (a call's `--call-timeout`, when shorter, ends them sooner).
pub const RESOLVE_DEADLINE: Duration = Duration::from_secs(5);

/// Most system resolver lookups running at once in one gateway session.
pub const MAX_RESOLVER_THREADS: usize = 32;

/// The `rule` every `--resolve` refusal names.
const RULE: &str = "--resolve";

/// Adds `name` to the names one message makes the gateway resolve, once
/// per host and port.
///
/// # Errors
/// `policy.arguments_too_complex` when that would make more than
/// [`MAX_RESOLVED_NAMES`].
pub fn note_name(names: &mut Vec<PendingName>, name: PendingName) -> Result<(), Refusal> {
    if names
        .iter()
        .any(|n| n.host() == name.host() && n.port() == name.port())
    {
        return Ok(());
    }
    if names.len() >= MAX_RESOLVED_NAMES {
        return Err(Refusal::new(
            GateCode::ArgumentsTooComplex,
            format!(
                "the message names more than {MAX_RESOLVED_NAMES} host names for --resolve to look up"
            ),
            RULE,
        ));
    }
    names.push(name);
    Ok(())
}

/// The session's lookups, at most [`MAX_RESOLVER_THREADS`] at once.
#[derive(Debug, Clone)]
pub struct Resolver {
    threads: Arc<Semaphore>,
}

impl Default for Resolver {
    fn default() -> Self {
        Self {
            threads: Arc::new(Semaphore::new(MAX_RESOLVER_THREADS)),
        }
    }
}

impl Resolver {
    /// Resolves every one of `names` in parallel and vets each answer
    /// ([`vet_addresses`]), all by `deadline` (and by
    /// [`RESOLVE_DEADLINE`] from now, whichever comes first).
    ///
    /// # Errors
    /// The first refused answer (`dns.no_address` when a lookup failed or
    /// found nothing, else the refused address's code), or `dns.timeout`
    /// when the deadline passes first.
    pub async fn vet_all(
        &self,
        net: &NetPolicy,
        names: Vec<PendingName>,
        deadline: Instant,
    ) -> Result<(), Refusal> {
        self.vet_all_with(net, names, deadline, lookup).await
    }

    /// [`Resolver::vet_all`] with the lookup given (tests use a slow or
    /// scripted one).
    pub(crate) async fn vet_all_with(
        &self,
        net: &NetPolicy,
        names: Vec<PendingName>,
        deadline: Instant,
        look: fn(&str, u16) -> Vec<IpAddr>,
    ) -> Result<(), Refusal> {
        let deadline = deadline.min(Instant::now() + RESOLVE_DEADLINE);
        let mut lookups = tokio::task::JoinSet::new();
        for name in names {
            let threads = Arc::clone(&self.threads);
            let net = net.clone();
            lookups.spawn(async move {
                let Ok(permit) = threads.acquire_owned().await else {
                    return Err(timed_out());
                };
                let (host, port) = (name.host().to_owned(), name.port());
                // The permit lives as long as the thread's lookup does.
                let addrs = tokio::task::spawn_blocking(move || {
                    let addrs = look(&host, port);
                    drop(permit);
                    addrs
                })
                .await
                .unwrap_or_default();
                vet_addresses(&net, &name, &addrs, RULE)
            });
        }
        let all = async {
            while let Some(done) = lookups.join_next().await {
                match done {
                    Ok(Ok(())) => {}
                    Ok(Err(refusal)) => return Err(refusal),
                    Err(_) => {
                        return Err(Refusal::from_denial(
                            &Denial::of(DenialCode::NoAddress, "the lookup did not run"),
                            RULE,
                        ))
                    }
                }
            }
            Ok(())
        };
        // Dropping the set on the way out aborts the lookups still waiting
        // for a thread; those already running end on their own.
        match tokio::time::timeout_at(deadline, all).await {
            Ok(outcome) => outcome,
            Err(_) => Err(timed_out()),
        }
    }
}

fn timed_out() -> Refusal {
    Refusal::from_denial(
        &Denial::of(
            DenialCode::DnsTimeout,
            format!(
                "the names of this message were not all resolved within the deadline ({} s, or the call's --call-timeout)",
                RESOLVE_DEADLINE.as_secs()
            ),
        ),
        RULE,
    )
}

/// The system resolver's answer for `host` (the child's own view, through
/// `getaddrinfo`); a failed lookup is an empty answer.
fn lookup(host: &str, port: u16) -> Vec<IpAddr> {
    (host, port)
        .to_socket_addrs()
        .map(|it| it.map(|a| a.ip()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::vet_url;

    fn name(url: &str) -> PendingName {
        vet_url(&NetPolicy::default(), url, "t").unwrap().unwrap()
    }

    #[test]
    fn names_are_counted_once_and_bounded() {
        let mut names = Vec::new();
        note_name(&mut names, name("http://a.example/")).unwrap();
        note_name(&mut names, name("http://a.example/other")).unwrap();
        assert_eq!(names.len(), 1, "same host and port: one lookup");
        note_name(&mut names, name("http://a.example:8080/")).unwrap();
        assert_eq!(names.len(), 2, "another port is another name");
        for i in 2..MAX_RESOLVED_NAMES {
            note_name(&mut names, name(&format!("http://h{i}.example/"))).unwrap();
        }
        assert_eq!(names.len(), MAX_RESOLVED_NAMES);
        note_name(&mut names, name("http://a.example/again")).unwrap();
        let r = note_name(&mut names, name("http://one-more.example/")).unwrap_err();
        assert_eq!(r.code(), "policy.arguments_too_complex");
        assert!(r.message().contains(&MAX_RESOLVED_NAMES.to_string()));
        assert_eq!(names.len(), MAX_RESOLVED_NAMES);
    }

    fn public(_: &str, _: u16) -> Vec<IpAddr> {
        vec!["93.184.215.14".parse().unwrap()]
    }

    fn by_host(host: &str, _: u16) -> Vec<IpAddr> {
        match host {
            "inside.example" => vec!["127.0.0.2".parse().unwrap()],
            "slow.example" => {
                std::thread::sleep(Duration::from_millis(400));
                vec!["93.184.215.14".parse().unwrap()]
            }
            "none.example" => Vec::new(),
            _ => public(host, 0),
        }
    }

    fn run(names: &[&str], wait: Duration) -> Result<(), &'static str> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let names: Vec<PendingName> = names.iter().map(|u| name(u)).collect();
        rt.block_on(async {
            Resolver::default()
                .vet_all_with(&NetPolicy::default(), names, Instant::now() + wait, by_host)
                .await
        })
        .map_err(|r| r.code())
    }

    #[test]
    fn every_answer_is_vetted() {
        let long = Duration::from_secs(4);
        assert_eq!(
            run(&["http://a.example/", "http://b.example/"], long),
            Ok(())
        );
        assert_eq!(
            run(&["http://a.example/", "http://inside.example/"], long),
            Err("ssrf.loopback")
        );
        assert_eq!(run(&["http://none.example/"], long), Err("dns.no_address"));
        assert_eq!(run(&[], long), Ok(()));
    }

    #[test]
    fn slow_names_end_at_the_deadline() {
        // Past the deadline: refused, not waited for.
        assert_eq!(
            run(&["http://slow.example/"], Duration::from_millis(50)),
            Err("dns.timeout")
        );
        // In parallel: MAX_RESOLVED_NAMES slow names fit one deadline that
        // a single one fits (in a row they would take 32 × 400 ms).
        let slow: Vec<String> = (0..MAX_RESOLVED_NAMES)
            .map(|i| format!("http://slow.example:{}/", 1000 + i))
            .collect();
        let slow: Vec<&str> = slow.iter().map(String::as_str).collect();
        assert_eq!(run(&slow, Duration::from_secs(4)), Ok(()));
    }

    #[test]
    fn the_deadline_never_passes_the_bound() {
        // Every lookup thread of the session is busy, and the caller's
        // deadline is an hour away: the message is refused at
        // RESOLVE_DEADLINE (5 s), not held for the hour.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let r = rt.block_on(async {
            let resolver = Resolver::default();
            let _all = Arc::clone(&resolver.threads)
                .acquire_many_owned(u32::try_from(MAX_RESOLVER_THREADS).unwrap())
                .await
                .unwrap();
            resolver
                .vet_all_with(
                    &NetPolicy::default(),
                    vec![name("http://a.example/")],
                    Instant::now() + Duration::from_secs(3600),
                    public,
                )
                .await
        });
        assert_eq!(r.map_err(|r| r.code()), Err("dns.timeout"));
    }
}
