//! Changes written: each transaction's profile updates and shares in ONE TransactWriteItems,
//! narrowed by what a cancellation says each action found, and a customer's partition counted
//! the first time their statistics move.

use std::collections::HashSet;

use crate::domain::ids::{CustomerId, OrderId};
use crate::domain::order::Order;
use crate::domain::stats::{ShareChange, ShareVersion};
use crate::dynamo::codec::Item;
use crate::dynamo::entities::{counted_order, customer, order_listing};
use crate::dynamo::keys::SK;
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::stats::packing::CustomerChanges;
use crate::dynamo::stats::records::describe_keys;
use crate::dynamo::transaction::{ActionOutcome, Cancelled, MAX_ACTIONS, Outcome, Transaction};
use crate::retry::{Backoff, retry};
use crate::{AppError, Store};

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
pub(super) enum Completion {
    /// The stream's changes: only onto statistics known to be complete.
    Required,
    /// Counting a partition, part way.
    Partial,
    /// Counting a partition, its last part: marks the statistics complete.
    Completes,
}

/// A customer's changes while they are being sent.
pub(super) struct Group {
    pub(super) customer: CustomerId,
    pub(super) changes: Vec<ShareChange>,
    pub(super) completion: Completion,
    /// lastOrderAt only moves forward: cleared when the profile shows a later one.
    pub(super) set_last: bool,
}

/// What each action of a statistics transaction is for. Within one transaction a customer has
/// one profile update and an order one share (see [`crate::dynamo::stats::pack`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum StatsAction {
    Profile(CustomerId),
    Share(OrderId),
}

/// A statistics transaction that did not commit and is not worth sending as it is again.
enum NotSent {
    /// A concurrent transaction touched the same items: retried with backoff.
    Conflict,
    Failed(AppError),
}

impl From<AppError> for NotSent {
    fn from(err: AppError) -> Self {
        NotSent::Failed(err)
    }
}

/// How often one transaction is narrowed by its cancellation reasons before giving up: each
/// round settles what the previous one learned, so only shares changing under the consumer
/// (which one shard's sequential delivery rules out) would need more.
const MAX_ROUNDS: usize = 8;

impl Store {
    /// Applies customers' changes (one transaction's worth, see [`crate::dynamo::stats::pack`])
    /// in ONE TransactWriteItems when the stored shares are what the changes expect; otherwise
    /// the transaction is narrowed by what its cancellation returns and sent again, and a
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
            for customer in incomplete {
                if !counted.insert(customer.clone()) {
                    return Err(AppError::internal(format!(
                        "statistics of {customer} still incomplete after counting the partition"
                    )));
                }
                outcome.found_uncounted += self.count_partition(&customer).await?;
            }
        }
    }

    /// Counts the orders in `customer`'s partition that no share stands for, then marks the
    /// statistics complete. Safe to run twice or concurrently: a share is only ever added where
    /// none is.
    async fn count_partition(&self, customer: &CustomerId) -> Result<usize, AppError> {
        let (shares, listed) = self.read_partition(customer).await?;
        let uncounted: Vec<ShareChange> = listed
            .iter()
            .filter(|order| !shares.contains(&order.order_id))
            .filter_map(|order| ShareChange::placed(order, ShareVersion::partition()))
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

    /// The orders that have a share in `customer`'s partition, and its order listings: one
    /// paginated, strongly consistent Query over both.
    async fn read_partition(
        &self,
        customer: &CustomerId,
    ) -> Result<(HashSet<OrderId>, Vec<Order>), AppError> {
        let query = KeyQuery::on(Index::Table, customer::pk(customer))
            .between(counted_order::with_listings_range());
        let mut shares: HashSet<OrderId> = HashSet::new();
        let mut listed = Vec::new();
        for item in query.read_all(self, true).await? {
            let sk = item.get(SK).and_then(|v| v.as_s().ok()).cloned();
            if let Some(order) = sk.and_then(|sk| counted_order::parse_sk(&sk).ok()) {
                shares.insert(order);
                continue;
            }
            let keys = describe_keys(&item);
            match order_listing::from_item(item) {
                Ok(order) => listed.push(order),
                Err(err) => {
                    tracing::error!(%keys, error = %err, "an order listing that cannot be read is not counted")
                }
            }
        }
        Ok((shares, listed))
    }

    /// Sends `groups` until they commit, narrowing by what each cancellation says. Returns the
    /// customers whose partition needs counting first (nothing of theirs was written).
    async fn send_stats(
        &self,
        groups: &mut [Group],
        outcome: &mut Applied,
    ) -> Result<Vec<CustomerId>, AppError> {
        for _ in 0..MAX_ROUNDS {
            let transaction = self.stats_transaction(groups)?;
            if transaction.is_empty() {
                return Ok(Vec::new());
            }
            let sent = retry(
                &Backoff::TRANSACTION,
                |not_sent| matches!(not_sent, NotSent::Conflict),
                |_| {
                    let transaction = transaction.clone();
                    async move {
                        match self.send(transaction).await? {
                            Outcome::Cancelled(c) if c.conflicted() => Err(NotSent::Conflict),
                            sent => Ok(sent),
                        }
                    }
                },
            )
            .await;
            let cancelled = match sent {
                Ok(Outcome::Committed) => {
                    for group in groups.iter_mut() {
                        outcome.applied += group.changes.len();
                        group.changes.clear();
                        group.completion = Completion::Required;
                    }
                    return Ok(Vec::new());
                }
                Ok(Outcome::Cancelled(cancelled)) => cancelled,
                Err(NotSent::Conflict) => {
                    return Err(AppError::internal(
                        "statistics transaction kept colliding with concurrent transactions",
                    ));
                }
                Err(NotSent::Failed(err)) => return Err(err),
            };
            let incomplete = narrow(groups, &cancelled, outcome)?;
            if !incomplete.is_empty() {
                return Ok(incomplete);
            }
        }
        Err(AppError::internal(
            "order shares kept changing under the statistics transaction",
        ))
    }

    /// One transaction for `groups`: per customer the profile update, then each order's share.
    fn stats_transaction(&self, groups: &[Group]) -> Result<Transaction<StatsAction>, AppError> {
        let mut transaction = Transaction::default();
        for group in groups {
            if group.changes.is_empty() && group.completion != Completion::Completes {
                continue;
            }
            transaction.update(
                StatsAction::Profile(group.customer.clone()),
                self.profile_update(group)?,
            )?;
            for change in &group.changes {
                transaction.put(
                    StatsAction::Share(change.order_id.clone()),
                    self.share_write(&group.customer, change)?,
                )?;
            }
        }
        Ok(transaction)
    }
}

/// Learns from a cancellation: a share stored at this change's version or later means the change
/// is applied already (dropped); another share stored means the change starts from it; a
/// profile whose statistics are incomplete needs its partition counted (returned); one with a
/// later lastOrderAt keeps it. Anything else is an error.
fn narrow(
    groups: &mut [Group],
    cancelled: &Cancelled<StatsAction>,
    outcome: &mut Applied,
) -> Result<Vec<CustomerId>, AppError> {
    let mut incomplete = Vec::new();
    let mut settled: HashSet<&OrderId> = HashSet::new();
    for (action, result) in cancelled.outcomes() {
        let stored = match result {
            ActionOutcome::Unaffected => continue,
            ActionOutcome::ConditionFailed(stored) => stored.as_ref(),
            other => {
                return Err(AppError::internal(format!(
                    "statistics transaction cancelled: {}",
                    other.code()
                )));
            }
        };
        match action {
            StatsAction::Share(order) => {
                if share_found_applied(groups, order, stored)? {
                    settled.insert(order);
                }
            }
            StatsAction::Profile(customer) => {
                let group = groups
                    .iter_mut()
                    .find(|g| g.customer == *customer)
                    .ok_or_else(|| AppError::internal("a profile update of no group"))?;
                let complete =
                    stored.and_then(|item| customer::STATS_COMPLETE.get(item)) == Some(true);
                if group.completion == Completion::Required && !complete {
                    incomplete.push(customer.clone());
                } else if group.set_last {
                    group.set_last = false;
                } else {
                    return Err(AppError::internal(
                        "statistics update refused for a reason it cannot narrow",
                    ));
                }
            }
        }
    }
    outcome.duplicates += settled.len();
    for group in groups.iter_mut() {
        group
            .changes
            .retain(|change| !settled.contains(&change.order_id));
    }
    Ok(incomplete)
}

/// Whether the share `stored` for `order` shows its change applied already; if not, the change
/// now starts from the share actually stored.
fn share_found_applied(
    groups: &mut [Group],
    order: &OrderId,
    stored: Option<&Item>,
) -> Result<bool, AppError> {
    let change = groups
        .iter_mut()
        .flat_map(|g| g.changes.iter_mut())
        .find(|change| change.order_id == *order)
        .ok_or_else(|| AppError::internal(format!("a share of order {order} not being sent")))?;
    let stored_version = stored.and_then(|item| counted_order::VERSION.get(item));
    if stored.is_some() && stored_version.is_none() {
        return Err(AppError::internal(format!(
            "unreadable share of order {order}"
        )));
    }
    if stored_version.is_some_and(|v| v >= change.version) {
        // This change, or a later one of the order, is counted already.
        return Ok(true);
    }
    change.before = stored.and_then(|item| counted_order::SPENT.get(item));
    Ok(false)
}
