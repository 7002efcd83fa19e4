//! The store's bus as the publisher sends to it: entries in EventBridge's envelope, `PutEvents`
//! calls of at most ten entries and 256 KB, and the entries the bus did not take sent again.

use std::sync::Mutex;
use std::time::Instant;

use aws_sdk_eventbridge::types::PutEventsRequestEntry;
use shared::domain::event::{SOURCE, StoreEvent};
use shared::metrics::{self, Metric};
use shared::retry::{Backoff, retry};

/// The most entries one `PutEvents` call takes.
pub(crate) const MAX_ENTRIES: usize = 10;
/// The most one `PutEvents` call may carry, in EventBridge's count of an entry's size.
pub(crate) const MAX_CALL_BYTES: usize = 256 * 1024;

/// The error codes of an entry the bus did not take for a passing reason: sent again.
const PASSING: [&str; 5] = [
    "ThrottlingException",
    "InternalFailure",
    "InternalException",
    "ServiceUnavailable",
    "ServiceUnavailableException",
];

/// Entries the bus did not take for a passing reason, sent again up to eight times in all,
/// waits drawn from up to 100 ms doubling to 5 s (~11 s of waiting at most), while the
/// invocation has time.
const RESEND: Backoff = Backoff {
    attempts: 8,
    base: std::time::Duration::from_millis(100),
    cap: std::time::Duration::from_secs(5),
};

/// The store's bus.
#[derive(Debug, Clone)]
pub struct Bus {
    client: aws_sdk_eventbridge::Client,
    name: String,
}

/// One event as an entry of a `PutEvents` call, and the batch record it comes from.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The record's position in its batch.
    pub position: usize,
    entry: PutEventsRequestEntry,
    /// Its size as EventBridge counts it toward a call's 256 KB.
    size: usize,
}

/// What became of one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// On the bus.
    Published,
    /// Not on the bus, for a reason that sending it again will not change.
    Refused(String),
    /// Not on the bus yet: the bus did not take it or did not answer, and the time or the
    /// attempts ran out.
    Unsent(String),
}

impl Entry {
    /// `event`, of the record at `position`, in EventBridge's envelope: `source` the store's,
    /// `detail-type` the event's type, `time` when it committed; an event too large for the
    /// bus is refused here.
    pub fn of(position: usize, event: &StoreEvent) -> Result<Self, String> {
        let detail = serde_json::to_string(event).map_err(|err| err.to_string())?;
        let detail_type = event.kind.as_str();
        // EventBridge's count: the time (14 bytes when set), source, detail-type and detail.
        let size = 14 + SOURCE.len() + detail_type.len() + detail.len();
        if size > MAX_CALL_BYTES {
            return Err(format!(
                "{} {} is {size} bytes, more than EventBridge takes ({MAX_CALL_BYTES})",
                event.kind, event.event_id
            ));
        }
        let time =
            aws_smithy_types::DateTime::from_secs(event.occurred_at.as_datetime().timestamp());
        let entry = PutEventsRequestEntry::builder()
            .source(SOURCE)
            .detail_type(detail_type)
            .detail(detail)
            .time(time)
            .build();
        Ok(Self {
            position,
            entry,
            size,
        })
    }

    /// The envelope's detail (the event as JSON).
    pub fn detail(&self) -> &str {
        self.entry.detail().unwrap_or_default()
    }
}

impl Bus {
    /// The bus `name` (or its ARN), sent to with `client`.
    pub fn new(client: aws_sdk_eventbridge::Client, name: String) -> Self {
        Self { client, name }
    }

    /// Every entry sent, the calls at once; those the bus did not take for a passing reason sent
    /// again while attempts and the time to `deadline` last. Each entry's outcome, in order.
    pub async fn put(&self, entries: &[Entry], deadline: Instant) -> Vec<Outcome> {
        let outcomes = Mutex::new(vec![Outcome::Unsent("not sent".to_owned()); entries.len()]);
        let _ = retry(
            &RESEND,
            |_: &usize| Instant::now() + RESEND.cap < deadline,
            |_| self.attempt(entries, &outcomes),
        )
        .await;
        outcomes
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// One attempt: every entry not on the bus yet sent; `Err(n)` while `n` are still unsent.
    async fn attempt(
        &self,
        entries: &[Entry],
        outcomes: &Mutex<Vec<Outcome>>,
    ) -> Result<(), usize> {
        let todo: Vec<usize> = {
            let outcomes = outcomes.lock().unwrap_or_else(|p| p.into_inner());
            (0..entries.len())
                .filter(|&i| matches!(outcomes[i], Outcome::Unsent(_)))
                .collect()
        };
        let calls = chunks(&todo, entries);
        let answers =
            futures_util::future::join_all(calls.iter().map(|call| self.call(call, entries))).await;
        let mut outcomes = outcomes.lock().unwrap_or_else(|p| p.into_inner());
        for (call, answer) in calls.iter().zip(answers) {
            for (&at, outcome) in call.iter().zip(answer) {
                outcomes[at] = outcome;
            }
        }
        let unsent = outcomes
            .iter()
            .filter(|o| matches!(o, Outcome::Unsent(_)))
            .count();
        if unsent == 0 { Ok(()) } else { Err(unsent) }
    }

    /// One `PutEvents` call of the entries at `call`; each one's outcome.
    async fn call(&self, call: &[usize], entries: &[Entry]) -> Vec<Outcome> {
        let sent = self
            .client
            .put_events()
            .set_entries(Some(
                call.iter()
                    .map(|&at| {
                        let mut entry = entries[at].entry.clone();
                        entry.event_bus_name = Some(self.name.clone());
                        entry
                    })
                    .collect(),
            ))
            .send()
            .await;
        let answer = match sent {
            Ok(answer) => answer,
            Err(err) => {
                let why = format!(
                    "PutEvents failed: {}",
                    aws_sdk_eventbridge::error::DisplayErrorContext(&err)
                );
                tracing::warn!(entries = call.len(), error = %why, "the bus did not answer");
                metrics::count(Metric::EventEntriesFailed, call.len() as u64);
                return vec![Outcome::Unsent(why); call.len()];
            }
        };
        let results = answer.entries();
        (0..call.len())
            .map(|i| {
                let outcome = match results.get(i) {
                    Some(result) => outcome_of(result),
                    None => Outcome::Unsent("the bus answered for fewer entries".to_owned()),
                };
                metrics::count(
                    match outcome {
                        Outcome::Published => Metric::EventsPublished,
                        _ => Metric::EventEntriesFailed,
                    },
                    1,
                );
                outcome
            })
            .collect()
    }
}

/// What the bus's answer for one entry means.
fn outcome_of(result: &aws_sdk_eventbridge::types::PutEventsResultEntry) -> Outcome {
    let Some(code) = result.error_code() else {
        return if result.event_id().is_some() {
            Outcome::Published
        } else {
            Outcome::Unsent("the bus answered with neither an ID nor an error".to_owned())
        };
    };
    let why = format!("{code}: {}", result.error_message().unwrap_or_default());
    if PASSING.contains(&code) {
        Outcome::Unsent(why)
    } else {
        Outcome::Refused(why)
    }
}

/// The entries at `todo`, in calls of at most [`MAX_ENTRIES`] and [`MAX_CALL_BYTES`], in order.
fn chunks(todo: &[usize], entries: &[Entry]) -> Vec<Vec<usize>> {
    let mut calls: Vec<Vec<usize>> = Vec::new();
    let mut bytes = 0;
    for &at in todo {
        let size = entries[at].size;
        match calls.last_mut() {
            Some(call) if call.len() < MAX_ENTRIES && bytes + size <= MAX_CALL_BYTES => {
                call.push(at);
                bytes += size;
            }
            _ => {
                calls.push(vec![at]);
                bytes = size;
            }
        }
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_eventbridge::types::PutEventsResultEntry;

    fn sized(sizes: &[usize]) -> Vec<Entry> {
        sizes
            .iter()
            .map(|&size| Entry {
                position: 0,
                entry: PutEventsRequestEntry::builder().build(),
                size,
            })
            .collect()
    }

    #[test]
    fn calls_hold_at_most_ten_entries_and_256_kb_in_order() {
        let entries = sized(&[1000; 23]);
        let all: Vec<usize> = (0..23).collect();
        let calls = chunks(&all, &entries);
        assert_eq!(calls.iter().map(Vec::len).collect::<Vec<_>>(), [10, 10, 3]);
        assert_eq!(calls.concat(), all);
        let big = sized(&[200 * 1024, 100 * 1024, 50 * 1024, 6 * 1024]);
        let calls = chunks(&[0, 1, 2, 3], &big);
        assert_eq!(calls, [vec![0], vec![1, 2, 3]]);
    }

    #[test]
    fn throttling_and_the_bus_own_faults_are_passing_anything_else_is_a_refusal() {
        let published = PutEventsResultEntry::builder().event_id("e1").build();
        assert_eq!(outcome_of(&published), Outcome::Published);
        let throttled = PutEventsResultEntry::builder()
            .error_code("ThrottlingException")
            .error_message("slow down")
            .build();
        assert!(matches!(outcome_of(&throttled), Outcome::Unsent(_)));
        let internal = PutEventsResultEntry::builder()
            .error_code("InternalFailure")
            .build();
        assert!(matches!(outcome_of(&internal), Outcome::Unsent(_)));
        let malformed = PutEventsResultEntry::builder()
            .error_code("MalformedDetail")
            .error_message("Detail is malformed.")
            .build();
        assert_eq!(
            outcome_of(&malformed),
            Outcome::Refused("MalformedDetail: Detail is malformed.".to_owned())
        );
    }
}
