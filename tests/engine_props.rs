//! Properties of the session engine's cancellation and progress, on a
//! service whose calls finish only when the test says so: the engine never
//! writes a response for a request whose cancellation it read before the
//! result was ready, never a progress notification after a response or a
//! cancellation, and answers every other call exactly once.
#![cfg(feature = "engine")]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use toolgate::engine::transport::{Frame, Outgoing, Transport};
use toolgate::engine::{
    CallContext, Engine, EngineConfig, Handled, Progress, Reply, Request, Response, Service,
};

type Pending = Arc<Mutex<HashMap<u64, (oneshot::Sender<()>, Option<Progress>)>>>;

/// `work` waits for the test's word; anything else is answered at once.
struct Held(Pending);

impl Service for Held {
    fn request(&mut self, request: Request, ctx: CallContext) -> Handled {
        let Some(n) = request
            .id
            .to_value()
            .as_u64()
            .filter(|_| request.method == "work")
        else {
            return Handled::Reply(Reply::Send(Response::result(request.id, json!({}))));
        };
        let (tx, rx) = oneshot::channel();
        self.0.lock().unwrap().insert(n, (tx, ctx.progress.clone()));
        let id = request.id;
        Handled::Call(Box::pin(async move {
            let _ = rx.await;
            Reply::Send(Response::result(id, json!({"done": n})))
        }))
    }
}

#[derive(Debug, Clone)]
enum Op {
    Start,
    Cancel(usize),
    Complete(usize),
    Report(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Start),
        (0usize..6).prop_map(Op::Cancel),
        (0usize..6).prop_map(Op::Complete),
        (0usize..6).prop_map(Op::Report),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    Running,
    /// Cancelled while running: its cancellation was read before any result.
    Cancelled,
    Answered,
}

fn line(v: &Value) -> Frame {
    Frame::Line(v.to_string().into_bytes())
}

/// The transcript, each request's final state, and for a cancelled
/// request the transcript length once the engine had read its cancellation.
type Run = (Vec<Value>, Vec<State>, Vec<Option<usize>>);

/// Runs `ops`.
fn run(ops: Vec<Op>) -> Run {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let pending: Pending = Arc::default();
        let (frame_tx, frames) = mpsc::channel(1);
        let (outgoing, mut out) = mpsc::channel(64);
        let config = EngineConfig {
            max_concurrent_calls: 64,
            max_queued_calls: 64,
            ..EngineConfig::default()
        };
        let engine = Engine::new(Held(Arc::clone(&pending)), config);
        let drive = async move {
            let mut transcript = Vec::new();
            let mut states: Vec<State> = Vec::new();
            let mut cancelled_at: Vec<Option<usize>> = Vec::new();
            let mut sentinel = 0u64;
            // Reads until the message `until` accepts; every message read is
            // kept in order.
            async fn read_until(
                out: &mut mpsc::Receiver<Outgoing>,
                transcript: &mut Vec<Value>,
                until: impl Fn(&Value) -> bool,
            ) {
                loop {
                    let Some(Outgoing::Message { line, .. }) = out.recv().await else {
                        panic!("the engine ended early");
                    };
                    let v: Value = serde_json::from_slice(&line).unwrap();
                    let stop = until(&v);
                    transcript.push(v);
                    if stop {
                        return;
                    }
                }
            }
            for op in ops {
                let mut newly_cancelled = None;
                match op {
                    Op::Start => {
                        let n = states.len() as u64;
                        states.push(State::Running);
                        cancelled_at.push(None);
                        let req = json!({"jsonrpc": "2.0", "id": n, "method": "work", "params": {"_meta": {"progressToken": format!("t{n}")}}});
                        frame_tx.send(line(&req)).await.unwrap();
                    }
                    Op::Cancel(k) if !states.is_empty() => {
                        let k = k % states.len();
                        let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": k}});
                        frame_tx.send(line(&note)).await.unwrap();
                        if states[k] == State::Running {
                            states[k] = State::Cancelled;
                            newly_cancelled = Some(k);
                        }
                    }
                    Op::Complete(k) if !states.is_empty() => {
                        let k = k % states.len();
                        let held = pending.lock().unwrap().remove(&(k as u64));
                        if let Some((tx, _)) = held {
                            let _ = tx.send(());
                            if states[k] == State::Running {
                                states[k] = State::Answered;
                                let id = k as u64;
                                read_until(&mut out, &mut transcript, |v| {
                                    v["id"] == id && v.get("result").is_some()
                                })
                                .await;
                            }
                        }
                    }
                    Op::Report(k) if !states.is_empty() => {
                        let k = k % states.len();
                        let progress = pending
                            .lock()
                            .unwrap()
                            .get(&(k as u64))
                            .and_then(|(_, p)| p.clone());
                        // A report after the answer or the cancellation: the
                        // handle outlives the call, as a worker's may.
                        if let Some(p) = progress {
                            p.report(1, Some(2), None);
                        }
                    }
                    Op::Cancel(_) | Op::Complete(_) | Op::Report(_) => {}
                }
                // The engine has read everything sent once it answers this.
                sentinel += 1;
                let s = format!("s{sentinel}");
                let ping = json!({"jsonrpc": "2.0", "id": s, "method": "ping"});
                frame_tx.send(line(&ping)).await.unwrap();
                read_until(&mut out, &mut transcript, |v| v["id"] == s.as_str()).await;
                if let Some(k) = newly_cancelled {
                    cancelled_at[k] = Some(transcript.len());
                }
            }
            // Release every call still held, then end the input: whatever
            // the engine writes now is in the transcript too.
            for (_, (tx, p)) in pending.lock().unwrap().drain() {
                if let Some(p) = p {
                    p.report(2, Some(2), None);
                }
                let _ = tx.send(());
            }
            frame_tx.send(Frame::Eof).await.unwrap();
            while let Some(m) = out.recv().await {
                match m {
                    Outgoing::Message { line, .. } => {
                        transcript.push(serde_json::from_slice(&line).unwrap())
                    }
                    Outgoing::End => break,
                }
            }
            (transcript, states, cancelled_at)
        };
        let (_, result) = tokio::join!(engine.run(Transport { frames, outgoing }), drive);
        result
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("proptest-regressions/engine_props.txt"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn cancelled_calls_are_never_answered_and_progress_never_follows(ops in proptest::collection::vec(op(), 1..40)) {
        let (transcript, states, cancelled_at) = run(ops);
        let mut answered: HashMap<u64, usize> = HashMap::new();
        for (at, v) in transcript.iter().enumerate() {
            if let Some(n) = v["id"].as_u64() {
                prop_assert!(
                    states[n as usize] != State::Cancelled,
                    "a response to a request cancelled before its result: {v}"
                );
                *answered.entry(n).or_default() += 1;
                continue;
            }
            if v["method"] == "notifications/progress" {
                let token = v["params"]["progressToken"].as_str().unwrap();
                let n: u64 = token.trim_start_matches('t').parse().unwrap();
                prop_assert!(
                    !transcript[..at].iter().any(|r| r["id"] == n),
                    "progress after the response of {n}"
                );
                prop_assert!(
                    cancelled_at[n as usize].is_none_or(|c| at < c),
                    "progress of {n} after its cancellation was read"
                );
            }
        }
        for (n, state) in states.iter().enumerate() {
            let times = answered.get(&(n as u64)).copied().unwrap_or(0);
            match state {
                State::Cancelled => prop_assert_eq!(times, 0),
                State::Running | State::Answered => prop_assert_eq!(times, 1, "request {}", n),
            }
        }
    }
}
