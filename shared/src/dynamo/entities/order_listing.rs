//! An order's listing, `CUSTOMER#<customerId>` / `ORDER#<placedAt>#<orderId>` with GSI1
//! `STATUS#<status>[#<k>]` / `<placedAt>`: access patterns 2 (a customer's orders, newest
//! first: Query on PK) and 4 (orders with a status, oldest first: Query on GSI1). In the source
//! design's shape; with one status shard, exactly the source design's keys.

use crate::domain::ids::{CustomerId, OrderId};
use crate::domain::money::Money;
use crate::domain::order::Order;
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, SK, primary_key};
use crate::dynamo::entities::customer;
use crate::dynamo::keys::{
    self, CUSTOMER_PARTITION, Entity, MalformedKey, ORDER_PREFIX, STATUS_PREFIX, StatusShards,
    malformed,
};
use crate::dynamo::record::record;
use crate::dynamo::update::{PutSpec, UpdateSpec};

/// The order's ID, as the source design writes it (the sort key holds it too).
pub const ORDER_ID: Attr<OrderId> = Attr::new("orderId");
record! {
    /// What a listing stores of its order: status and total as the source design writes them,
    /// and a hold's end. The rest of an [`Order`] is the listing's keys' (who, when, which) or
    /// the header's alone (its payment and dispute: none, read from a listing).
    pub Listing stores Order beside (order_id: OrderId, customer_id: CustomerId, placed_at: Timestamp)
        without (payment_intent_id, payment_id, payment_error, dispute) {
        /// Where the order is in its life.
        status: OrderStatus = STATUS "status", required, source;
        /// What the order comes to.
        total: Money = TOTAL "total", required, source;
        /// When a PENDING_PAYMENT order's hold ends: the expiry reads it from GSI1 (projected
        /// whole).
        hold_until: Timestamp = HOLD_UNTIL "holdUntil", optional, store;
        /// What of the total the customer did not keep (cancelled lines, returned lines): the
        /// statistics count the total less this.
        withdrawn: Money = WITHDRAWN "withdrawn", optional, store;
    }
}
/// GSI1's partition key: the status and its shard.
pub const GSI1PK: Attr<String> = Attr::new(keys::GSI1PK);
/// GSI1's sort key: when the order was placed.
pub const GSI1SK: Attr<String> = Attr::new(keys::GSI1SK);

/// What a status change writes on the listing (`update-order-status`' UpdateItem).
pub const STATUS_CHANGE: UpdateSpec = UpdateSpec {
    set: &[STATUS.name, GSI1PK.name],
    ..UpdateSpec::of(Entity::OrderListing)
};
/// What of the order's total the customer no longer keeps, added to: what the statistics
/// take out of `totalSpent`.
pub const WITHDRAW: UpdateSpec = UpdateSpec {
    add: &[WITHDRAWN.name],
    ..UpdateSpec::of(Entity::OrderListing)
};
/// Lines given back: the status when it follows, what is withdrawn.
pub const GIVE_BACK: &[&UpdateSpec] = &[&STATUS_CHANGE, &WITHDRAW];
/// What placing an order writes of its listing.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::OrderListing,
    attributes: &[
        keys::PK,
        keys::SK,
        ORDER_ID.name,
        STATUS.name,
        TOTAL.name,
        GSI1PK.name,
        GSI1SK.name,
    ],
};
/// What a checkout writes of its hold's listing: an order's, and when the hold ends.
pub const PUT_HOLD: PutSpec = PutSpec {
    entity: Entity::OrderListing,
    attributes: &[
        keys::PK,
        keys::SK,
        ORDER_ID.name,
        STATUS.name,
        TOTAL.name,
        GSI1PK.name,
        GSI1SK.name,
        HOLD_UNTIL.name,
    ],
};

/// The customer's partition.
pub fn pk(customer: &crate::domain::ids::CustomerId) -> String {
    customer::pk(customer)
}

/// The listing's sort key: when, then which.
pub fn sk(placed_at: Timestamp, order: &OrderId) -> String {
    format!("{ORDER_PREFIX}{placed_at}#{order}")
}

/// Every listing sort key starts with this.
pub const SK_PREFIX: &str = ORDER_PREFIX;

/// Inclusive bounds for a `SK BETWEEN :lo AND :hi` condition selecting the listings placed in
/// `[from, to)`; either end may be open.
pub fn sk_range(from: Option<Timestamp>, to: Option<Timestamp>) -> (String, String) {
    let (all_lo, all_hi) = CUSTOMER_PARTITION.range(Entity::OrderListing, Entity::OrderListing);
    // `ORDER#<from>` sorts before every `ORDER#<from>#<orderId>`.
    let lo = from.map_or(all_lo, |from| format!("{ORDER_PREFIX}{from}"));
    // No sort key equals `ORDER#<to>` exactly and `ORDER#<to>#…` sorts after it, so the upper
    // bound excludes orders placed at `to`.
    let hi = to.map_or(all_hi, |to| format!("{ORDER_PREFIX}{to}"));
    (lo, hi)
}

/// When, and which order, a listing's sort key names.
pub fn parse_sk(sk: &str) -> Result<(Timestamp, OrderId), MalformedKey> {
    sk.strip_prefix(ORDER_PREFIX)
        .and_then(|rest| rest.rsplit_once('#'))
        .and_then(|(at, id)| Some((Timestamp::parse(at).ok()?, OrderId::parse(id).ok()?)))
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// What `sk` names, when it is byte for byte the sort key this store writes for it (a cursor
/// must be: a timestamp spelled another way parses, and would reach DynamoDB as is).
pub fn parse_canonical_sk(sk: &str) -> Option<(Timestamp, OrderId)> {
    parse_sk(sk)
        .ok()
        .filter(|(at, order)| sk == self::sk(*at, order))
}

/// Whether `sk` is byte for byte a listing's sort key as this store writes it.
pub fn is_canonical_sk(sk: &str) -> bool {
    parse_canonical_sk(sk).is_some()
}

/// GSI1PK of an order with `status` in `shard` (see [`StatusShards`]).
pub fn gsi1pk(status: OrderStatus, shard: u32) -> String {
    if shard == 0 {
        format!("{STATUS_PREFIX}{status}")
    } else {
        format!("{STATUS_PREFIX}{status}#{shard}")
    }
}

/// The listing's GSI1 sort key.
pub fn gsi1sk(placed_at: Timestamp) -> String {
    placed_at.to_string()
}

/// The status and shard a GSI1PK names.
pub fn parse_gsi1pk(gsi1pk: &str) -> Result<(OrderStatus, u32), MalformedKey> {
    let rest = gsi1pk.strip_prefix(STATUS_PREFIX);
    let parsed = match rest.and_then(|rest| rest.split_once('#')) {
        Some((status, shard)) => status.parse().ok().zip(
            shard
                .parse::<u32>()
                .ok()
                .filter(|k| *k > 0 && shard == k.to_string()),
        ),
        None => rest.and_then(|status| status.parse().ok()).map(|s| (s, 0)),
    };
    parsed.ok_or_else(|| malformed(keys::GSI1PK, gsi1pk))
}

/// The listing's key.
pub fn key(order: &Order) -> Item {
    primary_key(pk(&order.customer_id), sk(order.placed_at, &order.order_id))
}

/// The listing of `order`, in the GSI1 shard its ID falls in.
pub fn to_item(order: &Order, shards: StatusShards) -> Item {
    let mut item = key(order);
    ORDER_ID.put(&mut item, &order.order_id);
    Listing::write(&mut item, order);
    let shard = shards.of(&order.order_id);
    GSI1PK.put(&mut item, &gsi1pk(order.status, shard));
    GSI1SK.put(&mut item, &gsi1sk(order.placed_at));
    item
}

/// Ids and time from the keys, status and total from the attributes the source design writes.
pub fn from_item(mut item: Item) -> Result<Order, BadItem> {
    let (placed_at, order_id) = parse_sk(&SK.take(&mut item)?)?;
    let customer_id = customer::parse_pk(&PK.take(&mut item)?)?;
    Listing::read(&mut item, order_id, customer_id, placed_at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{c1, n, o100, order, pairs, placed, s, shape};

    #[test]
    fn order_listing_keys_are_the_source_designs() {
        assert_eq!(pk(&c1()), "CUSTOMER#c1");
        assert_eq!(sk(placed(), &o100()), "ORDER#2026-10-08T14:30:00Z#o100");
        assert_eq!(gsi1pk(OrderStatus::Placed, 0), "STATUS#PLACED");
        assert_eq!(gsi1pk(OrderStatus::Cancelled, 0), "STATUS#CANCELLED");
        assert_eq!(gsi1sk(placed()), "2026-10-08T14:30:00Z");
        assert_eq!(
            parse_sk("ORDER#2026-10-08T14:30:00Z#o100"),
            Ok((placed(), o100()))
        );
        assert_eq!(
            parse_gsi1pk("STATUS#SHIPPED"),
            Ok((OrderStatus::Shipped, 0))
        );
    }

    #[test]
    fn listing_parsers_reject_keys_of_other_shapes() {
        assert!(parse_sk("PROFILE").is_err());
        assert!(parse_sk("ORDER#o100").is_err());
        assert!(parse_sk("ORDER#not-a-time#o100").is_err());
        assert!(parse_gsi1pk("STATUS#LOST").is_err());
    }

    #[test]
    fn status_shards_keep_the_source_designs_key_as_shard_zero() {
        assert_eq!(gsi1pk(OrderStatus::Placed, 3), "STATUS#PLACED#3");
        assert_eq!(
            parse_gsi1pk("STATUS#PLACED#3"),
            Ok((OrderStatus::Placed, 3))
        );
        for bad in [
            "STATUS#PLACED#0",
            "STATUS#PLACED#03",
            "STATUS#PLACED#",
            "STATUS#NOPE#1",
            "PLACED",
        ] {
            assert!(parse_gsi1pk(bad).is_err(), "{bad}");
        }
        // One shard: every order in shard 0, the source design's keys.
        assert_eq!(StatusShards::ONE.of(&o100()), 0);
        // Fixed values: a shard that moved between releases would hide orders.
        let eight = StatusShards::new(8).expect("8");
        let shards: Vec<u32> = ["o100", "o101", "01J9ZQ4M3K8V7X2B6N5C1D0EFG", "a"]
            .iter()
            .map(|id| eight.of(&OrderId::parse(id).expect("id")))
            .collect();
        assert_eq!(shards, [5, 2, 3, 4]);
        assert_eq!(StatusShards::parse("4"), StatusShards::new(4));
        for bad in ["0", "33", "-1", "x", ""] {
            assert!(StatusShards::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sort_key_range_brackets_exactly_the_orders_in_the_window() {
        let (lo, hi) = sk_range(None, None);
        assert_eq!((lo.as_str(), hi.as_str()), ("ORDER#", "ORDER$"));
        let sk = sk(placed(), &o100());
        assert!(lo.as_str() <= sk.as_str() && sk.as_str() <= hi.as_str());
        assert!(hi.as_str() < customer::SORT_KEY);

        // from is inclusive, to exclusive
        let (lo, hi) = sk_range(Some(placed()), None);
        assert!(lo <= sk && sk <= hi);
        let (lo, hi) = sk_range(None, Some(placed()));
        assert!(!(lo <= sk && sk <= hi));
        let later = Timestamp::parse("2026-10-08T14:30:01Z").expect("valid");
        let (lo, hi) = sk_range(Some(placed()), Some(later));
        assert_eq!(
            (lo.as_str(), hi.as_str()),
            ("ORDER#2026-10-08T14:30:00Z", "ORDER#2026-10-08T14:30:01Z")
        );
        assert!(lo <= sk && sk <= hi);
    }

    #[test]
    fn an_order_listing_is_written_in_the_source_designs_shape_and_reads_back() {
        let shipped = order(OrderStatus::Shipped);
        let item = to_item(&shipped, StatusShards::ONE);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("GSI1PK", "S STATUS#SHIPPED"),
                ("GSI1SK", "S 2026-10-08T14:30:00Z"),
                ("PK", "S CUSTOMER#c1"),
                ("SK", "S ORDER#2026-10-08T14:30:00Z#o100"),
                ("orderId", "S o100"),
                ("status", "S SHIPPED"),
                ("total", "N 39.90"),
            ])
        );
        assert_eq!(from_item(item).expect("reads"), shipped);
    }

    #[test]
    fn the_source_designs_listing_item_reads_with_keys_as_the_source_of_ids() {
        let item = Item::from([
            ("PK".into(), s("CUSTOMER#c1")),
            ("SK".into(), s("ORDER#2026-10-08T14:30:00Z#o100")),
            ("orderId".into(), s("o100")),
            ("status".into(), s("PLACED")),
            ("total".into(), n("39.9")),
            ("GSI1PK".into(), s("STATUS#PLACED")),
            ("GSI1SK".into(), s("2026-10-08T14:30:00Z")),
        ]);
        let order = from_item(item).expect("reads");
        assert_eq!(order.order_id.as_str(), "o100");
        assert_eq!(order.customer_id.as_str(), "c1");
        assert_eq!(order.placed_at.to_string(), "2026-10-08T14:30:00Z");
        assert_eq!(order.status, OrderStatus::Placed);
        assert_eq!(order.total.to_string(), "39.90");
    }

    #[test]
    fn attributes_of_the_wrong_type_or_value_are_named() {
        let listing = |status, total| {
            Item::from([
                ("PK".into(), s("CUSTOMER#c1")),
                ("SK".into(), s("ORDER#2026-10-08T14:30:00Z#o100")),
                ("status".into(), status),
                ("total".into(), total),
            ])
        };
        let err = |item| from_item(item).expect_err("refused").to_string();
        assert_eq!(
            err(listing(s("PLACED"), s("39.9"))),
            "attribute total is missing or is not a decimal number"
        );
        assert_eq!(
            err(listing(s("LOST"), n("39.9"))),
            "attribute status is missing or is not an order status"
        );
        assert_eq!(
            err(listing(n("1"), n("39.9"))),
            "attribute status is missing or is not an order status"
        );
        let mut missing = listing(s("PLACED"), n("39.9"));
        missing.remove("total");
        assert_eq!(
            err(missing),
            "attribute total is missing or is not a decimal number"
        );
    }
}
