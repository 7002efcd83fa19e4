//! Customer order statistics: what an order adds to them, and how a change of an order moves
//! them.
//!
//! `orderCount` counts the customer's orders and `totalSpent` sums what of those that are not
//! CANCELLED the customer kept: each one's total less its `withdrawn` (lines cancelled before
//! they shipped, lines returned). An order returned whole still counts in `orderCount`: it was
//! ordered, paid and shipped. Each order's share is kept beside the statistics (see `dynamo::stats`) with
//! the version of the change that set it, so a change is always "this order's share goes from
//! `before` to `after`, as of `version`": one applied twice, or after a later one, is recognised
//! by the version stored.

use std::fmt;

use crate::domain::ids::OrderId;
use crate::domain::money::Decimal;
use crate::domain::order::Order;
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;

/// What an order adds to `totalSpent`: its total less what of it the customer did not keep
/// (`withdrawn`), or nothing while it is CANCELLED; `None`
/// while it does not count at all. An order counts once in `orderCount` from the moment it is
/// PLACED, cancelled or not; a hold waiting for payment (PENDING_PAYMENT), or one that ended
/// unpaid (EXPIRED), was never an order the customer made.
pub fn share(order: &Order) -> Option<Decimal> {
    match order.status {
        OrderStatus::PendingPayment | OrderStatus::Expired => None,
        OrderStatus::Cancelled => Some(Decimal::ZERO),
        OrderStatus::Placed
        | OrderStatus::PartiallyShipped
        | OrderStatus::Shipped
        | OrderStatus::Delivered => {
            Some(order.total.amount() - order.withdrawn.map_or(Decimal::ZERO, |back| back.amount()))
        }
    }
}

/// Which change of an order's share is the later: the stream sequence number of the record that
/// made it. Sequence numbers have 21 to 40 digits; kept left-padded with zeros to 40, their text
/// order (how DynamoDB compares the stored attribute in a condition) is their number order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ShareVersion(String);

impl ShareVersion {
    /// Digits in a stored version.
    pub const WIDTH: usize = 40;

    /// The version of a share found in a customer's partition rather than on the stream: older
    /// than any record's.
    pub fn partition() -> Self {
        Self("0".repeat(Self::WIDTH))
    }

    /// A stream record's sequence number (1 to 40 digits) as a version; a stored version reads
    /// back the same way.
    pub fn parse(sequence_number: &str) -> Result<Self, String> {
        if (1..=Self::WIDTH).contains(&sequence_number.len())
            && sequence_number.bytes().all(|b| b.is_ascii_digit())
        {
            Ok(Self(format!(
                "{sequence_number:0>width$}",
                width = Self::WIDTH
            )))
        } else {
            Err(format!(
                "sequence number {sequence_number:?} is not 1-40 digits"
            ))
        }
    }

    /// The version's fixed-width text, as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ShareVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One order's share of the statistics going from `before` to `after`; `None` is "not counted"
/// (before its first record, after its removal), as of `version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareChange {
    /// Which order.
    pub order_id: OrderId,
    /// When it was placed.
    pub placed_at: Timestamp,
    /// What it added to `totalSpent` before the change (`None`: it did not count).
    pub before: Option<Decimal>,
    /// What it adds after the change (`None`: it no longer counts).
    pub after: Option<Decimal>,
    /// The change's version: a change at or below a stored version is a redelivery.
    pub version: ShareVersion,
}

impl ShareChange {
    /// A new order (a stream INSERT, or an order found uncounted in its customer's partition);
    /// `None` for one that does not count yet (a hold waiting for payment).
    pub fn placed(order: &Order, version: ShareVersion) -> Option<Self> {
        let after = share(order)?;
        Some(Self {
            order_id: order.order_id.clone(),
            placed_at: order.placed_at,
            before: None,
            after: Some(after),
            version,
        })
    }

    /// An order that changed; `None` when its share did not (a shipment, say, or a hold that
    /// ended unpaid).
    pub fn changed(old: &Order, new: &Order, version: ShareVersion) -> Option<Self> {
        let (before, after) = (share(old), share(new));
        (before != after).then(|| Self {
            order_id: new.order_id.clone(),
            placed_at: new.placed_at,
            before,
            after,
            version,
        })
    }

    /// An order that is gone from the table; `None` for one that never counted.
    pub fn removed(old: &Order, version: ShareVersion) -> Option<Self> {
        let before = share(old)?;
        Some(Self {
            order_id: old.order_id.clone(),
            placed_at: old.placed_at,
            before: Some(before),
            after: None,
            version,
        })
    }

    /// `later` applied after this one: the share goes from this one's `before` to `later`'s
    /// `after`, as of `later`'s version.
    pub fn then(&mut self, later: ShareChange) {
        self.after = later.after;
        self.placed_at = later.placed_at;
        self.version = later.version;
    }

    /// Nothing to apply: the share ends where it started.
    pub fn is_noop(&self) -> bool {
        self.before == self.after
    }

    /// What applying the change does to the statistics.
    pub fn delta(&self) -> StatsDelta {
        let counted = |share: &Option<Decimal>| i64::from(share.is_some());
        StatsDelta {
            orders: counted(&self.after) - counted(&self.before),
            spent: self.after.unwrap_or_default() - self.before.unwrap_or_default(),
            last_order_at: self.after.map(|_| self.placed_at),
        }
    }
}

/// How changes move a customer's statistics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsDelta {
    /// Orders added (or, negative, removed).
    pub orders: i64,
    /// What they add to `totalSpent` (or take from it).
    pub spent: Decimal,
    /// The latest `placedAt` among the orders added, if any.
    pub last_order_at: Option<Timestamp>,
}

impl StatsDelta {
    /// Nothing to change.
    pub const NONE: StatsDelta = StatsDelta {
        orders: 0,
        spent: Decimal::ZERO,
        last_order_at: None,
    };

    /// Adds `other` to this change.
    pub fn merge(&mut self, other: &StatsDelta) {
        self.orders += other.orders;
        self.spent += other.spent;
        self.last_order_at = self.last_order_at.max(other.last_order_at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::CustomerId;
    use crate::domain::money::Money;

    fn v(sequence_number: &str) -> ShareVersion {
        ShareVersion::parse(sequence_number).expect("version")
    }

    #[test]
    fn versions_are_sequence_numbers_padded_so_text_order_is_number_order() {
        assert_eq!(v("4100000000000000000001").as_str().len(), 40);
        assert!(v("999999999999999999999") < v("1000000000000000000000"));
        assert!(v("999999999999999999999").as_str() < v("1000000000000000000000").as_str());
        assert!(ShareVersion::partition() < v("100000000000000000000"));
        assert_eq!(
            v(ShareVersion::partition().as_str()),
            ShareVersion::partition()
        );
        for bad in ["", "12a", "-1", &"1".repeat(41)] {
            assert!(ShareVersion::parse(bad).is_err(), "{bad:?}");
        }
    }

    fn order(status: OrderStatus, total: &str) -> Order {
        Order {
            order_id: OrderId::parse("o1").expect("id"),
            customer_id: CustomerId::parse("c1").expect("id"),
            placed_at: Timestamp::parse("2026-11-01T09:00:00Z").expect("t"),
            status,
            total: Money::parse_number(total).expect("money"),
            hold_until: None,
            payment_intent_id: None,
            payment_id: None,
            payment_error: None,
            dispute: None,
            withdrawn: None,
        }
    }

    #[test]
    fn an_orders_share_is_its_total_until_it_is_cancelled() {
        let placed = order(OrderStatus::Placed, "27.40");
        let cancelled = order(OrderStatus::Cancelled, "27.40");
        let shipped = order(OrderStatus::Shipped, "27.40");
        assert_eq!(
            share(&placed).map(|s| s.to_string()).as_deref(),
            Some("27.40")
        );
        assert_eq!(share(&cancelled), Some(Decimal::ZERO));

        assert_eq!(ShareChange::changed(&placed, &shipped, v("2")), None);
        let mut change = ShareChange::placed(&placed, v("1")).expect("counts");
        change.then(ShareChange::changed(&placed, &cancelled, v("2")).expect("moves"));
        let delta = change.delta();
        assert_eq!((delta.orders, delta.spent), (1, Decimal::ZERO));
        change.then(ShareChange::removed(&cancelled, v("3")).expect("counted"));
        assert!(
            change.is_noop(),
            "placed, cancelled and removed in one batch: nothing"
        );
        assert_eq!(change.version, v("3"));
        let removed = ShareChange::removed(&placed, v("4"))
            .expect("counted")
            .delta();
        assert_eq!(
            (removed.orders, removed.spent.to_string().as_str()),
            (-1, "-27.40")
        );
        assert_eq!(removed.last_order_at, None);
    }

    #[test]
    fn a_hold_counts_only_once_it_is_paid() {
        let pending = order(OrderStatus::PendingPayment, "27.40");
        let expired = order(OrderStatus::Expired, "27.40");
        let paid = order(OrderStatus::Placed, "27.40");
        assert_eq!(share(&pending), None);
        assert_eq!(ShareChange::placed(&pending, v("1")), None);
        assert_eq!(ShareChange::changed(&pending, &expired, v("2")), None);
        assert_eq!(ShareChange::removed(&expired, v("3")), None);
        let payment = ShareChange::changed(&pending, &paid, v("2")).expect("counts now");
        let delta = payment.delta();
        assert_eq!(
            (delta.orders, delta.spent.to_string().as_str()),
            (1, "27.40")
        );
        assert_eq!(delta.last_order_at, Some(paid.placed_at));
    }
}
