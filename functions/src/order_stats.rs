//! The stream consumer: keeps each customer's `orderCount`, `totalSpent` and `lastOrderAt`
//! exact under at-least-once delivery, reporting partial batch failures.
//!
//! Records are read in order up to the first unreadable one. The readable ones are grouped by
//! customer and order (an order's records in one batch make one change) and written in as few
//! transactions as fit: one profile update per customer plus one share per order
//! (`shared::dynamo::stats`). Every record from the first that failed onwards is reported, so
//! Lambda retries from there; the stored shares make the retried records that did land count
//! once.

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use shared::Store;
use shared::dynamo::stats::{CustomerChanges, RecordEffect, pack, record_effect};
use shared::metrics::{self, Metric};

/// Readable records grouped by customer, and the position of the first unreadable one.
pub fn read_batch(records: &[EventRecord]) -> (Vec<CustomerChanges>, usize) {
    let mut groups: Vec<CustomerChanges> = Vec::new();
    for (position, record) in records.iter().enumerate() {
        match record_effect(record) {
            Ok(RecordEffect::Ignored) => {}
            Ok(RecordEffect::Expired) => metrics::count(Metric::TtlDeletions, 1),
            Ok(RecordEffect::Moves { customer, change }) => {
                let index = match groups.iter().position(|g| g.customer == customer) {
                    Some(index) => index,
                    None => {
                        groups.push(CustomerChanges::new(customer));
                        groups.len() - 1
                    }
                };
                groups[index].add(position, change);
            }
            Err(poison) => {
                tracing::error!(
                    error = %poison,
                    event_id = %record.event_id,
                    sequence_number = record.change.sequence_number.as_deref().unwrap_or("?"),
                    "unreadable stream record; it and the records after it are reported as failed"
                );
                return (groups, position);
            }
        }
    }
    (groups, records.len())
}

pub async fn handle(store: &Store, event: Event) -> DynamoDbEventResponse {
    let records = &event.records;
    let (groups, unreadable) = read_batch(records);
    let mut first_failed = unreadable;
    for part in pack(groups) {
        match store.apply_stats(&part).await {
            Ok(applied) => {
                metrics::count(Metric::RecordsApplied, applied.applied as u64);
                metrics::count(Metric::RecordsSkipped, applied.duplicates as u64);
                tracing::debug!(?applied, "statistics applied");
            }
            Err(err) => {
                let first = part
                    .iter()
                    .flat_map(|g| g.changes.iter())
                    .map(|r| r.position)
                    .min()
                    .unwrap_or(0);
                tracing::error!(error = ?err, first_position = first, "statistics not applied; reporting from this record on");
                first_failed = first_failed.min(first);
                break;
            }
        }
    }
    shared::bootstrap::failed_from(records, first_failed)
}
