//! Customer order statistics kept from the table's stream: `orderCount`, `totalSpent` (the
//! totals of the customer's orders that are not CANCELLED) and `lastOrderAt`, on the profile.
//!
//! Delivery is at least once, so every record's effect is written in the same transaction as
//! a marker named after the record; a record whose marker exists has been applied already.

use aws_lambda_events::event::dynamodb::EventRecord;
use aws_sdk_dynamodb::types::{
    CancellationReason, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};

use crate::domain::ids::CustomerId;
use crate::domain::stats::StatsDelta;
use crate::dynamo::codec::Item;
use crate::dynamo::errors::{conflicted, reason_code};
use crate::dynamo::items::{listing, marker, profile};
use crate::dynamo::keys::{self, PK, SK};
use crate::dynamo::store::{built, epoch_seconds};
use crate::retry::{Backoff, retry};
use crate::{AppError, Store};

/// A marker outlives every redelivery: the stream keeps records 24 hours, and the event source
/// mapping refuses older ones (MaximumRecordAgeInSeconds); a day's margin on top.
pub const MARKER_TTL_SECONDS: u64 = 48 * 60 * 60;

/// What a stream record means for the statistics.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordEffect {
    /// Not an order listing, a removal, or a change that moves no statistic.
    Ignored,
    Counts {
        customer: CustomerId,
        delta: StatsDelta,
    },
}

/// A record that should describe an order listing but cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("unreadable {event} record for {keys}: {reason}")]
pub struct PoisonRecord {
    pub event: String,
    pub keys: String,
    pub reason: String,
}

fn is_order_listing(keys: &Item) -> bool {
    let text = |name: &str| keys.get(name).and_then(|v| v.as_s().ok());
    text(SK).is_some_and(|sk| sk.starts_with(keys::order_listing::SK_PREFIX))
        && text(PK).is_some_and(|pk| keys::customer::parse_pk(pk).is_ok())
}

/// Reads a record: an order INSERT counts the order, adds its total unless it is CANCELLED and
/// moves lastOrderAt; a MODIFY adds the change in what the order contributes to totalSpent
/// (a status entering CANCELLED subtracts the total, leaving it adds it back). Everything else,
/// removals and this store's own writes included, is ignored.
pub fn record_effect(record: &EventRecord) -> Result<RecordEffect, PoisonRecord> {
    let keys: Item = record.change.keys.clone().into();
    if !is_order_listing(&keys) {
        return Ok(RecordEffect::Ignored);
    }
    let poison = |reason: String| PoisonRecord {
        event: record.event_name.clone(),
        keys: describe_keys(&keys),
        reason,
    };
    let read = |image: &serde_dynamo::Item, which: &str| {
        listing::from_item(image.clone().into())
            .map_err(|err| poison(format!("{which} image: {err}")))
    };
    match record.event_name.as_str() {
        "INSERT" => {
            let order = read(&record.change.new_image, "new")?;
            Ok(RecordEffect::Counts {
                delta: StatsDelta::placed(&order),
                customer: order.customer_id,
            })
        }
        "MODIFY" => {
            let old = read(&record.change.old_image, "old")?;
            let new = read(&record.change.new_image, "new")?;
            Ok(match StatsDelta::changed(&old, &new) {
                Some(delta) => RecordEffect::Counts {
                    customer: new.customer_id,
                    delta,
                },
                None => RecordEffect::Ignored,
            })
        }
        _ => Ok(RecordEffect::Ignored),
    }
}

/// `PK=… SK=…`, for logs.
pub fn describe_keys(keys: &Item) -> String {
    let text = |name: &str| {
        keys.get(name)
            .and_then(|v| v.as_s().ok())
            .map_or("?", String::as_str)
            .to_owned()
    };
    format!("PK={} SK={}", text(PK), text(SK))
}

/// A record to apply: where it is in its batch, its event ID (the marker's name) and its effect.
#[derive(Debug, Clone)]
pub struct Pending {
    pub position: usize,
    pub event_id: String,
    pub delta: StatsDelta,
}

/// One customer's records, in stream order.
#[derive(Debug, Clone)]
pub struct CustomerRecords {
    pub customer: CustomerId,
    pub records: Vec<Pending>,
}

/// Packs customers' records into transactions of at most 100 actions (a profile update per
/// customer plus a marker per record), keeping each customer's records in order: a customer
/// with more than fit is continued in the next transaction.
pub fn pack(groups: Vec<CustomerRecords>) -> Vec<Vec<CustomerRecords>> {
    const MAX_ACTIONS: usize = 100;
    let mut transactions: Vec<Vec<CustomerRecords>> = Vec::new();
    let mut current: Vec<CustomerRecords> = Vec::new();
    let mut used = 0;
    for group in groups {
        let mut records = group.records.into_iter().peekable();
        while records.peek().is_some() {
            if MAX_ACTIONS - used < 2 {
                transactions.push(std::mem::take(&mut current));
                used = 0;
            }
            let room = MAX_ACTIONS - used - 1;
            let part: Vec<Pending> = records.by_ref().take(room).collect();
            used += 1 + part.len();
            current.push(CustomerRecords {
                customer: group.customer.clone(),
                records: part,
            });
        }
    }
    if !current.is_empty() {
        transactions.push(current);
    }
    transactions
}

/// What became of the records of a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Applied {
    /// Records whose effect was written.
    pub applied: usize,
    /// Records found applied already (a redelivery).
    pub duplicates: usize,
    /// Records skipped because their customer has no profile to hold statistics.
    pub without_profile: usize,
}

/// Where each action of a transaction came from.
enum Action {
    Profile(usize),
    Marker(usize, usize),
}

/// Why a statistics transaction did not commit.
enum Cancelled {
    /// A concurrent transaction touched the same items: retried with backoff.
    Conflict,
    Failed(AppError),
}

impl From<AppError> for Cancelled {
    fn from(err: AppError) -> Self {
        Cancelled::Failed(err)
    }
}

impl Store {
    /// Applies customers' records (one transaction's worth, see [`pack`]) in ONE
    /// TransactWriteItems: each customer's records coalesced into one update of their profile,
    /// and a marker per record. A transaction that collided with a concurrent one is sent
    /// again with backoff; one cancelled by its conditions is narrowed by what the reasons
    /// name (records already applied, customers without a profile) and sent again, so every
    /// effect lands exactly once.
    pub async fn apply_stats(&self, part: &[CustomerRecords]) -> Result<Applied, AppError> {
        // Each customer's records not yet applied.
        let mut pending: Vec<Vec<&Pending>> =
            part.iter().map(|g| g.records.iter().collect()).collect();
        // lastOrderAt only ever moves forward: a customer whose profile shows a later one is
        // retried without setting it (an equal one is set again, harmlessly).
        let mut set_last = vec![true; part.len()];
        let mut outcome = Applied::default();
        loop {
            let mut actions = Vec::new();
            let mut origin = Vec::new();
            let expires_at = epoch_seconds() + MARKER_TTL_SECONDS;
            for (g, group) in part.iter().enumerate() {
                if pending[g].is_empty() {
                    continue;
                }
                let mut delta = StatsDelta::NONE;
                for record in &pending[g] {
                    delta.merge(&record.delta);
                }
                let update = self.stats_update(&group.customer, &delta, set_last[g])?;
                actions.push(TransactWriteItem::builder().update(update).build());
                origin.push(Action::Profile(g));
                for (r, record) in pending[g].iter().enumerate() {
                    let put = Put::builder()
                        .table_name(&self.table)
                        .set_item(Some(marker::to_item(
                            &record.event_id,
                            &group.customer,
                            expires_at,
                        )))
                        .condition_expression("attribute_not_exists(PK)");
                    actions.push(
                        TransactWriteItem::builder()
                            .put(built(put.build())?)
                            .build(),
                    );
                    origin.push(Action::Marker(g, r));
                }
            }
            if actions.is_empty() {
                return Ok(outcome);
            }
            let sent = retry(
                &Backoff::TRANSACTION,
                |cancelled| matches!(cancelled, Cancelled::Conflict),
                |_| {
                    let actions = actions.clone();
                    async move {
                        match self.transact(actions).await? {
                            Some(reasons) if conflicted(&reasons) => Err(Cancelled::Conflict),
                            committed_or_not => Ok(committed_or_not),
                        }
                    }
                },
            )
            .await;
            let reasons = match sent {
                Ok(None) => {
                    outcome.applied += pending.iter().map(Vec::len).sum::<usize>();
                    return Ok(outcome);
                }
                Ok(Some(reasons)) => reasons,
                Err(Cancelled::Conflict) => {
                    return Err(AppError::internal(
                        "statistics transaction kept colliding with concurrent transactions",
                    ));
                }
                Err(Cancelled::Failed(err)) => return Err(err),
            };
            // Narrow what is sent next by the reasons; each round must drop something, so
            // this ends.
            let mut applied_before: Vec<(usize, usize)> = Vec::new();
            let mut progress = false;
            for (index, action) in origin.iter().enumerate() {
                match (action, reason_code(&reasons, index)) {
                    (_, "None") => {}
                    (Action::Marker(g, r), "ConditionalCheckFailed") => {
                        applied_before.push((*g, *r))
                    }
                    (Action::Profile(g), "ConditionalCheckFailed") => {
                        let profile = reasons.get(index).and_then(CancellationReason::item);
                        if profile.is_none_or(|item| item.is_empty()) {
                            tracing::warn!(customer = %part[*g].customer, records = pending[*g].len(), "order statistics skipped: the customer has no profile");
                            outcome.without_profile += pending[*g].len();
                            pending[*g].clear();
                            progress = true;
                        } else if set_last[*g] {
                            set_last[*g] = false;
                            progress = true;
                        }
                    }
                    (_, other) => {
                        return Err(AppError::internal(format!(
                            "statistics transaction cancelled: {other}"
                        )));
                    }
                }
            }
            // Drop records found applied, last first so the indices stay valid.
            applied_before.sort_unstable();
            progress |= !applied_before.is_empty();
            for (g, r) in applied_before.into_iter().rev() {
                pending[g].remove(r);
                outcome.duplicates += 1;
            }
            if !progress {
                return Err(AppError::internal(
                    "statistics transaction cancelled for a reason it cannot narrow",
                ));
            }
        }
    }

    fn stats_update(
        &self,
        customer: &CustomerId,
        delta: &StatsDelta,
        set_last: bool,
    ) -> Result<Update, AppError> {
        let update = Update::builder()
            .table_name(&self.table)
            .set_key(Some(profile::key(customer)))
            .expression_attribute_names("#count", profile::ORDER_COUNT_CHANGE.name)
            .expression_attribute_names("#spent", profile::TOTAL_SPENT_CHANGE.name)
            .expression_attribute_values(
                ":orders",
                profile::ORDER_COUNT_CHANGE.value(&delta.orders),
            )
            .expression_attribute_values(":spent", profile::TOTAL_SPENT_CHANGE.value(&delta.spent))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let update = match delta.last_order_at.filter(|_| set_last) {
            Some(at) => update
                .update_expression("ADD #count :orders, #spent :spent SET #last = :at")
                .condition_expression(
                    "attribute_exists(PK) AND (attribute_not_exists(#last) OR #last <= :at)",
                )
                .expression_attribute_names("#last", profile::LAST_ORDER_AT.name)
                .expression_attribute_values(":at", profile::LAST_ORDER_AT.value(&at)),
            None => update
                .update_expression("ADD #count :orders, #spent :spent")
                .condition_expression("attribute_exists(PK)"),
        };
        built(update.build())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::Decimal;

    fn group(customer: &str, n: usize, from: usize) -> CustomerRecords {
        CustomerRecords {
            customer: CustomerId::parse(customer).expect("id"),
            records: (from..from + n)
                .map(|position| Pending {
                    position,
                    event_id: format!("e{position}"),
                    delta: StatsDelta {
                        orders: 1,
                        spent: Decimal::ONE,
                        last_order_at: None,
                    },
                })
                .collect(),
        }
    }

    #[test]
    fn packing_fills_transactions_to_100_actions_and_keeps_each_customers_order() {
        let packed = pack(vec![
            group("a", 150, 0),
            group("b", 10, 150),
            group("c", 40, 160),
        ]);
        let actions: Vec<usize> = packed
            .iter()
            .map(|tx| tx.iter().map(|g| 1 + g.records.len()).sum())
            .collect();
        assert!(actions.iter().all(|n| *n <= 100), "{actions:?}");
        let a: Vec<usize> = packed
            .iter()
            .flatten()
            .filter(|g| g.customer.as_str() == "a")
            .flat_map(|g| g.records.iter().map(|r| r.position))
            .collect();
        assert_eq!(a, (0..150).collect::<Vec<_>>());
        let total: usize = packed.iter().flatten().map(|g| g.records.len()).sum();
        assert_eq!(total, 200);
        assert_eq!(
            packed.len(),
            3,
            "200 records and 4 profile updates fit in 3 transactions"
        );
    }
}
