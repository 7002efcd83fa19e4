//! Customer order statistics kept from the table's stream: `orderCount`, `totalSpent` (the
//! totals of the customer's orders that are not CANCELLED) and `lastOrderAt`, on the profile.
//!
//! Every order's share is stored beside them (`CUSTOMER#<id>` / `COUNTED#<orderId>`) with the
//! stream sequence number of the record that set it, and the profile's figures change only in
//! the same transaction as a share, by exactly the share's change, each write conditioned on the
//! share it replaces and on being newer. So, whatever the order of events:
//! - the statistics are always the sum of the stored shares, and no share is negative, so
//!   neither is `totalSpent`;
//! - a record applied twice, or after a later one of its order, finds a newer or equal version
//!   stored (ALL_OLD on the failed condition) and is skipped; one that expected another share
//!   moves the share actually stored. An order's shares end at its latest record, redelivered or
//!   replayed in any order, and nothing depends on markers that expire;
//! - orders are counted whether or not the customer has a profile yet (the article's code writes
//!   orders without one): the statistics wait on a profile item that has no name yet;
//! - the first time a customer's statistics move, orders already in their partition that the
//!   stream never showed (written before the stack, or before the stream's 24 hours) are found
//!   with one paginated Query and counted the same way, then the profile is marked complete.

use std::collections::HashSet;

use aws_lambda_events::event::dynamodb::EventRecord;
use aws_sdk_dynamodb::types::{
    AttributeValue, CancellationReason, Put, ReturnValuesOnConditionCheckFailure,
    TransactWriteItem, Update,
};

use crate::domain::ids::{CustomerId, OrderId};
use crate::domain::stats::{ShareChange, StatsDelta};
use crate::dynamo::codec::Item;
use crate::dynamo::errors::{conflicted, reason_code};
use crate::dynamo::items::{counted_order, listing, profile};
use crate::dynamo::keys::{self, PK, SK};
use crate::dynamo::store::built;
use crate::retry::{Backoff, retry};
use crate::{AppError, Store};

/// What a stream record means for the statistics.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordEffect {
    /// Not an order listing, or a change that moves no share (a shipment).
    Ignored,
    Moves {
        customer: CustomerId,
        change: ShareChange,
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

/// Width of a share's version: stream sequence numbers have 21 to 40 digits, so left-padded to 40
/// their text order is their number order.
const VERSION_WIDTH: usize = 40;

/// The version of shares found in a partition rather than on the stream: older than any record.
fn partition_version() -> String {
    "0".repeat(VERSION_WIDTH)
}

/// A record's sequence number as a share's version.
fn version(sequence_number: Option<&str>) -> Result<String, String> {
    match sequence_number {
        Some(seq)
            if (1..=VERSION_WIDTH).contains(&seq.len())
                && seq.bytes().all(|b| b.is_ascii_digit()) =>
        {
            Ok(format!("{seq:0>VERSION_WIDTH$}"))
        }
        other => Err(format!("sequence number {other:?} is not 1-40 digits")),
    }
}

/// Reads a record: an order INSERT adds the order's share, a MODIFY moves it (entering
/// CANCELLED takes its total out, leaving CANCELLED puts it back), a REMOVE takes it away.
/// Anything that is not an order listing is ignored.
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
    let version = version(record.change.sequence_number.as_deref()).map_err(poison)?;
    let (customer, change) = match record.event_name.as_str() {
        "INSERT" => {
            let new = read(&record.change.new_image, "new")?;
            (new.customer_id.clone(), ShareChange::placed(&new, version))
        }
        "MODIFY" => {
            let old = read(&record.change.old_image, "old")?;
            let new = read(&record.change.new_image, "new")?;
            match ShareChange::changed(&old, &new, version) {
                Some(change) => (new.customer_id, change),
                None => return Ok(RecordEffect::Ignored),
            }
        }
        "REMOVE" => {
            let old = read(&record.change.old_image, "old")?;
            (old.customer_id.clone(), ShareChange::removed(&old, version))
        }
        other => return Err(poison(format!("unknown event {other:?}"))),
    };
    Ok(RecordEffect::Moves { customer, change })
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

/// One order's change to apply, the batch position of its first record, and the version of its
/// earliest record (whose `before` the change starts from).
#[derive(Debug, Clone)]
pub struct Pending {
    pub position: usize,
    pub change: ShareChange,
    pub earliest: String,
}

/// One customer's changes, one per order (an order's records in a batch are combined).
#[derive(Debug, Clone)]
pub struct CustomerChanges {
    pub customer: CustomerId,
    pub changes: Vec<Pending>,
}

impl CustomerChanges {
    pub fn new(customer: CustomerId) -> Self {
        Self {
            customer,
            changes: Vec::new(),
        }
    }

    /// Adds the change of the record at `position`; another record of an order already here
    /// widens its change: from the earliest version's `before` to the latest's `after`.
    pub fn add(&mut self, position: usize, change: ShareChange) {
        match self
            .changes
            .iter_mut()
            .find(|p| p.change.order_id == change.order_id)
        {
            Some(pending) => {
                if change.version < pending.earliest {
                    pending.earliest.clone_from(&change.version);
                    pending.change.before = change.before;
                } else if change.version > pending.change.version {
                    pending.change.then(change);
                }
            }
            None => self.changes.push(Pending {
                position,
                earliest: change.version.clone(),
                change,
            }),
        }
    }
}

/// Most actions in one TransactWriteItems.
const MAX_ACTIONS: usize = 100;

/// Packs customers' changes into transactions of at most 100 actions (a profile update per
/// customer plus one action per order); a customer with more than fit is continued in the next.
pub fn pack(groups: Vec<CustomerChanges>) -> Vec<Vec<CustomerChanges>> {
    let mut transactions: Vec<Vec<CustomerChanges>> = Vec::new();
    let mut current: Vec<CustomerChanges> = Vec::new();
    let mut used = 0;
    for group in groups {
        let mut changes = group.changes.into_iter().peekable();
        while changes.peek().is_some() {
            if MAX_ACTIONS - used < 2 {
                transactions.push(std::mem::take(&mut current));
                used = 0;
            }
            let room = MAX_ACTIONS - used - 1;
            let part: Vec<Pending> = changes.by_ref().take(room).collect();
            used += 1 + part.len();
            current.push(CustomerChanges {
                customer: group.customer.clone(),
                changes: part,
            });
        }
    }
    if !current.is_empty() {
        transactions.push(current);
    }
    transactions
}

/// What became of a transaction's changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Applied {
    /// Changes written.
    pub applied: usize,
    /// Changes found applied already (a redelivery).
    pub duplicates: usize,
    /// Orders found uncounted in a customer's partition and counted.
    pub found_uncounted: usize,
}

/// What the profile update of a transaction asks of the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Completion {
    /// The stream's changes: only onto statistics known to be complete.
    Required,
    /// Counting a partition, part way.
    Partial,
    /// Counting a partition, its last part: marks the statistics complete.
    Completes,
}

/// A customer's changes while they are being sent.
struct Group {
    customer: CustomerId,
    changes: Vec<ShareChange>,
    completion: Completion,
    /// lastOrderAt only moves forward: cleared when the profile shows a later one.
    set_last: bool,
}

/// Where each action of a transaction came from.
enum Action {
    Profile(usize),
    Share(usize, usize),
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

/// How often one transaction is narrowed by its cancellation reasons before giving up: each
/// round settles what the previous one learned, so only shares changing under the consumer
/// (which one shard's sequential delivery rules out) would need more.
const MAX_ROUNDS: usize = 8;

impl Store {
    /// Applies customers' changes (one transaction's worth, see [`pack`]) in ONE
    /// TransactWriteItems when the stored shares are what the changes expect; otherwise the
    /// transaction is narrowed by what its cancellation reasons return and sent again, and a
    /// customer whose statistics are not complete yet has their partition counted first.
    pub async fn apply_stats(&self, part: &[CustomerChanges]) -> Result<Applied, AppError> {
        let mut groups: Vec<Group> = part
            .iter()
            .map(|g| Group {
                customer: g.customer.clone(),
                changes: g.changes.iter().map(|p| p.change.clone()).collect(),
                completion: Completion::Required,
                set_last: true,
            })
            .collect();
        let mut outcome = Applied::default();
        let mut counted: HashSet<CustomerId> = HashSet::new();
        loop {
            let incomplete = self.send_stats(&mut groups, &mut outcome).await?;
            if incomplete.is_empty() {
                return Ok(outcome);
            }
            for g in incomplete {
                let customer = groups[g].customer.clone();
                if !counted.insert(customer.clone()) {
                    return Err(AppError::internal(format!(
                        "statistics of {customer} still incomplete after counting the partition"
                    )));
                }
                outcome.found_uncounted += self.count_partition(&customer).await?;
            }
        }
    }

    /// Counts the orders in `customer`'s partition that no share stands for (one paginated,
    /// strongly consistent Query over the shares and listings), then marks the statistics
    /// complete. Safe to run twice or concurrently: a share is only ever added where none is.
    async fn count_partition(&self, customer: &CustomerId) -> Result<usize, AppError> {
        let (lo, hi) = keys::counted_order::with_listings_range();
        let mut shares: HashSet<OrderId> = HashSet::new();
        let mut listed = Vec::new();
        let mut start = None;
        loop {
            let out = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression("#pk = :pk AND #sk BETWEEN :lo AND :hi")
                .expression_attribute_names("#pk", PK)
                .expression_attribute_names("#sk", SK)
                .expression_attribute_values(":pk", AttributeValue::S(keys::customer::pk(customer)))
                .expression_attribute_values(":lo", AttributeValue::S(lo.clone()))
                .expression_attribute_values(":hi", AttributeValue::S(hi.clone()))
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .await?;
            for item in out.items.unwrap_or_default() {
                let sk = item.get(SK).and_then(|v| v.as_s().ok()).cloned();
                if let Some(order) = sk.and_then(|sk| keys::counted_order::parse_sk(&sk).ok()) {
                    shares.insert(order);
                    continue;
                }
                let keys = describe_keys(&item);
                match listing::from_item(item) {
                    Ok(order) => listed.push(order),
                    Err(err) => {
                        tracing::error!(%keys, error = %err, "an order listing that cannot be read is not counted")
                    }
                }
            }
            start = out.last_evaluated_key.filter(|key| !key.is_empty());
            if start.is_none() {
                break;
            }
        }
        let uncounted: Vec<ShareChange> = listed
            .iter()
            .filter(|order| !shares.contains(&order.order_id))
            .map(|order| ShareChange::placed(order, partition_version()))
            .collect();
        let found = uncounted.len();
        let mut parts: Vec<Vec<ShareChange>> = uncounted
            .chunks(MAX_ACTIONS - 1)
            .map(<[_]>::to_vec)
            .collect();
        if parts.is_empty() {
            parts.push(Vec::new());
        }
        let last = parts.len() - 1;
        let mut outcome = Applied::default();
        for (i, changes) in parts.into_iter().enumerate() {
            let mut groups = vec![Group {
                customer: customer.clone(),
                changes,
                completion: if i == last {
                    Completion::Completes
                } else {
                    Completion::Partial
                },
                set_last: true,
            }];
            self.send_stats(&mut groups, &mut outcome).await?;
        }
        tracing::info!(%customer, found, "customer's partition counted");
        Ok(found)
    }

    /// Sends `groups` until they commit, narrowing by cancellation reasons. Returns the groups
    /// that need their partition counted first (nothing of theirs was written).
    async fn send_stats(
        &self,
        groups: &mut [Group],
        outcome: &mut Applied,
    ) -> Result<Vec<usize>, AppError> {
        for _ in 0..MAX_ROUNDS {
            let mut actions = Vec::new();
            let mut origin = Vec::new();
            for (g, group) in groups.iter().enumerate() {
                if group.changes.is_empty() && group.completion != Completion::Completes {
                    continue;
                }
                actions.push(self.profile_update(group)?);
                origin.push(Action::Profile(g));
                for (c, change) in group.changes.iter().enumerate() {
                    actions.push(self.share_write(&group.customer, change)?);
                    origin.push(Action::Share(g, c));
                }
            }
            if actions.is_empty() {
                return Ok(Vec::new());
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
                    for group in groups.iter_mut() {
                        outcome.applied += group.changes.len();
                        group.changes.clear();
                        group.completion = Completion::Required;
                    }
                    return Ok(Vec::new());
                }
                Ok(Some(reasons)) => reasons,
                Err(Cancelled::Conflict) => {
                    return Err(AppError::internal(
                        "statistics transaction kept colliding with concurrent transactions",
                    ));
                }
                Err(Cancelled::Failed(err)) => return Err(err),
            };
            let mut incomplete = Vec::new();
            let mut settled: Vec<(usize, usize)> = Vec::new();
            for (index, action) in origin.iter().enumerate() {
                let stored = reasons.get(index).and_then(CancellationReason::item);
                match (action, reason_code(&reasons, index)) {
                    (_, "None") => {}
                    (Action::Share(g, c), "ConditionalCheckFailed") => {
                        let change = &mut groups[*g].changes[*c];
                        let stored = stored.filter(|item| !item.is_empty());
                        let stored_version =
                            stored.and_then(|item| counted_order::VERSION.get(item));
                        if stored.is_some() && stored_version.is_none() {
                            return Err(AppError::internal(format!(
                                "unreadable share of order {}",
                                change.order_id
                            )));
                        }
                        if stored_version.is_some_and(|v| v >= change.version) {
                            // This change, or a later one of the order, is counted already.
                            settled.push((*g, *c));
                        } else {
                            // The share actually stored: the change goes from there.
                            change.before = stored.and_then(|item| counted_order::SPENT.get(item));
                        }
                    }
                    (Action::Profile(g), "ConditionalCheckFailed") => {
                        let group = &mut groups[*g];
                        let complete =
                            stored.and_then(|item| profile::STATS_COMPLETE.get(item)) == Some(true);
                        if group.completion == Completion::Required && !complete {
                            incomplete.push(*g);
                        } else if group.set_last {
                            group.set_last = false;
                        } else {
                            return Err(AppError::internal(
                                "statistics update refused for a reason it cannot narrow",
                            ));
                        }
                    }
                    (_, other) => {
                        return Err(AppError::internal(format!(
                            "statistics transaction cancelled: {other}"
                        )));
                    }
                }
            }
            // Drop changes found applied, last first so the indices stay valid.
            settled.sort_unstable();
            outcome.duplicates += settled.len();
            for (g, c) in settled.into_iter().rev() {
                groups[g].changes.remove(c);
            }
            if !incomplete.is_empty() {
                return Ok(incomplete);
            }
        }
        Err(AppError::internal(
            "order shares kept changing under the statistics transaction",
        ))
    }

    /// The profile's part: every change's delta, onto statistics that must be complete (the
    /// stream's changes) or while counting a partition. lastOrderAt only moves forward.
    fn profile_update(&self, group: &Group) -> Result<TransactWriteItem, AppError> {
        let mut delta = StatsDelta::NONE;
        for change in &group.changes {
            delta.merge(&change.delta());
        }
        let mut set = Vec::new();
        let mut conditions = Vec::new();
        let mut update = Update::builder()
            .table_name(&self.table)
            .set_key(Some(profile::key(&group.customer)))
            .expression_attribute_names("#count", profile::ORDER_COUNT_CHANGE.name)
            .expression_attribute_names("#spent", profile::TOTAL_SPENT_CHANGE.name)
            .expression_attribute_values(
                ":orders",
                profile::ORDER_COUNT_CHANGE.value(&delta.orders),
            )
            .expression_attribute_values(":spent", profile::TOTAL_SPENT_CHANGE.value(&delta.spent))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        if let Some(at) = delta.last_order_at.filter(|_| group.set_last) {
            set.push("#last = :at");
            conditions.push("(attribute_not_exists(#last) OR #last <= :at)");
            update = update
                .expression_attribute_names("#last", profile::LAST_ORDER_AT.name)
                .expression_attribute_values(":at", profile::LAST_ORDER_AT.value(&at));
        }
        match group.completion {
            Completion::Required => conditions.push("#complete = :yes"),
            Completion::Partial => {}
            Completion::Completes => set.push("#complete = :yes"),
        }
        if group.completion != Completion::Partial {
            update = update
                .expression_attribute_names("#complete", profile::STATS_COMPLETE.name)
                .expression_attribute_values(":yes", profile::STATS_COMPLETE.value(&true));
        }
        let mut expression = "ADD #count :orders, #spent :spent".to_owned();
        if !set.is_empty() {
            expression.push_str(" SET ");
            expression.push_str(&set.join(", "));
        }
        update = update.update_expression(expression);
        if !conditions.is_empty() {
            update = update.condition_expression(conditions.join(" AND "));
        }
        Ok(TransactWriteItem::builder()
            .update(built(update.build())?)
            .build())
    }

    /// One order's part: its share (or, once removed, just its version) put on the condition
    /// that the stored share is the one the change starts from, under an older version.
    fn share_write(
        &self,
        customer: &CustomerId,
        change: &ShareChange,
    ) -> Result<TransactWriteItem, AppError> {
        let mut put = Put::builder()
            .table_name(&self.table)
            .set_item(Some(counted_order::to_item(
                customer,
                &change.order_id,
                change.after.as_ref(),
                &change.version,
            )))
            .expression_attribute_names("#version", counted_order::VERSION.name)
            .expression_attribute_names("#share", counted_order::SPENT.name)
            .expression_attribute_values(":version", counted_order::VERSION.value(&change.version))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        put = match change.before {
            None => put.condition_expression(
                "attribute_not_exists(PK) OR (#version < :version AND attribute_not_exists(#share))",
            ),
            Some(before) => put
                .condition_expression("#version < :version AND #share = :before")
                .expression_attribute_values(":before", counted_order::SPENT.value(&before)),
        };
        Ok(TransactWriteItem::builder()
            .put(built(put.build())?)
            .build())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::Decimal;
    use crate::domain::time::Timestamp;

    fn group(customer: &str, n: usize, from: usize) -> CustomerChanges {
        CustomerChanges {
            customer: CustomerId::parse(customer).expect("id"),
            changes: (from..from + n)
                .map(|position| Pending {
                    position,
                    earliest: format!("{position:040}"),
                    change: ShareChange {
                        order_id: OrderId::parse(&format!("o{position}")).expect("id"),
                        placed_at: Timestamp::parse("2026-11-01T09:00:00Z").expect("t"),
                        before: None,
                        after: Some(Decimal::ONE),
                        version: format!("{position:040}"),
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
            .map(|tx| tx.iter().map(|g| 1 + g.changes.len()).sum())
            .collect();
        assert!(actions.iter().all(|n| *n <= 100), "{actions:?}");
        let a: Vec<usize> = packed
            .iter()
            .flatten()
            .filter(|g| g.customer.as_str() == "a")
            .flat_map(|g| g.changes.iter().map(|r| r.position))
            .collect();
        assert_eq!(a, (0..150).collect::<Vec<_>>());
        let total: usize = packed.iter().flatten().map(|g| g.changes.len()).sum();
        assert_eq!(total, 200);
        assert_eq!(
            packed.len(),
            3,
            "200 changes and 4 profile updates fit in 3 transactions"
        );
    }

    #[test]
    fn an_orders_records_in_one_batch_become_one_change_from_the_first_to_the_last() {
        let mut changes = CustomerChanges::new(CustomerId::parse("c1").expect("id"));
        let order = OrderId::parse("o1").expect("id");
        let at = Timestamp::parse("2026-11-01T09:00:00Z").expect("t");
        let change = |before: Option<i64>, after: Option<i64>, version: &str| ShareChange {
            order_id: order.clone(),
            placed_at: at,
            before: before.map(Decimal::from),
            after: after.map(Decimal::from),
            version: version.to_owned(),
        };
        changes.add(3, change(None, Some(10), "3"));
        changes.add(5, change(Some(10), Some(0), "5"));
        changes.add(9, change(Some(0), None, "9"));
        assert_eq!(changes.changes.len(), 1);
        assert_eq!(changes.changes[0].position, 3);
        assert_eq!(changes.changes[0].change, change(None, None, "9"));
        // Out of order (a replay): still from the earliest's before to the latest's after.
        let mut changes = CustomerChanges::new(CustomerId::parse("c1").expect("id"));
        changes.add(0, change(Some(0), None, "9"));
        changes.add(1, change(None, Some(10), "3"));
        changes.add(2, change(Some(10), Some(0), "5"));
        assert_eq!(changes.changes[0].change, change(None, None, "9"));
    }

    #[test]
    fn versions_are_sequence_numbers_padded_so_text_order_is_number_order() {
        let v = |seq: &str| version(Some(seq)).expect(seq);
        assert_eq!(v("4100000000000000000001").len(), 40);
        assert!(v("999999999999999999999") < v("1000000000000000000000"));
        assert!(partition_version() < v("100000000000000000000"));
        for bad in [None, Some(""), Some("12a"), Some(&"1".repeat(41) as &str)] {
            assert!(version(bad).is_err(), "{bad:?}");
        }
    }
}
