//! The publisher: every committed change of an order, a refund or a product's stock, read from
//! the table's stream, published to the store's EventBridge bus as the events it is
//! (`shared::dynamo::events`; docs/events.md).
//!
//! A batch's records are read in order. Their events go to the bus in `PutEvents` calls of up
//! to ten; an entry the bus did not take for a passing reason (throttling, its own fault, no
//! answer) is sent again with backoff while the invocation has time. A record is done when
//! every one of its events is on the bus, or when it is in the dead-letter queue with its
//! reason: one the publisher cannot read, or whose event the bus refuses for good. Every record
//! from the first that is not done is reported failed, so Lambda delivers it again (and those
//! after it: a consumer drops the duplicates by `eventId`); the shard is never held up by one
//! bad record.

mod bus;
mod dead_letters;

use std::time::{Duration, Instant};

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use shared::Store;
use shared::domain::error::BoxError;
use shared::domain::event::StoreEvent;
use shared::dynamo::client::Environment;
use shared::dynamo::events::{EventRules, events_of};
use shared::metrics::{self, Metric};

pub use bus::{Bus, Entry, Outcome};
pub use dead_letters::DeadLetters;

/// What the publisher needs, built once per cold start.
#[derive(Debug, Clone)]
pub struct Publisher {
    /// The store: an order's lines, read for the event of its placing.
    pub store: Store,
    /// The bus the events go to.
    pub bus: Bus,
    /// Where a record that cannot be published goes, with its reason.
    pub dead_letters: DeadLetters,
    /// What makes a change an event beyond the records themselves.
    pub rules: EventRules,
}

impl Publisher {
    /// From the Lambda environment: `EVENT_BUS_NAME`, `LOW_STOCK_THRESHOLD` (0: never),
    /// `FAILURE_QUEUE_URL`; the clients from the execution role's credentials, their endpoints
    /// from `AWS_ENDPOINT_URL_EVENTBRIDGE` and `AWS_ENDPOINT_URL_SQS` when set (make dev).
    pub fn from_env(store: Store) -> Result<Self, BoxError> {
        let required = |name: &str| {
            std::env::var(name)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .ok_or_else(|| format!("environment variable {name} must be set"))
        };
        let environment = Environment::of_process()?;
        let low_stock = required("LOW_STOCK_THRESHOLD")?;
        let low_stock = low_stock.trim().parse().map_err(|_| {
            format!("LOW_STOCK_THRESHOLD must be a whole number, not {low_stock:?}")
        })?;
        Ok(Self {
            store,
            bus: Bus::new(
                shared::service_client!(
                    aws_sdk_eventbridge,
                    &environment,
                    shared::dynamo::client::timeouts(),
                    "AWS_ENDPOINT_URL_EVENTBRIDGE"
                ),
                required("EVENT_BUS_NAME")?,
            ),
            dead_letters: DeadLetters::new(
                shared::service_client!(
                    aws_sdk_sqs,
                    &environment,
                    shared::dynamo::client::timeouts(),
                    "AWS_ENDPOINT_URL_SQS"
                ),
                required("FAILURE_QUEUE_URL")?,
            ),
            rules: EventRules { low_stock },
        })
    }
}

/// Where one record of the batch stands.
#[derive(Debug)]
enum Fate {
    /// Its events are to be published.
    Publishing(Vec<StoreEvent>),
    /// Every event of it is on the bus (or it gives none).
    Done,
    /// For the dead-letter queue, for this reason, with the events it gives (if known).
    DeadLetter(String, Vec<StoreEvent>),
    /// Not done: Lambda delivers it again.
    Failed(String),
}

/// One batch of the stream, published; the records from the first not done on reported failed.
pub async fn handle(
    publisher: &Publisher,
    event: Event,
    budget: Duration,
) -> DynamoDbEventResponse {
    let deadline = Instant::now() + budget;
    let records = &event.records;
    let mut fates: Vec<Fate> = records
        .iter()
        .map(|record| match events_of(record, publisher.rules) {
            Ok(events) if events.is_empty() => Fate::Done,
            Ok(events) => Fate::Publishing(events),
            Err(poison) => Fate::DeadLetter(poison.to_string(), Vec::new()),
        })
        .collect();
    add_lines(&publisher.store, &mut fates).await;
    publish(&publisher.bus, &mut fates, deadline).await;
    dead_letter(&publisher.dead_letters, records, &mut fates).await;
    respond(records, &fates)
}

/// Each event that tells of an order's lines ([`EventType::tells_lines`]: `order.placed`, a
/// fulfilment's, a cancellation's, a return's) given its order's lines as bought (one Query per
/// event); a record whose lines cannot be read is not done.
async fn add_lines(store: &Store, fates: &mut [Fate]) {
    for fate in fates.iter_mut() {
        let Fate::Publishing(events) = fate else {
            continue;
        };
        for event in events.iter_mut() {
            let Some(order) = event.order_id.as_ref().filter(|_| event.kind.tells_lines()) else {
                continue;
            };
            match store.placed_lines(order).await {
                Ok(lines) => event.lines = Some(lines),
                Err(err) => {
                    *fate =
                        Fate::Failed(format!("the lines of order {order}: {}", err.with_causes()));
                    break;
                }
            }
        }
    }
}

/// Every event still to be published sent to the bus; each record's fate from its entries'.
async fn publish(bus: &Bus, fates: &mut [Fate], deadline: Instant) {
    let mut entries = Vec::new();
    for (position, fate) in fates.iter_mut().enumerate() {
        if let Fate::Publishing(events) = fate {
            match events
                .iter()
                .map(|event| Entry::of(position, event))
                .collect()
            {
                Ok(made) => entries.extend::<Vec<Entry>>(made),
                Err(why) => *fate = Fate::DeadLetter(why, std::mem::take(events)),
            }
        }
    }
    let outcomes = bus.put(&entries, deadline).await;
    for (entry, outcome) in entries.iter().zip(outcomes) {
        let fate = &mut fates[entry.position];
        match (outcome, &mut *fate) {
            (Outcome::Published, _) => {}
            (Outcome::Refused(why), Fate::Publishing(events)) => {
                *fate = Fate::DeadLetter(why, std::mem::take(events));
            }
            (Outcome::Unsent(why), Fate::Publishing(_)) => *fate = Fate::Failed(why),
            // The record's fate is decided by an entry before this one.
            (_, _) => {}
        }
    }
    for fate in fates.iter_mut() {
        if matches!(fate, Fate::Publishing(_)) {
            *fate = Fate::Done;
        }
    }
}

/// Every record for the dead-letter queue sent there, with its reason; one whose message is not
/// taken is not done.
async fn dead_letter(queue: &DeadLetters, records: &[EventRecord], fates: &mut [Fate]) {
    for (record, fate) in records.iter().zip(fates.iter_mut()) {
        let Fate::DeadLetter(reason, events) = fate else {
            continue;
        };
        tracing::error!(
            reason = %reason,
            event_id = %record.event_id,
            sequence_number = record.change.sequence_number.as_deref().unwrap_or("?"),
            "a stream record cannot be published; it goes to the dead-letter queue"
        );
        *fate = match queue.send(record, reason, events).await {
            Ok(()) => {
                metrics::count(Metric::EventRecordsDeadLettered, 1);
                Fate::Done
            }
            Err(err) => Fate::Failed(format!("the dead-letter queue did not take it: {err}")),
        };
    }
}

/// The batch's answer: every record from the first not done on, by its sequence number.
fn respond(records: &[EventRecord], fates: &[Fate]) -> DynamoDbEventResponse {
    let first = fates
        .iter()
        .position(|fate| !matches!(fate, Fate::Done))
        .unwrap_or(records.len());
    if let Some(Fate::Failed(why)) = fates.get(first) {
        tracing::warn!(
            reason = %why,
            records = records.len() - first,
            "records not published; Lambda delivers them again"
        );
    }
    shared::bootstrap::failed_from(records, first)
}
