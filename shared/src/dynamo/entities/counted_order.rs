//! An order as the statistics count it, `CUSTOMER#<customerId>` / `COUNTED#<orderId>`: what it
//! adds to `totalSpent` (its total, or 0 while CANCELLED) and the version of the change that set
//! it. With `countedSpent` the order counts in `orderCount`; without, it was removed (the
//! version stays, so an older change arriving late is recognised). The profile's statistics are
//! always the sum of these, since both change in one transaction. In the customer's partition,
//! sorted just before the order listings (`keys::CUSTOMER_PARTITION`), so that one range reads
//! both for a recount.

use crate::domain::ids::{CustomerId, OrderId};
use crate::domain::money::Decimal;
use crate::domain::stats::ShareVersion;
use crate::dynamo::codec::{BadItem, Item, SK, primary_key};
use crate::dynamo::entities::customer;
use crate::dynamo::keys::{
    self, COUNTED_PREFIX, CUSTOMER_PARTITION, Entity, MalformedKey, malformed,
};
use crate::dynamo::record::record;
use crate::dynamo::update::PutSpec;

/// An order's share of its customer's statistics, as its record holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Share {
    /// Which order.
    pub order_id: OrderId,
    /// What it adds to `totalSpent`; `None` once it no longer counts.
    pub spent: Option<Decimal>,
    /// The version of the change that wrote it.
    pub version: ShareVersion,
}

record! {
    /// What a counted order's item stores of its share (the order is its sort key's).
    pub Record stores Share beside (order_id: OrderId) {
        /// What the order adds to `totalSpent`; absent once it no longer counts.
        spent: Decimal = SPENT "countedSpent", optional, store;
        /// The version of the change that wrote this share.
        version: ShareVersion = VERSION "countedVersion", required, store;
    }
}

/// What counting an order puts: its share (none once it is removed) and its version.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::CountedOrder,
    attributes: &[keys::PK, keys::SK, SPENT.name, VERSION.name],
};

/// The customer's partition.
pub fn pk(customer: &CustomerId) -> String {
    customer::pk(customer)
}

/// The counted order's sort key.
pub fn sk(order: &OrderId) -> String {
    format!("{COUNTED_PREFIX}{order}")
}

/// The order a sort key names.
pub fn parse_sk(sk: &str) -> Result<OrderId, MalformedKey> {
    sk.strip_prefix(COUNTED_PREFIX)
        .and_then(|raw| OrderId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// Inclusive bounds of `SK BETWEEN :lo AND :hi` that select, in one Query of a customer's
/// partition, every counted order and every order listing, and nothing else: the two are
/// neighbours in [`CUSTOMER_PARTITION`].
pub fn with_listings_range() -> (String, String) {
    CUSTOMER_PARTITION.range(Entity::CountedOrder, Entity::OrderListing)
}

/// The item's key.
pub fn key(customer: &CustomerId, order: &OrderId) -> Item {
    primary_key(pk(customer), sk(order))
}

/// The record of `customer`'s `share`.
pub fn to_item(customer: &CustomerId, share: &Share) -> Item {
    let mut item = key(customer, &share.order_id);
    Record::write(&mut item, share);
    item
}

/// The share a record holds.
pub fn from_item(mut item: Item) -> Result<Share, BadItem> {
    let order = parse_sk(&SK.take(&mut item)?)?;
    Record::read(&mut item, order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::Money;
    use crate::dynamo::entities::order_listing;
    use crate::dynamo::entities::test_support::{c1, o100, pairs, placed, shape};

    #[test]
    fn counted_orders_and_listings_are_read_together_and_alone() {
        assert_eq!(pk(&c1()), "CUSTOMER#c1");
        assert_eq!(sk(&o100()), "COUNTED#o100");
        assert_eq!(parse_sk("COUNTED#o100"), Ok(o100()));
        assert!(parse_sk("ORDER#o100").is_err());
        let (lo, hi) = with_listings_range();
        assert_eq!((lo.as_str(), hi.as_str()), ("COUNTED#", "ORDER$"));
        let listing = order_listing::sk(placed(), &o100());
        let counted = sk(&OrderId::parse("zzz").expect("valid"));
        for sk in [counted.as_str(), listing.as_str()] {
            assert!(lo.as_str() <= sk && sk <= hi.as_str(), "{sk}");
        }
        // What else the partition holds is outside the range.
        for other in [
            customer::SORT_KEY,
            crate::dynamo::entities::open_order_count::SORT_KEY,
        ] {
            assert!(other > hi.as_str(), "{other}");
        }
    }

    #[test]
    fn a_counted_order_holds_what_it_adds_to_total_spent() {
        let spent = Money::parse_number("39.90").expect("money").amount();
        let v42 = ShareVersion::parse("42").expect("version");
        let share = Share {
            order_id: o100(),
            spent: Some(spent),
            version: v42,
        };
        let item = to_item(&c1(), &share);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S CUSTOMER#c1"),
                ("SK", "S COUNTED#o100"),
                ("countedSpent", "N 39.9"),
                (
                    "countedVersion",
                    "S 0000000000000000000000000000000000000042"
                ),
            ])
        );
        assert_eq!(from_item(item).expect("reads"), share);
        let removed = Share {
            spent: None,
            version: ShareVersion::parse("43").expect("version"),
            ..share
        };
        let item = to_item(&c1(), &removed);
        assert_eq!(from_item(item).expect("reads"), removed);
    }
}
