//! A batch's changes packed into transactions: one change per order (an order's records in a
//! batch combine), one profile update per customer, at most 100 actions per transaction.

use crate::domain::ids::CustomerId;
use crate::domain::stats::{ShareChange, ShareVersion};
use crate::dynamo::transaction::MAX_ACTIONS;

/// One order's change to apply, the batch position of its first record, and the version of its
/// earliest record (whose `before` the change starts from).
#[derive(Debug, Clone)]
pub struct Pending {
    /// Where its first record is in the batch.
    pub position: usize,
    /// What it changes.
    pub change: ShareChange,
    /// The earliest version among the records merged into this change.
    pub earliest: ShareVersion,
}

/// One customer's changes, one per order (an order's records in a batch are combined).
#[derive(Debug, Clone)]
pub struct CustomerChanges {
    /// Whose statistics.
    pub customer: CustomerId,
    /// The changes to them, in batch order.
    pub changes: Vec<Pending>,
}

impl CustomerChanges {
    /// No changes yet for `customer`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::OrderId;
    use crate::domain::money::Decimal;
    use crate::domain::time::Timestamp;

    fn v(sequence_number: usize) -> ShareVersion {
        ShareVersion::parse(&sequence_number.to_string()).expect("version")
    }
    fn group(customer: &str, n: usize, from: usize) -> CustomerChanges {
        CustomerChanges {
            customer: CustomerId::parse(customer).expect("id"),
            changes: (from..from + n)
                .map(|position| Pending {
                    position,
                    earliest: v(position + 1),
                    change: ShareChange {
                        order_id: OrderId::parse(&format!("o{position}")).expect("id"),
                        placed_at: Timestamp::parse("2026-11-01T09:00:00Z").expect("t"),
                        before: None,
                        after: Some(Decimal::ONE),
                        version: v(position + 1),
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
        let change = |before: Option<i64>, after: Option<i64>, version: usize| ShareChange {
            order_id: order.clone(),
            placed_at: at,
            before: before.map(Decimal::from),
            after: after.map(Decimal::from),
            version: v(version),
        };
        changes.add(3, change(None, Some(10), 3));
        changes.add(5, change(Some(10), Some(0), 5));
        changes.add(9, change(Some(0), None, 9));
        assert_eq!(changes.changes.len(), 1);
        assert_eq!(changes.changes[0].position, 3);
        assert_eq!(changes.changes[0].change, change(None, None, 9));
        // Out of order (a replay): still from the earliest's before to the latest's after.
        let mut changes = CustomerChanges::new(CustomerId::parse("c1").expect("id"));
        changes.add(0, change(Some(0), None, 9));
        changes.add(1, change(None, Some(10), 3));
        changes.add(2, change(Some(10), Some(0), 5));
        assert_eq!(changes.changes[0].change, change(None, None, 9));
    }
}
