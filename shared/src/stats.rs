//! Customer order statistics kept from the table's stream: `orderCount`, `totalSpent` (the
//! totals of the customer's orders that are not CANCELLED) and `lastOrderAt`, on the profile.
//!
//! Delivery is at least once, so every record's effect is written in the same transaction as
//! a marker named after the record; a record whose marker exists has been applied already.

use aws_lambda_events::event::dynamodb::EventRecord;
use aws_sdk_dynamodb::types::{
    AttributeValue, CancellationReason, Put, ReturnValuesOnConditionCheckFailure,
    TransactWriteItem, Update,
};

use crate::entities::{Item, Order};
use crate::ids::{CustomerId, OrderStatus, Timestamp};
use crate::keys::{self, PK, SK};
use crate::money::Decimal;
use crate::writes::{epoch_seconds, reason_code, s};
use crate::{AppError, Store};

/// A marker outlives every redelivery: the stream keeps records 24 hours, and the event source
/// mapping refuses older ones (MaximumRecordAgeInSeconds); a day's margin on top.
pub const MARKER_TTL_SECONDS: u64 = 48 * 60 * 60;

/// How one record changes a customer's statistics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsDelta {
    pub orders: i64,
    pub spent: Decimal,
    pub last_order_at: Option<Timestamp>,
}

impl StatsDelta {
    fn merge(&mut self, other: &StatsDelta) {
        self.orders += other.orders;
        self.spent += other.spent;
        self.last_order_at = self.last_order_at.max(other.last_order_at);
    }
}

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

/// What an order contributes to `totalSpent`.
fn contribution(order: &Order) -> Decimal {
    if order.status == OrderStatus::Cancelled {
        Decimal::ZERO
    } else {
        order.total.amount()
    }
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
        Order::from_listing_item(image.clone().into())
            .map_err(|err| poison(format!("{which} image: {err}")))
    };
    match record.event_name.as_str() {
        "INSERT" => {
            let order = read(&record.change.new_image, "new")?;
            Ok(RecordEffect::Counts {
                delta: StatsDelta {
                    orders: 1,
                    spent: contribution(&order),
                    last_order_at: Some(order.placed_at),
                },
                customer: order.customer_id,
            })
        }
        "MODIFY" => {
            let old = read(&record.change.old_image, "old")?;
            let new = read(&record.change.new_image, "new")?;
            let spent = contribution(&new) - contribution(&old);
            if spent.is_zero() {
                return Ok(RecordEffect::Ignored);
            }
            Ok(RecordEffect::Counts {
                customer: new.customer_id,
                delta: StatsDelta {
                    orders: 0,
                    spent,
                    last_order_at: None,
                },
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

fn marker_pk(event_id: &str) -> String {
    format!("STREAMRECORD#{event_id}")
}

const MARKER_SK: &str = "APPLIED";

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

impl Store {
    /// Applies customers' records (one transaction's worth, see [`pack`]) in ONE
    /// TransactWriteItems: each customer's records coalesced into one update of their profile,
    /// and a marker per record. When the transaction is cancelled, only what its cancellation
    /// reasons name is dropped (records already applied, customers without a profile) before
    /// it is tried again, so every effect lands exactly once.
    pub async fn apply_stats(&self, part: &[CustomerRecords]) -> Result<Applied, AppError> {
        let mut pending: Vec<Vec<&Pending>> =
            part.iter().map(|g| g.records.iter().collect()).collect();
        // lastOrderAt only ever moves forward: a customer whose profile shows a later one is
        // retried without setting it (an equal one is set again, harmlessly).
        let mut set_last = vec![true; part.len()];
        let mut outcome = Applied::default();
        for attempt in 0..8u32 {
            let mut actions = Vec::new();
            let mut origin = Vec::new();
            let expires_at = AttributeValue::N((epoch_seconds() + MARKER_TTL_SECONDS).to_string());
            for (g, group) in part.iter().enumerate() {
                if pending[g].is_empty() {
                    continue;
                }
                let mut delta = StatsDelta {
                    orders: 0,
                    spent: Decimal::ZERO,
                    last_order_at: None,
                };
                for record in &pending[g] {
                    delta.merge(&record.delta);
                }
                let update = self.stats_update(&group.customer, &delta, set_last[g])?;
                actions.push(TransactWriteItem::builder().update(update).build());
                origin.push(Action::Profile(g));
                for (r, record) in pending[g].iter().enumerate() {
                    let put = Put::builder()
                        .table_name(&self.table)
                        .item(PK, s(marker_pk(&record.event_id)))
                        .item(SK, s(MARKER_SK))
                        .item("customerId", s(group.customer.as_str()))
                        .item("expiresAt", expires_at.clone())
                        .condition_expression("attribute_not_exists(PK)")
                        .build()
                        .map_err(AppError::internal)?;
                    actions.push(TransactWriteItem::builder().put(put).build());
                    origin.push(Action::Marker(g, r));
                }
            }
            if actions.is_empty() {
                return Ok(outcome);
            }
            let Some(reasons) = self.transact(actions).await? else {
                outcome.applied += pending.iter().map(Vec::len).sum::<usize>();
                return Ok(outcome);
            };
            let mut applied_before: Vec<(usize, usize)> = Vec::new();
            let mut conflicted = false;
            let mut unexpected = None;
            for (index, action) in origin.iter().enumerate() {
                let code = reason_code(&reasons, index);
                match (action, code) {
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
                        } else {
                            set_last[*g] = false;
                        }
                    }
                    (_, "TransactionConflict") => conflicted = true,
                    (_, other) => unexpected = Some(other.to_owned()),
                }
            }
            if let Some(code) = unexpected {
                return Err(AppError::internal(format!(
                    "statistics transaction cancelled: {code}"
                )));
            }
            // Drop records found applied, last first so the indices stay valid.
            applied_before.sort_unstable();
            for (g, r) in applied_before.into_iter().rev() {
                pending[g].remove(r);
                outcome.duplicates += 1;
            }
            if conflicted {
                tokio::time::sleep(std::time::Duration::from_millis(5 << attempt)).await;
            }
        }
        Err(AppError::internal(
            "statistics transaction kept being cancelled",
        ))
    }

    fn stats_update(
        &self,
        customer: &CustomerId,
        delta: &StatsDelta,
        set_last: bool,
    ) -> Result<Update, AppError> {
        let update = Update::builder()
            .table_name(&self.table)
            .key(PK, s(keys::customer::pk(customer)))
            .key(SK, s(keys::customer::PROFILE_SK))
            .expression_attribute_values(":orders", AttributeValue::N(delta.orders.to_string()))
            .expression_attribute_values(
                ":spent",
                AttributeValue::N(delta.spent.normalize().to_string()),
            )
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let update = match delta.last_order_at.filter(|_| set_last) {
            Some(at) => update
                .update_expression("ADD orderCount :orders, totalSpent :spent SET lastOrderAt = :at")
                .condition_expression(
                    "attribute_exists(PK) AND (attribute_not_exists(lastOrderAt) OR lastOrderAt <= :at)",
                )
                .expression_attribute_values(":at", s(at.to_string())),
            None => update
                .update_expression("ADD orderCount :orders, totalSpent :spent")
                .condition_expression("attribute_exists(PK)"),
        };
        update.build().map_err(AppError::internal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
