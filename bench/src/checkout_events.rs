//! The checkout load's events: every event make dev publishes during the run, as its tap on
//! the bus (a queue every store event reaches, drained into make dev's memory) heard it, read
//! from `/_explorer/api/events` as `make events` reads it; each held to api/events.yaml; then
//! each order's, duplicates dropped by `eventId`, must be exactly its fate's, numbered 1, 2, …
//! without a gap, and each of its refunds' likewise.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use local_engine::contract::event_violations;
use local_engine::runtime_api::Error;
use serde_json::Value;

use crate::http::Connection;
use crate::{Checkout, Fate};

/// How long the run waits for the last events once everything it did has committed: make dev's
/// bus is moto's, one Python process, which takes the publisher's events at about 26 a second
/// from the one shard (docs/events.md), so the run's ~1,400 take about a minute on an idle
/// machine of two cores and two or three on a busy one.
const EVENTS_DEADLINE: Duration = Duration::from_secs(300);

/// make dev's tap, read as it fills: every delivery kept, by `eventId`.
pub(crate) struct Tap {
    collected: std::sync::Arc<std::sync::Mutex<Collected>>,
}

#[derive(Default)]
struct Collected {
    deliveries: usize,
    last_at: Option<Instant>,
    by_id: BTreeMap<String, Value>,
    broken: Vec<String>,
}

/// What the events of the run came to.
#[derive(Debug, Default)]
pub(crate) struct Heard {
    /// Every delivery, duplicates included.
    pub(crate) deliveries: usize,
    /// Distinct events (by `eventId`).
    pub(crate) events: usize,
    /// Orders and refunds whose events were all there, in order.
    pub(crate) complete: usize,
    /// What was wrong.
    pub(crate) failures: Vec<String>,
    /// When the last event arrived, after the run's last write.
    pub(crate) settled_after: Duration,
}

/// An order's events, and each of its refunds', as its fate makes them.
fn expected(checkout: &Checkout) -> (Vec<&'static str>, Vec<Vec<&'static str>>) {
    let held = "order.hold-started";
    let fate = Fate::of(checkout.n);
    match fate {
        Fate::PaidInTime => (vec![held, "order.placed"], vec![]),
        Fate::Expires => (vec![held, "order.hold-ended"], vec![]),
        // localstripe never collected the late payment: its refund stays PENDING (its 500) or
        // FAILED (its 400); `check` takes either.
        Fate::PaidAfterExpiry => (
            vec![held, "order.hold-ended"],
            vec![vec!["refund.requested"]],
        ),
        // Refunding an order's only unit before it shipped leaves nothing to ship: cancelled.
        Fate::PaidThenRefunded => (
            if fate.status_of(checkout) == "CANCELLED" {
                vec![held, "order.placed", "order.cancelled"]
            } else {
                vec![held, "order.placed"]
            },
            vec![vec!["refund.requested", "refund.succeeded"]],
        ),
    }
}

impl Tap {
    /// make dev's (at `addr`) events, read from its tap from now on.
    pub(crate) async fn open(addr: &str) -> Result<Self, Error> {
        let mut make_dev = Connection::open(addr).await?;
        let collected = std::sync::Arc::new(std::sync::Mutex::new(Collected::default()));
        let filling = collected.clone();
        let addr = addr.to_owned();
        tokio::spawn(async move {
            let mut after = 0;
            loop {
                let path = format!("/_explorer/api/events?after={after}&wait=1");
                let answer = match make_dev.request("GET", &path, &[], "").await {
                    Ok((200, body)) => serde_json::from_str::<Value>(&body).unwrap_or_default(),
                    _ => {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        if let Ok(again) = Connection::open(&addr).await {
                            make_dev = again;
                        }
                        continue;
                    }
                };
                after = answer["last"].as_u64().unwrap_or(after);
                let mut c = filling
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                for envelope in answer["events"].as_array().into_iter().flatten() {
                    c.deliveries += 1;
                    c.last_at = Some(Instant::now());
                    let broken = event_violations(envelope);
                    if !broken.is_empty() {
                        c.broken
                            .push(format!("an event breaks api/events.yaml: {broken:?}"));
                    }
                    let detail = envelope["detail"].clone();
                    let id = detail["eventId"].as_str().unwrap_or_default().to_owned();
                    c.by_id.insert(id, detail);
                }
            }
        });
        Ok(Self { collected })
    }

    /// The run's events, once each checkout's are all there or the deadline passes, checked
    /// against the fates.
    pub(crate) async fn account(&self, checkouts: &[Checkout]) -> Result<Heard, Error> {
        let started = Instant::now();
        loop {
            let (wrong, heard) = {
                let c = self
                    .collected
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let wrong = check(checkouts, &c.by_id);
                let subjects = count_subjects(&c.by_id);
                let heard = Heard {
                    deliveries: c.deliveries,
                    events: c.by_id.len(),
                    complete: subjects - wrong.len().min(subjects),
                    failures: c.broken.clone(),
                    settled_after: c
                        .last_at
                        .map_or(Duration::ZERO, |at| at.saturating_duration_since(started)),
                };
                (wrong, heard)
            };
            if wrong.is_empty() || started.elapsed() > EVENTS_DEADLINE {
                let mut heard = heard;
                heard.failures.extend(wrong);
                return Ok(heard);
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

fn count_subjects(events: &BTreeMap<String, Value>) -> usize {
    subjects(events).len()
}

/// The numbered events by subject (`order/<id>`, `refund/<id>`), in `sequence` order. The
/// catalog's (`product.*`, `variant.*`: the run's products published, their stock crossing 0)
/// carry no sequence and are not the run's accounting.
fn subjects(events: &BTreeMap<String, Value>) -> BTreeMap<String, Vec<&Value>> {
    let mut subjects: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for (id, detail) in events.iter().filter(|(_, d)| d.get("sequence").is_some()) {
        let subject = id.rsplit_once('/').map_or(id.as_str(), |(s, _)| s);
        subjects.entry(subject.to_owned()).or_default().push(detail);
    }
    for events in subjects.values_mut() {
        events.sort_by_key(|e| e["sequence"].as_u64().unwrap_or(0));
    }
    subjects
}

/// What is wrong with the events heard so far: each order's must be its fate's, its refunds'
/// theirs, every subject's numbered 1, 2, … without a gap, and no subject the run did not make.
fn check(checkouts: &[Checkout], events: &BTreeMap<String, Value>) -> Vec<String> {
    let subjects = subjects(events);
    let mut wrong = Vec::new();
    let mut refunds_of: BTreeMap<String, Vec<Vec<&str>>> = BTreeMap::new();
    for (subject, list) in &subjects {
        let numbers: Vec<u64> = list
            .iter()
            .map(|e| e["sequence"].as_u64().unwrap_or(0))
            .collect();
        if numbers != (1..=list.len() as u64).collect::<Vec<_>>() {
            wrong.push(format!(
                "{subject}: sequences {numbers:?}, not 1 to {}",
                list.len()
            ));
        }
        if subject.starts_with("refund/") {
            let order = list[0]["orderId"].as_str().unwrap_or("?").to_owned();
            let kinds = list
                .iter()
                .map(|e| e["type"].as_str().unwrap_or("?"))
                .collect();
            refunds_of.entry(order).or_default().push(kinds);
        }
    }
    for checkout in checkouts {
        let fate = Fate::of(checkout.n);
        let (order_kinds, refund_kinds) = expected(checkout);
        let subject = format!("order/{}", checkout.order);
        let kinds: Vec<&str> = subjects
            .get(&subject)
            .map(|list| {
                list.iter()
                    .map(|e| e["type"].as_str().unwrap_or("?"))
                    .collect()
            })
            .unwrap_or_default();
        if kinds != order_kinds {
            wrong.push(format!(
                "{subject} ({}): {kinds:?}, not {order_kinds:?}",
                fate.label()
            ));
        }
        let mut refunds = refunds_of.remove(&checkout.order).unwrap_or_default();
        if fate == Fate::PaidAfterExpiry {
            // Whether localstripe refused the refund (400: FAILED) or keeps failing (500:
            // PENDING) is its doing: both are the store's right answer.
            for kinds in &mut refunds {
                if kinds.as_slice() == ["refund.requested", "refund.failed"] {
                    kinds.pop();
                }
            }
        }
        if refunds != refund_kinds {
            wrong.push(format!(
                "{subject} ({}): refunds {refunds:?}, not {refund_kinds:?}",
                fate.label()
            ));
        }
    }
    let ours: std::collections::BTreeSet<String> = checkouts
        .iter()
        .map(|c| format!("order/{}", c.order))
        .collect();
    for subject in subjects.keys() {
        if subject.starts_with("order/") && !ours.contains(subject) {
            wrong.push(format!("{subject}: an order the run did not make"));
        }
    }
    for (order, refunds) in refunds_of {
        wrong.push(format!(
            "refunds {refunds:?} of order {order}, which the run did not make"
        ));
    }
    wrong
}
