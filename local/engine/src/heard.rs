//! What a test hears on the store's bus: the events a tap's queue ([`LocalBus::tap`]) receives,
//! each held to `api/events.yaml` as it arrives (a violation fails the test that sent it, as a
//! response that breaks `api/openapi.yaml` does), and put in order by subject and sequence.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::bus::LocalBus;
use crate::contract::event_violations;

/// Every event the tap at `queue` holds, until none has come for `quiet`: the envelopes, as
/// received, each valid under the events contract.
pub async fn heard(bus: &LocalBus, queue: &str, quiet: Duration) -> Vec<Value> {
    let mut all = Vec::new();
    loop {
        let bodies = bus
            .take(queue, quiet)
            .await
            .unwrap_or_else(|err| panic!("the tap {queue}: {err}"));
        if bodies.is_empty() {
            return all;
        }
        for body in bodies {
            let envelope: Value = serde_json::from_str(&body)
                .unwrap_or_else(|err| panic!("not an event ({err}): {body}"));
            let broken = event_violations(&envelope);
            assert!(
                broken.is_empty(),
                "an event breaks api/events.yaml:\n  {}\n{envelope:#}",
                broken.join("\n  ")
            );
            all.push(envelope);
        }
    }
}

/// The details of `envelopes`, each `eventId` once (a redelivery dropped, as a consumer drops
/// it), by subject (`order/o1`), in `sequence` order; a subject's events without a sequence
/// (a product's) in the order heard.
pub fn by_subject(envelopes: &[Value]) -> BTreeMap<String, Vec<Value>> {
    let mut seen = std::collections::BTreeSet::new();
    let mut subjects: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for envelope in envelopes {
        let detail = &envelope["detail"];
        let id = detail["eventId"].as_str().unwrap_or_default();
        if !seen.insert(id.to_owned()) {
            continue;
        }
        let subject = id
            .rsplit_once('/')
            .map_or(id, |(subject, _)| subject)
            .to_owned();
        subjects.entry(subject).or_default().push(detail.clone());
    }
    for events in subjects.values_mut() {
        events.sort_by_key(|e| e["sequence"].as_u64().unwrap_or(0));
    }
    subjects
}

/// The types of `events`, with their sequences: `("order.placed", 1)`.
pub fn kinds(events: &[Value]) -> Vec<(String, u64)> {
    events
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap_or_default().to_owned(),
                e["sequence"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}
