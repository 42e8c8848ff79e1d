//! `--resolve`: the host names of one message resolved as the child will,
//! every address vetted, under three bounds that fail closed.
//!
//! * [`MAX_RESOLVED_NAMES`] distinct host names (one lookup each) and
//!   [`MAX_VETTED_DESTINATIONS`] distinct hosts and ports per message: a
//!   message naming more is refused (`policy.arguments_too_complex`) before
//!   any lookup.
//! * [`RESOLVE_DEADLINE`] for all the names of one message together, looked
//!   up in parallel, and never past the call's own deadline
//!   (`--call-timeout`, counted from the request's arrival): past it the
//!   message is refused (`dns.timeout`).
//! * [`MAX_RESOLVER_THREADS`] lookups running at once in the session. The
//!   system resolver cannot be interrupted, so a lookup past its deadline
//!   keeps its thread until the resolver gives up; the bound keeps a client
//!   that sends slow names from piling up threads. A message whose lookup
//!   finds no free thread is refused at once (`dns.timeout`), so slow names
//!   cost the messages behind them nothing.
//!
//! One lookup serves a host however many times, schemes, ports or trailing
//! dots the message names it with; each port's addresses are vetted.

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

/// Most distinct destinations (host and port) of one message whose
/// addresses `--resolve` vets: a message naming more is refused
/// (`policy.arguments_too_complex`) before any lookup.
pub const MAX_VETTED_DESTINATIONS: usize = 4 * MAX_RESOLVED_NAMES;

/// How long the lookups of one message may take together under
/// `--resolve` (a call's `--call-timeout`, when shorter, ends them sooner).
pub const RESOLVE_DEADLINE: Duration = Duration::from_secs(5);

/// Most system resolver lookups running at once in one gateway session.
pub const MAX_RESOLVER_THREADS: usize = 32;

/// The `rule` every `--resolve` refusal names.
const RULE: &str = "--resolve";

/// The name a lookup is made for: the host without its trailing dot (the
/// system resolver answers `a.example.` and `a.example` alike).
fn lookup_key(name: &PendingName) -> &str {
    let host = name.host();
    host.strip_suffix('.').unwrap_or(host)
}

/// Adds `name` to the names one message makes the gateway resolve: once
/// per host and port (each port's addresses are vetted under the operator's
/// entries), and the bound counts lookups, one per host whatever its
/// scheme, port or trailing dot.
///
/// # Errors
/// `policy.arguments_too_complex` when that would make more than
/// [`MAX_RESOLVED_NAMES`] lookups or [`MAX_VETTED_DESTINATIONS`] hosts
/// and ports.
pub fn note_name(names: &mut Vec<PendingName>, name: PendingName) -> Result<(), Refusal> {
    let key = lookup_key(&name);
    if let Some(same) = names
        .iter_mut()
        .find(|n| lookup_key(n) == key && n.port() == name.port())
    {
        // Named by a URL too: the lookup must find addresses.
        if !name.maybe_text() {
            same.make_strict();
        }
        return Ok(());
    }
    let known = names.iter().any(|n| lookup_key(n) == key);
    if (!known && lookups(names) >= MAX_RESOLVED_NAMES) || names.len() >= MAX_VETTED_DESTINATIONS {
        return Err(Refusal::new(
            GateCode::ArgumentsTooComplex,
            format!(
                "the message names more than {MAX_RESOLVED_NAMES} host names, or {MAX_VETTED_DESTINATIONS} hosts and ports, for --resolve to look up"
            ),
            RULE,
        ));
    }
    names.push(name);
    Ok(())
}

/// `names` by lookup, in the order each host first appears.
fn by_lookup(names: Vec<PendingName>) -> Vec<Vec<PendingName>> {
    let mut groups: Vec<Vec<PendingName>> = Vec::new();
    for name in names {
        let at = groups.iter().position(|g| {
            g.first()
                .is_some_and(|f| lookup_key(f) == lookup_key(&name))
        });
        match at.and_then(|i| groups.get_mut(i)) {
            Some(g) => g.push(name),
            None => groups.push(vec![name]),
        }
    }
    groups
}

/// How many lookups `names` make.
fn lookups(names: &[PendingName]) -> usize {
    names
        .iter()
        .enumerate()
        .filter(|(i, n)| {
            !names
                .iter()
                .take(*i)
                .any(|m| lookup_key(m) == lookup_key(n))
        })
        .count()
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
        for group in by_lookup(names) {
            let Some(first) = group.first() else {
                continue;
            };
            // A lookup waits for no thread: with every one of them held
            // by slower lookups, the message is refused at once.
            let net = net.clone();
            let (host, port) = (lookup_key(first).to_owned(), first.port());
            let started = self.start_lookup(&mut lookups, host, port, look, move |addrs| {
                group
                    .iter()
                    .try_for_each(|name| vet_addresses(&net, name, &addrs, RULE))
            });
            if !started {
                return Err(threads_busy());
            }
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

impl Resolver {
    /// Starts the lookup of `host` on a thread of its own, holding one of
    /// the session's [`MAX_RESOLVER_THREADS`] permits for as long as the
    /// thread's lookup runs, and adds to `lookups` a task giving
    /// `then(addresses)` (no address when the thread failed). `false`,
    /// nothing started, when every permit is held.
    fn start_lookup<T: Send + 'static>(
        &self,
        lookups: &mut tokio::task::JoinSet<T>,
        host: String,
        port: u16,
        look: fn(&str, u16) -> Vec<IpAddr>,
        then: impl FnOnce(Vec<IpAddr>) -> T + Send + 'static,
    ) -> bool {
        let Ok(permit) = Arc::clone(&self.threads).try_acquire_owned() else {
            return false;
        };
        lookups.spawn(async move {
            let addrs = tokio::task::spawn_blocking(move || {
                let addrs = look(&host, port);
                drop(permit);
                addrs
            })
            .await
            .unwrap_or_default();
            then(addrs)
        });
        true
    }

    /// [`Resolver::vet_all`] of each of `sets` apart, by `deadline` (and by
    /// [`RESOLVE_DEADLINE`] from now): one lookup per host for all of them,
    /// and the refusal of each set, if any, in order. A set whose lookup
    /// found no free thread, or did not end by the deadline, is refused
    /// (`dns.timeout`); the others are decided on their own answers. The
    /// caller bounds the names ([`note_name`] over all the sets).
    pub async fn vet_sets(
        &self,
        net: &NetPolicy,
        sets: &[Vec<PendingName>],
        deadline: Instant,
    ) -> Vec<Option<Refusal>> {
        self.vet_sets_with(net, sets, deadline, lookup).await
    }

    /// [`Resolver::vet_sets`] with the lookup given.
    pub(crate) async fn vet_sets_with(
        &self,
        net: &NetPolicy,
        sets: &[Vec<PendingName>],
        deadline: Instant,
        look: fn(&str, u16) -> Vec<IpAddr>,
    ) -> Vec<Option<Refusal>> {
        let deadline = deadline.min(Instant::now() + RESOLVE_DEADLINE);
        let mut hosts: Vec<(&str, u16)> = Vec::new();
        for name in sets.iter().flatten() {
            if !hosts.iter().any(|(h, _)| *h == lookup_key(name)) {
                hosts.push((lookup_key(name), name.port()));
            }
        }
        // Each host's answer, `None` until its lookup has ended; `busy`
        // when no thread was free for it.
        let mut answers: Vec<Option<Vec<IpAddr>>> = vec![None; hosts.len()];
        let mut busy = vec![false; hosts.len()];
        let mut lookups = tokio::task::JoinSet::new();
        for (i, (host, port)) in hosts.iter().enumerate() {
            let started = self.start_lookup(
                &mut lookups,
                (*host).to_owned(),
                *port,
                look,
                move |addrs| (i, addrs),
            );
            if let (false, Some(b)) = (started, busy.get_mut(i)) {
                *b = true;
            }
        }
        let _ = tokio::time::timeout_at(deadline, async {
            while let Some(done) = lookups.join_next().await {
                if let Ok((i, addrs)) = done {
                    if let Some(a) = answers.get_mut(i) {
                        *a = Some(addrs);
                    }
                }
            }
        })
        .await;
        sets.iter()
            .map(|set| {
                set.iter()
                    .try_for_each(|name| {
                        let at = hosts.iter().position(|(h, _)| *h == lookup_key(name));
                        match at.map(|i| (answers.get(i), busy.get(i))) {
                            Some((Some(Some(addrs)), _)) => vet_addresses(net, name, addrs, RULE),
                            Some((_, Some(true))) => Err(threads_busy()),
                            _ => Err(timed_out()),
                        }
                    })
                    .err()
            })
            .collect()
    }
}

fn threads_busy() -> Refusal {
    Refusal::from_denial(
        &Denial::of(
            DenialCode::DnsTimeout,
            format!(
                "all {MAX_RESOLVER_THREADS} lookup threads of the session are held by slower lookups: refused at once"
            ),
        ),
        RULE,
    )
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
        vet_url(&NetPolicy::default(), url, "t")
            .unwrap()
            .pop()
            .unwrap()
    }

    #[test]
    fn names_are_counted_once_and_bounded() {
        let mut names = Vec::new();
        note_name(&mut names, name("http://a.example.com/")).unwrap();
        note_name(&mut names, name("http://a.example.com/other")).unwrap();
        note_name(&mut names, name("http://A.example.com./x")).unwrap();
        assert_eq!(names.len(), 1, "same host and port: one destination");
        note_name(&mut names, name("http://a.example.com:8080/")).unwrap();
        note_name(&mut names, name("https://a.example.com./")).unwrap();
        assert_eq!(names.len(), 3, "another port is another destination");
        assert_eq!(lookups(&names), 1, "one lookup for every form of a host");
        for i in 1..MAX_RESOLVED_NAMES {
            note_name(&mut names, name(&format!("http://h{i}.example.com/"))).unwrap();
            note_name(&mut names, name(&format!("https://h{i}.example.com./"))).unwrap();
        }
        assert_eq!(lookups(&names), MAX_RESOLVED_NAMES);
        note_name(&mut names, name("http://a.example.com/again")).unwrap();
        let r = note_name(&mut names, name("http://one-more.example.com/")).unwrap_err();
        assert_eq!(r.code(), "policy.arguments_too_complex");
        assert!(r.message().contains(&MAX_RESOLVED_NAMES.to_string()));
        assert_eq!(lookups(&names), MAX_RESOLVED_NAMES);
        // The destinations of known hosts are bounded too.
        let mut names = Vec::new();
        for port in 1..=MAX_VETTED_DESTINATIONS {
            note_name(&mut names, name(&format!("http://a.example.com:{port}/"))).unwrap();
        }
        let r = note_name(&mut names, name("http://a.example.com:9/x")).map(|()| names.len());
        assert_eq!(r.map_err(|r| r.code()), Ok(MAX_VETTED_DESTINATIONS));
        let r = note_name(&mut names, name("http://a.example.com:65000/")).unwrap_err();
        assert_eq!(r.code(), "policy.arguments_too_complex");
        assert_eq!(names.len(), MAX_VETTED_DESTINATIONS);
    }

    #[test]
    fn one_lookup_per_host_every_port_vetted() {
        let groups = by_lookup(vec![
            name("http://a.example.com/"),
            name("http://b.example.com/"),
            name("https://a.example.com./"),
        ]);
        let sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
        assert_eq!(sizes, [2, 1]);
        // A trailing dot is looked up without it.
        assert_eq!(
            run(&["https://inside.example.com./"], Duration::from_secs(4)),
            Err("ssrf.loopback")
        );
        // Every destination of a host is vetted on the one answer: under
        // an entry that admits 127.0.0.2 port 443 only, port 80 is refused.
        let net = NetPolicy::parse(&["127.0.0.2:443"], &[]).unwrap();
        let vet = |urls: &[&str]| {
            let names: Vec<PendingName> = urls.iter().map(|u| name(u)).collect();
            tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .unwrap()
                .block_on(Resolver::default().vet_all_with(
                    &net,
                    names,
                    Instant::now() + Duration::from_secs(4),
                    by_host,
                ))
                .map_err(|r| r.code())
        };
        assert_eq!(vet(&["https://inside.example.com/"]), Ok(()));
        assert_eq!(
            vet(&["https://inside.example.com/", "http://inside.example.com./"]),
            Err("ssrf.loopback")
        );
    }

    fn public(_: &str, _: u16) -> Vec<IpAddr> {
        vec!["93.184.215.14".parse().unwrap()]
    }

    fn by_host(host: &str, _: u16) -> Vec<IpAddr> {
        match host {
            "inside.example.com" => vec!["127.0.0.2".parse().unwrap()],
            "slow.example.com" => {
                std::thread::sleep(Duration::from_millis(400));
                vec!["93.184.215.14".parse().unwrap()]
            }
            "none.example.com" => Vec::new(),
            _ => public(host, 0),
        }
    }

    fn run(names: &[&str], wait: Duration) -> Result<(), &'static str> {
        run_names(names.iter().map(|u| name(u)).collect(), wait)
    }

    fn run_names(names: Vec<PendingName>, wait: Duration) -> Result<(), &'static str> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
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
            run(&["http://a.example.com/", "http://b.example.com/"], long),
            Ok(())
        );
        assert_eq!(
            run(
                &["http://a.example.com/", "http://inside.example.com/"],
                long
            ),
            Err("ssrf.loopback")
        );
        assert_eq!(
            run(&["http://none.example.com/"], long),
            Err("dns.no_address")
        );
        assert_eq!(run(&[], long), Ok(()));
    }

    /// A scheme-less name under a URI-named key (#20 F7): every address
    /// found is vetted, no address lets the text pass; named by a URL as
    /// well, it must resolve.
    #[test]
    fn scheme_less_names_pass_only_when_nothing_resolves() {
        let long = Duration::from_secs(4);
        let net = NetPolicy::default();
        let sl = |t: &str| {
            crate::gate::urls::scheme_less_name(&net, t, "t")
                .unwrap()
                .pop()
                .unwrap_or_else(|| panic!("{t}"))
        };
        assert_eq!(run_names(vec![sl("none.example.com/x")], long), Ok(()));
        assert_eq!(run_names(vec![sl("report.pdf")], long), Ok(()));
        for t in [
            "inside.example.com/x",
            "inside.example.com",
            "user@inside.example.com?q",
            "inside.example.com.#f",
            " inside.example.com/x\n",
            // As WHATWG reads the host (#20 re-attack s41, S1).
            "inside%2Eexample%2Ecom/x",
            "inside.example.com\\x",
            "in\u{ad}side.example.com/x",
            "inside.example.com\u{200b}/x",
            "inside\u{3002}example\u{3002}com/x",
        ] {
            assert_eq!(run_names(vec![sl(t)], long), Err("ssrf.loopback"), "{t}");
        }
        assert_eq!(run_names(vec![sl("a.example.com/x")], long), Ok(()));
        // The same host and port by a URL: strict, whichever came first.
        for order in [
            [sl("none.example.com/x"), name("http://none.example.com/")],
            [name("http://none.example.com/"), sl("none.example.com")],
        ] {
            let mut names = Vec::new();
            for n in order {
                note_name(&mut names, n).unwrap();
            }
            assert_eq!(names.len(), 1);
            assert_eq!(run_names(names, long), Err("dns.no_address"));
        }
        // Not a name a server would fetch: prose, paths, URLs already.
        for t in [
            "",
            "a b",
            "/etc/x",
            "./a",
            "~/x",
            "http://a.example.com/",
            "a\\b c",
            // A single label is a relative path as likely as a host (s41,
            // FP-B): text.
            "src/main.rs",
            "docs/guide.md",
            "images\\logo.png",
        ] {
            assert!(
                crate::gate::urls::scheme_less_name(&net, t, "t")
                    .unwrap()
                    .is_empty(),
                "{t}"
            );
        }
    }

    #[test]
    fn slow_names_end_at_the_deadline() {
        // Past the deadline: refused, not waited for.
        assert_eq!(
            run(&["http://slow.example.com/"], Duration::from_millis(50)),
            Err("dns.timeout")
        );
        // In parallel: MAX_RESOLVED_NAMES slow names fit one deadline that
        // a single one fits (in a row they would take 32 × 400 ms).
        let slow: Vec<String> = (0..MAX_RESOLVED_NAMES)
            .map(|i| format!("http://slow.example.com:{}/", 1000 + i))
            .collect();
        let slow: Vec<&str> = slow.iter().map(String::as_str).collect();
        assert_eq!(run(&slow, Duration::from_secs(4)), Ok(()));
    }

    #[test]
    fn the_deadline_never_passes_the_bound() {
        // A lookup slower than RESOLVE_DEADLINE (5 s), and the caller's
        // deadline an hour away: the message is refused at the bound, not
        // held for the hour.
        fn hangs(_: &str, _: u16) -> Vec<IpAddr> {
            std::thread::sleep(RESOLVE_DEADLINE + Duration::from_secs(2));
            Vec::new()
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let r = rt.block_on(async {
            Resolver::default()
                .vet_all_with(
                    &NetPolicy::default(),
                    vec![name("http://a.example.com/")],
                    Instant::now() + Duration::from_secs(3600),
                    hangs,
                )
                .await
        });
        rt.shutdown_background();
        let r = r.unwrap_err();
        assert_eq!(r.code(), "dns.timeout");
        assert!(
            r.message().contains("within the deadline"),
            "{}",
            r.message()
        );
    }

    /// A resolver whose every lookup thread is held (by the permit, while
    /// it lives).
    async fn every_thread_held() -> (Resolver, tokio::sync::OwnedSemaphorePermit) {
        let resolver = Resolver::default();
        let all = Arc::clone(&resolver.threads)
            .acquire_many_owned(u32::try_from(MAX_RESOLVER_THREADS).unwrap())
            .await
            .unwrap();
        (resolver, all)
    }

    #[test]
    fn no_free_thread_refuses_at_once() {
        // Every lookup thread is held: refused for that, not held until
        // the deadline passes (whose refusal says so).
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let r = rt.block_on(async {
            let (resolver, _all) = every_thread_held().await;
            resolver
                .vet_all_with(
                    &NetPolicy::default(),
                    vec![name("http://a.example.com/")],
                    Instant::now() + Duration::from_secs(3600),
                    public,
                )
                .await
        });
        let r = r.unwrap_err();
        assert_eq!(r.code(), "dns.timeout");
        assert!(r.message().contains("refused at once"), "{}", r.message());
    }

    /// Each set decided on its own answers, one lookup per host for all
    /// (a lookup counter), a slow host refusing its sets alone, every
    /// thread held refusing every set at once.
    #[test]
    fn sets_are_decided_apart() {
        static LOOKUPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        fn counted(host: &str, port: u16) -> Vec<IpAddr> {
            LOOKUPS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            by_host(host, port)
        }
        let sets = |urls: &[&[&str]]| -> Vec<Vec<PendingName>> {
            urls.iter()
                .map(|set| set.iter().map(|u| name(u)).collect())
                .collect()
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let codes = |v: Vec<Option<Refusal>>| -> Vec<Option<&'static str>> {
            v.iter().map(|r| r.as_ref().map(Refusal::code)).collect()
        };
        let all = sets(&[
            &["http://a.example.com/"],
            &["http://inside.example.com/", "http://a.example.com/"],
            &[],
            &["http://none.example.com/"],
            &["https://a.example.com./x", "http://b.example.com:8080/"],
            &["http://slow.example.com/"],
        ]);
        let got = rt.block_on(Resolver::default().vet_sets_with(
            &NetPolicy::default(),
            &all,
            Instant::now() + Duration::from_millis(200),
            counted,
        ));
        assert_eq!(
            codes(got),
            [
                None,
                Some("ssrf.loopback"),
                None,
                Some("dns.no_address"),
                None,
                Some("dns.timeout")
            ]
        );
        assert_eq!(LOOKUPS.load(std::sync::atomic::Ordering::SeqCst), 5);
        let got = rt.block_on(async {
            let (resolver, _all) = every_thread_held().await;
            resolver
                .vet_sets_with(
                    &NetPolicy::default(),
                    &sets(&[&["http://a.example.com/"], &[]]),
                    Instant::now() + Duration::from_secs(3600),
                    public,
                )
                .await
        });
        assert_eq!(codes(got.clone()), [Some("dns.timeout"), None]);
        let busy = got.into_iter().flatten().next().unwrap();
        assert!(
            busy.message().contains("refused at once"),
            "{}",
            busy.message()
        );
        rt.shutdown_background();
    }
}
