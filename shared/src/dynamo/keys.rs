//! The key design: the one place that builds and parses PK, SK, GSI1PK and GSI1SK strings.
//! The first three rows are the source design's (README: "The key design"); the column
//! "serves" names the access pattern each key answers (README: "Access patterns").
//!
//! | entity          | PK                      | SK                              | GSI1PK            | GSI1SK      | serves |
//! |-----------------|-------------------------|---------------------------------|-------------------|-------------|--------|
//! | customer        | `CUSTOMER#<customerId>` | `PROFILE`                       |                   |             | 1 |
//! | order (listing) | `CUSTOMER#<customerId>` | `ORDER#<placedAt>#<orderId>`    | `STATUS#<status>[#<k>]` | `<placedAt>`| 2, 4 |
//! | order line item | `ORDER#<orderId>`       | `ITEM#<sku>`                    | GSI2: `PRODUCT#<sku>` | GSI2: `<placedAt>#<orderId>` | 3, 8 |
//! | order header    | `ORDER#<orderId>`       | `HEADER`                        |                   |             | 7 |
//! | idempotency     | `IDEMPOTENCY#<customerId>#<key>` | `RESPONSE`             |                   |             | order retries |
//! | order as counted| `CUSTOMER#<customerId>` | `COUNTED#<orderId>`             |                   |             | statistics |
//! | product         | `PRODUCT#<sku>`         | `PRODUCT`                       |                   |             | 5, orders |
//! | catalog entry   | `CATALOG#<shard>`       | `PRODUCT#<sku>`                 |                   |             | 6 |
//! | migration state | `MIGRATION#<name>`      | `STATUS`, `SEGMENT#<i>`, `DEFERRED#<orderId>#<sku>` |  |         | `store-migrate` |

use std::fmt;

use crate::domain::ids::{CustomerId, IdempotencyKey, OrderId, Sku};
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;

/// Attribute names of the table's, GSI1's and GSI2's keys.
pub const PK: &str = "PK";
pub const SK: &str = "SK";
pub const GSI1PK: &str = "GSI1PK";
pub const GSI1SK: &str = "GSI1SK";
pub const GSI1: &str = "GSI1";
pub const GSI2PK: &str = "GSI2PK";
pub const GSI2SK: &str = "GSI2SK";
pub const GSI2: &str = "GSI2";
const MIGRATION_PREFIX: &str = "MIGRATION#";

const CUSTOMER_PREFIX: &str = "CUSTOMER#";
const ORDER_PREFIX: &str = "ORDER#";
const ITEM_PREFIX: &str = "ITEM#";
const STATUS_PREFIX: &str = "STATUS#";
const IDEMPOTENCY_PREFIX: &str = "IDEMPOTENCY#";
const COUNTED_PREFIX: &str = "COUNTED#";
const PRODUCT_PREFIX: &str = "PRODUCT#";
const CATALOG_PREFIX: &str = "CATALOG#";

/// FNV-1a of `text`'s bytes: stable across releases and machines, so a shard chosen with it
/// never moves unless its count does.
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// How many GSI1 partitions each status's orders are spread over (the template's
/// `StatusShards`). DynamoDB takes about 1,000 writes per second per partition key, and a GSI
/// that cannot keep up throttles the table's writes: with N shards every order lands in shard
/// `k = FNV-1a(orderId) mod N`, so a status change keeps its `k`. Shard 0 is the source design's own
/// key, `STATUS#<status>`; shard k > 0 is `STATUS#<status>#<k>`. With N = 1 the keys are exactly
/// the source design's, and raising N needs no migration: what was written before is in shard 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusShards(u32);

impl StatusShards {
    pub const ONE: StatusShards = StatusShards(1);
    /// A page of the listing reads every shard and its cursor holds a key per shard: 32 keeps
    /// a cursor in a few KiB and allows 32,000 writes per second per status.
    pub const MAX: u32 = 32;

    pub fn new(count: u32) -> Result<Self, String> {
        if (1..=Self::MAX).contains(&count) {
            Ok(Self(count))
        } else {
            Err(format!(
                "the status shard count must be 1 to {}, not {count}",
                Self::MAX
            ))
        }
    }

    /// From text (the `STATUS_SHARDS` variable).
    pub fn parse(raw: &str) -> Result<Self, String> {
        raw.trim()
            .parse::<u32>()
            .map_err(|_| format!("the status shard count must be a whole number, not {raw:?}"))
            .and_then(Self::new)
    }

    pub fn count(self) -> u32 {
        self.0
    }

    /// The shard of `order`.
    pub fn of(self, order: &OrderId) -> u32 {
        fnv1a(order.as_str()) % self.0
    }
}

/// A stored key that does not have the shape the key design gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedKey {
    pub attribute: &'static str,
    pub value: String,
}

impl fmt::Display for MalformedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed {} {:?}", self.attribute, self.value)
    }
}

impl std::error::Error for MalformedKey {}

fn malformed(attribute: &'static str, value: &str) -> MalformedKey {
    MalformedKey {
        attribute,
        value: value.to_owned(),
    }
}

/// Access pattern 1 (a customer's profile, GetItem): keys of the profile item; the customer's
/// partition also holds their order listings.
pub mod customer {
    use super::*;

    pub const PROFILE_SK: &str = "PROFILE";

    pub fn pk(id: &CustomerId) -> String {
        format!("{CUSTOMER_PREFIX}{id}")
    }

    pub fn parse_pk(pk: &str) -> Result<CustomerId, MalformedKey> {
        pk.strip_prefix(CUSTOMER_PREFIX)
            .and_then(|raw| CustomerId::parse(raw).ok())
            .ok_or_else(|| malformed(PK, pk))
    }

    /// `pk` is byte for byte a customer's partition key as this store writes it.
    pub fn is_canonical_pk(pk: &str) -> bool {
        parse_pk(pk).is_ok_and(|customer| pk == self::pk(&customer))
    }
}

/// Access patterns 2 (a customer's orders, newest first: Query on PK) and 4 (orders with a
/// status, oldest first: Query on GSI1PK): keys of the order listing item, which lives in its
/// customer's partition and in GSI1.
pub mod order_listing {
    use super::*;

    pub fn pk(customer: &CustomerId) -> String {
        customer::pk(customer)
    }

    pub fn sk(placed_at: Timestamp, order: &OrderId) -> String {
        format!("{ORDER_PREFIX}{placed_at}#{order}")
    }

    /// Every listing sort key starts with this.
    pub const SK_PREFIX: &str = ORDER_PREFIX;

    /// Inclusive bounds for a `SK BETWEEN :lo AND :hi` condition selecting the listings placed
    /// in `[from, to)`; either end may be open.
    pub fn sk_range(from: Option<Timestamp>, to: Option<Timestamp>) -> (String, String) {
        let lo = match from {
            // `ORDER#<from>` sorts before every `ORDER#<from>#<orderId>`.
            Some(from) => format!("{ORDER_PREFIX}{from}"),
            None => ORDER_PREFIX.to_owned(),
        };
        let hi = match to {
            // No sort key equals `ORDER#<to>` exactly and `ORDER#<to>#…` sorts after it, so
            // the upper bound excludes orders placed at `to`.
            Some(to) => format!("{ORDER_PREFIX}{to}"),
            // '$' follows '#', so `ORDER$` is above every `ORDER#…` and below `PROFILE`.
            None => "ORDER$".to_owned(),
        };
        (lo, hi)
    }

    pub fn parse_sk(sk: &str) -> Result<(Timestamp, OrderId), MalformedKey> {
        sk.strip_prefix(ORDER_PREFIX)
            .and_then(|rest| rest.rsplit_once('#'))
            .and_then(|(at, id)| Some((Timestamp::parse(at).ok()?, OrderId::parse(id).ok()?)))
            .ok_or_else(|| malformed(SK, sk))
    }

    /// What `sk` names, when it is byte for byte the sort key this store writes for it (a
    /// cursor must be: a timestamp spelled another way parses, and would reach DynamoDB as is).
    pub fn parse_canonical_sk(sk: &str) -> Option<(Timestamp, OrderId)> {
        parse_sk(sk)
            .ok()
            .filter(|(at, order)| sk == self::sk(*at, order))
    }

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
        parsed.ok_or_else(|| malformed(GSI1PK, gsi1pk))
    }
}

/// Access pattern 3 (an order's line items: Query on PK): keys of the line items, which share
/// the order's own partition.
pub mod line_item {
    use super::*;

    pub fn pk(order: &OrderId) -> String {
        format!("{ORDER_PREFIX}{order}")
    }

    pub fn sk(sku: &Sku) -> String {
        format!("{ITEM_PREFIX}{sku}")
    }

    /// Every line item sort key starts with this.
    pub const SK_PREFIX: &str = ITEM_PREFIX;

    /// Sorts after every line item's sort key ('$' follows '#'): `SK BETWEEN HEADER AND ITEM$`
    /// is an order's header and all its line items.
    pub const SK_END: &str = "ITEM$";

    pub fn parse_pk(pk: &str) -> Result<OrderId, MalformedKey> {
        pk.strip_prefix(ORDER_PREFIX)
            .and_then(|raw| OrderId::parse(raw).ok())
            .ok_or_else(|| malformed(PK, pk))
    }

    pub fn parse_sk(sk: &str) -> Result<Sku, MalformedKey> {
        sk.strip_prefix(ITEM_PREFIX)
            .and_then(|raw| Sku::parse(raw).ok())
            .ok_or_else(|| malformed(SK, sk))
    }

    /// `sk` is byte for byte a line item's sort key as this store writes it.
    pub fn is_canonical_sk(sk: &str) -> bool {
        parse_sk(sk).is_ok_and(|sku| sk == self::sk(&sku))
    }
}

/// Access pattern 8 (a product's orders, newest first: Query on GSI2PK): the GSI2 keys every
/// line item carries, the inverted view of `ORDER#<orderId>` / `ITEM#<sku>`. Line items written
/// before GSI2 get them from the migration `0001-line-item-gsi2` (`store-migrate`).
pub mod product_orders {
    use super::*;

    /// The product's orders: the product item's own key string, in GSI2.
    pub fn gsi2pk(sku: &Sku) -> String {
        product::pk(sku)
    }

    pub fn gsi2sk(placed_at: Timestamp, order: &OrderId) -> String {
        format!("{placed_at}#{order}")
    }

    pub fn parse_gsi2pk(gsi2pk: &str) -> Result<Sku, MalformedKey> {
        product::parse_pk(gsi2pk).map_err(|_| malformed(GSI2PK, gsi2pk))
    }

    pub fn parse_gsi2sk(gsi2sk: &str) -> Result<(Timestamp, OrderId), MalformedKey> {
        gsi2sk
            .rsplit_once('#')
            .and_then(|(at, id)| Some((Timestamp::parse(at).ok()?, OrderId::parse(id).ok()?)))
            .ok_or_else(|| malformed(GSI2SK, gsi2sk))
    }

    /// Inclusive bounds for `GSI2SK BETWEEN :lo AND :hi` selecting the orders placed in
    /// `[from, to)`; either end may be open.
    pub fn gsi2sk_range(from: Option<Timestamp>, to: Option<Timestamp>) -> (String, String) {
        // `<from>` sorts before every `<from>#<orderId>`; `<to>` before every `<to>#<orderId>`,
        // so orders placed at `to` are out. Every timestamp starts with a digit: "0" is below
        // them all and ":" (after '9') above.
        let lo = from.map_or_else(|| "0".to_owned(), |from| from.to_string());
        let hi = to.map_or_else(|| ":".to_owned(), |to| to.to_string());
        (lo, hi)
    }
}

/// State of a data migration run by `store-migrate`: its completion, each scan segment's
/// progress, and the line items it could not place yet. No access pattern reads it.
pub mod migration {
    use super::*;

    pub const STATUS_SK: &str = "STATUS";
    pub const SEGMENT_PREFIX: &str = "SEGMENT#";
    pub const DEFERRED_PREFIX: &str = "DEFERRED#";

    pub fn pk(name: &str) -> String {
        format!("{MIGRATION_PREFIX}{name}")
    }

    /// Segment `segment` of a scan in `total` segments: a count change starts a new scan.
    pub fn segment_sk(segment: u32, total: u32) -> String {
        format!("{SEGMENT_PREFIX}{total}#{segment:04}")
    }

    /// A line item deferred until the scan has seen every order listing.
    pub fn deferred_sk(order: &OrderId, sku: &Sku) -> String {
        format!("{DEFERRED_PREFIX}{order}#{sku}")
    }

    pub fn parse_deferred_sk(sk: &str) -> Result<(OrderId, Sku), MalformedKey> {
        sk.strip_prefix(DEFERRED_PREFIX)
            .and_then(|rest| rest.split_once('#'))
            .and_then(|(order, sku)| Some((OrderId::parse(order).ok()?, Sku::parse(sku).ok()?)))
            .ok_or_else(|| malformed(SK, sk))
    }
}

/// Access pattern 7 (an order by ID, with its lines: one Query on PK): keys of the order header,
/// what a lookup by orderId needs (customerId, placedAt, status,
/// total), in the order's own partition beside its line items.
pub mod order_header {
    use super::*;

    pub const SK: &str = "HEADER";

    pub fn pk(order: &OrderId) -> String {
        line_item::pk(order)
    }
}

/// Keys of the record that remembers a POST's response under its `Idempotency-Key`, scoped to
/// the customer the order is for.
pub mod idempotency {
    use super::*;

    pub const SK: &str = "RESPONSE";

    pub fn pk(customer: &CustomerId, key: &IdempotencyKey) -> String {
        format!("{IDEMPOTENCY_PREFIX}{customer}#{key}")
    }
}

/// Access pattern 5 (a product by SKU, GetItem), and what placing an order reads and takes:
/// keys of a product: what orders read (price, stock) and change (stock), one item per SKU.
pub mod product {
    use super::*;

    pub const SK: &str = "PRODUCT";

    pub fn pk(sku: &Sku) -> String {
        format!("{PRODUCT_PREFIX}{sku}")
    }

    pub fn parse_pk(pk: &str) -> Result<Sku, MalformedKey> {
        pk.strip_prefix(PRODUCT_PREFIX)
            .and_then(|raw| Sku::parse(raw).ok())
            .ok_or_else(|| malformed(PK, pk))
    }
}

/// Access pattern 6 (the catalog, paged: one Query per shard): keys of the catalog's listing
/// entries: each product's name and price again, in one of [`SHARDS`](catalog::SHARDS)
/// partitions chosen by its SKU, so that listing the catalog reads no partition that holds
/// every product, and orders (which change stock) never write here.
pub mod catalog {
    use super::*;

    pub const SHARDS: u32 = 4;

    /// The shard of `sku`: FNV-1a of its bytes, stable across releases and machines.
    pub fn shard(sku: &Sku) -> u32 {
        fnv1a(sku.as_str()) % SHARDS
    }

    pub fn pk(shard: u32) -> String {
        format!("{CATALOG_PREFIX}{shard}")
    }

    pub fn sk(sku: &Sku) -> String {
        format!("{PRODUCT_PREFIX}{sku}")
    }

    pub fn parse_sk(sk: &str) -> Result<Sku, MalformedKey> {
        sk.strip_prefix(PRODUCT_PREFIX)
            .and_then(|raw| Sku::parse(raw).ok())
            .ok_or_else(|| malformed(SK, sk))
    }

    /// `(pk, sk)` is byte for byte a catalog entry's key as this store writes it: the entry of
    /// a SKU, in that SKU's shard.
    pub fn is_canonical_key(pk: &str, sk: &str) -> bool {
        parse_sk(sk).is_ok_and(|sku| sk == self::sk(&sku) && pk == self::pk(shard(&sku)))
    }
}

/// Keys of what an order adds to its customer's statistics, as the stream consumer counted it:
/// in the customer's partition, beside the profile those statistics are kept on.
pub mod counted_order {
    use super::*;

    pub fn pk(customer: &CustomerId) -> String {
        customer::pk(customer)
    }

    pub fn sk(order: &OrderId) -> String {
        format!("{COUNTED_PREFIX}{order}")
    }

    pub fn parse_sk(sk: &str) -> Result<OrderId, MalformedKey> {
        sk.strip_prefix(COUNTED_PREFIX)
            .and_then(|raw| OrderId::parse(raw).ok())
            .ok_or_else(|| malformed(SK, sk))
    }

    /// Inclusive bounds of `SK BETWEEN :lo AND :hi` that select, in one Query of a customer's
    /// partition, every counted order and every order listing — and not the profile:
    /// `COUNTED#…` < `ORDER#…` < `ORDER$` < `PROFILE`.
    pub fn with_listings_range() -> (String, String) {
        let (_, listings_end) = order_listing::sk_range(None, None);
        (COUNTED_PREFIX.to_owned(), listings_end)
    }
}

/// Keys of the count of a customer's PLACED orders, which the cap on open orders is checked
/// against (`MAX_OPEN_ORDERS`) inside each order's transaction. In the customer's partition,
/// sorted after every listing (`ORDER$`) and before the profile, so neither the source design's
/// `begins_with(SK, "ORDER#")` nor the statistics' range (`COUNTED#`..`ORDER$`) meets it.
pub mod placed_orders {
    use super::*;

    pub const SK: &str = "PLACED_ORDERS";

    pub fn pk(customer: &CustomerId) -> String {
        customer::pk(customer)
    }
}

/// The one key every function may read, to open its connection during init: no entity's
/// partition (they all start with a prefix and `#`), so it never holds data.
pub mod warm_up {
    pub const PK: &str = "WARMUP";
    pub const SK: &str = "WARMUP";
}

/// Which entity an item is, from its keys alone: the legend of `make dev`'s explorer, so the key
/// design is drawn from this file rather than from a second copy of its table.
pub mod entity {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Entity {
        Customer,
        OrderListing,
        LineItem,
        OrderHeader,
        CountedOrder,
        OpenOrderCount,
        Product,
        CatalogEntry,
        IdempotencyRecord,
        MigrationState,
    }

    impl Entity {
        /// Every entity, the source design's three first.
        pub const ALL: [Entity; 10] = [
            Entity::Customer,
            Entity::OrderListing,
            Entity::LineItem,
            Entity::OrderHeader,
            Entity::CountedOrder,
            Entity::OpenOrderCount,
            Entity::Product,
            Entity::CatalogEntry,
            Entity::IdempotencyRecord,
            Entity::MigrationState,
        ];

        pub fn name(self) -> &'static str {
            match self {
                Entity::Customer => "Customer",
                Entity::OrderListing => "Order listing",
                Entity::LineItem => "Line item",
                Entity::OrderHeader => "Order header",
                Entity::CountedOrder => "Order as counted",
                Entity::OpenOrderCount => "Open-order count",
                Entity::Product => "Product",
                Entity::CatalogEntry => "Catalog entry",
                Entity::IdempotencyRecord => "Idempotency record",
                Entity::MigrationState => "Migration state",
            }
        }

        /// The shape of its keys, `PK` then `SK`.
        pub fn keys(self) -> (&'static str, &'static str) {
            match self {
                Entity::Customer => ("CUSTOMER#<customerId>", customer::PROFILE_SK),
                Entity::OrderListing => ("CUSTOMER#<customerId>", "ORDER#<placedAt>#<orderId>"),
                Entity::LineItem => ("ORDER#<orderId>", "ITEM#<sku>"),
                Entity::OrderHeader => ("ORDER#<orderId>", order_header::SK),
                Entity::CountedOrder => ("CUSTOMER#<customerId>", "COUNTED#<orderId>"),
                Entity::OpenOrderCount => ("CUSTOMER#<customerId>", placed_orders::SK),
                Entity::Product => ("PRODUCT#<sku>", product::SK),
                Entity::CatalogEntry => ("CATALOG#<shard>", "PRODUCT#<sku>"),
                Entity::IdempotencyRecord => ("IDEMPOTENCY#<customerId>#<key>", idempotency::SK),
                Entity::MigrationState => ("MIGRATION#<name>", "STATUS | SEGMENT#… | DEFERRED#…"),
            }
        }

        /// One of the three entities of the design this store implements.
        pub fn from_source_design(self) -> bool {
            matches!(
                self,
                Entity::Customer | Entity::OrderListing | Entity::LineItem
            )
        }

        /// The entity whose keys these are; `None` for keys the store does not write.
        pub fn of(pk: &str, sk: &str) -> Option<Entity> {
            let under = |prefix: &str| pk.strip_prefix(prefix).is_some_and(|rest| !rest.is_empty());
            let entity = if under(CUSTOMER_PREFIX) {
                match sk {
                    customer::PROFILE_SK => Entity::Customer,
                    placed_orders::SK => Entity::OpenOrderCount,
                    _ if sk.starts_with(ORDER_PREFIX) => Entity::OrderListing,
                    _ if sk.starts_with(COUNTED_PREFIX) => Entity::CountedOrder,
                    _ => return None,
                }
            } else if under(ORDER_PREFIX) {
                match sk {
                    order_header::SK => Entity::OrderHeader,
                    _ if sk.starts_with(ITEM_PREFIX) => Entity::LineItem,
                    _ => return None,
                }
            } else if under(PRODUCT_PREFIX) && sk == product::SK {
                Entity::Product
            } else if under(CATALOG_PREFIX) && sk.starts_with(PRODUCT_PREFIX) {
                Entity::CatalogEntry
            } else if under(IDEMPOTENCY_PREFIX) && sk == idempotency::SK {
                Entity::IdempotencyRecord
            } else if under(MIGRATION_PREFIX) {
                Entity::MigrationState
            } else {
                return None;
            };
            Some(entity)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c1() -> CustomerId {
        CustomerId::parse("c1").expect("valid")
    }
    fn o100() -> OrderId {
        OrderId::parse("o100").expect("valid")
    }
    fn placed() -> Timestamp {
        Timestamp::parse("2026-10-08T14:30:00Z").expect("valid")
    }

    #[test]
    fn customer_keys_are_the_source_designs() {
        assert_eq!(customer::pk(&c1()), "CUSTOMER#c1");
        assert_eq!(customer::PROFILE_SK, "PROFILE");
        assert_eq!(customer::parse_pk("CUSTOMER#c1"), Ok(c1()));
    }

    #[test]
    fn order_listing_keys_are_the_source_designs() {
        assert_eq!(order_listing::pk(&c1()), "CUSTOMER#c1");
        assert_eq!(
            order_listing::sk(placed(), &o100()),
            "ORDER#2026-10-08T14:30:00Z#o100"
        );
        assert_eq!(
            order_listing::gsi1pk(OrderStatus::Placed, 0),
            "STATUS#PLACED"
        );
        assert_eq!(
            order_listing::gsi1pk(OrderStatus::Cancelled, 0),
            "STATUS#CANCELLED"
        );
        assert_eq!(order_listing::gsi1sk(placed()), "2026-10-08T14:30:00Z");
        assert_eq!(
            order_listing::parse_sk("ORDER#2026-10-08T14:30:00Z#o100"),
            Ok((placed(), o100()))
        );
        assert_eq!(
            order_listing::parse_gsi1pk("STATUS#SHIPPED"),
            Ok((OrderStatus::Shipped, 0))
        );
    }

    #[test]
    fn status_shards_keep_the_source_designs_key_as_shard_zero() {
        assert_eq!(
            order_listing::gsi1pk(OrderStatus::Placed, 3),
            "STATUS#PLACED#3"
        );
        assert_eq!(
            order_listing::parse_gsi1pk("STATUS#PLACED#3"),
            Ok((OrderStatus::Placed, 3))
        );
        for bad in [
            "STATUS#PLACED#0",
            "STATUS#PLACED#03",
            "STATUS#PLACED#",
            "STATUS#NOPE#1",
            "PLACED",
        ] {
            assert!(order_listing::parse_gsi1pk(bad).is_err(), "{bad}");
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
    fn a_line_items_gsi2_keys_invert_it_under_its_product() {
        let at = Timestamp::parse("2026-10-08T14:30:00Z").expect("t");
        let (sku, order) = (
            Sku::parse("sku-1").expect("sku"),
            OrderId::parse("o100").expect("id"),
        );
        assert_eq!(product_orders::gsi2pk(&sku), "PRODUCT#sku-1");
        assert_eq!(
            product_orders::gsi2sk(at, &order),
            "2026-10-08T14:30:00Z#o100"
        );
        assert_eq!(
            product_orders::parse_gsi2sk("2026-10-08T14:30:00Z#o100").expect("parses"),
            (at, order.clone())
        );
        assert_eq!(
            product_orders::parse_gsi2pk("PRODUCT#sku-1").expect("parses"),
            sku
        );
        for bad in [
            "2026-10-08T14:30:00Z",
            "yesterday#o1",
            "2026-10-08T14:30:00Z#o#1",
        ] {
            assert!(product_orders::parse_gsi2sk(bad).is_err(), "{bad}");
        }
        let (lo, hi) = product_orders::gsi2sk_range(None, None);
        assert!(lo.as_str() < "0000-01-01T00:00:00Z#a" && "9999-12-31T23:59:59Z#z" < hi.as_str());
        let to = Timestamp::parse("2026-10-08T14:30:00Z").expect("t");
        let (_, hi) = product_orders::gsi2sk_range(None, Some(to));
        assert!(
            product_orders::gsi2sk(at, &order) > hi,
            "an order placed at `to` is out"
        );
        assert_eq!(
            migration::pk("0001-line-item-gsi2"),
            "MIGRATION#0001-line-item-gsi2"
        );
        assert_eq!(migration::segment_sk(3, 8), "SEGMENT#8#0003");
        assert_eq!(migration::deferred_sk(&order, &sku), "DEFERRED#o100#sku-1");
        assert_eq!(
            migration::parse_deferred_sk("DEFERRED#o100#sku-1").expect("parses"),
            (order, sku)
        );
    }

    #[test]
    fn line_item_keys_are_the_source_designs() {
        let sku = Sku::parse("sku-1").expect("valid");
        assert_eq!(line_item::pk(&o100()), "ORDER#o100");
        assert_eq!(line_item::sk(&sku), "ITEM#sku-1");
        assert_eq!(line_item::parse_sk("ITEM#sku-1"), Ok(sku));
        assert_eq!(line_item::parse_pk("ORDER#o100"), Ok(o100()));
    }

    #[test]
    fn order_header_and_idempotency_keys() {
        assert_eq!(order_header::pk(&o100()), "ORDER#o100");
        assert_eq!(order_header::SK, "HEADER");
        // The header sorts before every line item of its order, ITEM$ after them all.
        assert!(order_header::SK < line_item::SK_PREFIX);
        assert!(line_item::sk(&Sku::parse("zzz").expect("valid")).as_str() < line_item::SK_END);
        let key = IdempotencyKey::parse("k-1").expect("valid");
        assert_eq!(idempotency::pk(&c1(), &key), "IDEMPOTENCY#c1#k-1");
        assert_eq!(idempotency::SK, "RESPONSE");
    }

    #[test]
    fn counted_orders_sit_before_the_listings_in_their_customers_partition() {
        assert_eq!(counted_order::pk(&c1()), "CUSTOMER#c1");
        assert_eq!(counted_order::sk(&o100()), "COUNTED#o100");
        assert_eq!(counted_order::parse_sk("COUNTED#o100"), Ok(o100()));
        assert!(counted_order::parse_sk("ORDER#o100").is_err());
        let (lo, hi) = counted_order::with_listings_range();
        assert_eq!((lo.as_str(), hi.as_str()), ("COUNTED#", "ORDER$"));
        // The count of PLACED orders is outside every range read over the partition.
        assert!(placed_orders::SK > hi.as_str() && placed_orders::SK < customer::PROFILE_SK);
        assert!(!placed_orders::SK.starts_with(order_listing::SK_PREFIX));
        let listing = order_listing::sk(placed(), &o100());
        let counted = counted_order::sk(&OrderId::parse("zzz").expect("valid"));
        for sk in [counted.as_str(), listing.as_str()] {
            assert!(lo.as_str() <= sk && sk <= hi.as_str(), "{sk}");
        }
        assert!(customer::PROFILE_SK > hi.as_str());
    }

    #[test]
    fn product_and_catalog_keys() {
        let sku = Sku::parse("sku-1").expect("valid");
        assert_eq!(product::pk(&sku), "PRODUCT#sku-1");
        assert_eq!(product::SK, "PRODUCT");
        assert_eq!(product::parse_pk("PRODUCT#sku-1"), Ok(sku.clone()));
        assert_eq!(catalog::sk(&sku), "PRODUCT#sku-1");
        assert_eq!(catalog::parse_sk("PRODUCT#sku-1"), Ok(sku.clone()));
        // Fixed values: a shard that moved between releases would hide products.
        let shards: Vec<u32> = ["sku-1", "sku-2", "sku-3", "sku-4", "a", "B"]
            .iter()
            .map(|raw| catalog::shard(&Sku::parse(raw).expect("valid")))
            .collect();
        assert_eq!(shards, [0, 1, 2, 3, 0, 1]);
        assert_eq!(catalog::pk(catalog::shard(&sku)), "CATALOG#0");
    }

    #[test]
    fn parsers_reject_keys_of_other_shapes() {
        assert!(customer::parse_pk("ORDER#o100").is_err());
        assert!(customer::parse_pk("CUSTOMER#").is_err());
        assert!(order_listing::parse_sk("PROFILE").is_err());
        assert!(order_listing::parse_sk("ORDER#o100").is_err());
        assert!(order_listing::parse_sk("ORDER#not-a-time#o100").is_err());
        assert!(order_listing::parse_gsi1pk("STATUS#LOST").is_err());
        assert!(line_item::parse_sk("ITEM#").is_err());
        assert!(line_item::parse_sk("ITEM#a#b").is_err());
    }

    #[test]
    fn sort_key_range_brackets_exactly_the_orders_in_the_window() {
        let (lo, hi) = order_listing::sk_range(None, None);
        assert_eq!((lo.as_str(), hi.as_str()), ("ORDER#", "ORDER$"));
        let sk = order_listing::sk(placed(), &o100());
        assert!(lo.as_str() <= sk.as_str() && sk.as_str() <= hi.as_str());
        assert!(hi.as_str() < customer::PROFILE_SK);

        // from is inclusive, to exclusive
        let (lo, hi) = order_listing::sk_range(Some(placed()), None);
        assert!(lo <= sk && sk <= hi);
        let (lo, hi) = order_listing::sk_range(None, Some(placed()));
        assert!(!(lo <= sk && sk <= hi));
        let later = Timestamp::parse("2026-10-08T14:30:01Z").expect("valid");
        let (lo, hi) = order_listing::sk_range(Some(placed()), Some(later));
        assert_eq!(
            (lo.as_str(), hi.as_str()),
            ("ORDER#2026-10-08T14:30:00Z", "ORDER#2026-10-08T14:30:01Z")
        );
        assert!(lo <= sk && sk <= hi);
    }

    #[test]
    fn every_entity_is_known_by_the_keys_its_builders_write() {
        use entity::Entity;
        let sku = Sku::parse("sku-1").expect("sku");
        let key = IdempotencyKey::parse("k-1").expect("key");
        let cases = [
            (
                customer::pk(&c1()),
                customer::PROFILE_SK.to_string(),
                Entity::Customer,
            ),
            (
                order_listing::pk(&c1()),
                order_listing::sk(placed(), &o100()),
                Entity::OrderListing,
            ),
            (
                line_item::pk(&o100()),
                line_item::sk(&sku),
                Entity::LineItem,
            ),
            (
                order_header::pk(&o100()),
                order_header::SK.to_string(),
                Entity::OrderHeader,
            ),
            (
                counted_order::pk(&c1()),
                counted_order::sk(&o100()),
                Entity::CountedOrder,
            ),
            (
                placed_orders::pk(&c1()),
                placed_orders::SK.to_string(),
                Entity::OpenOrderCount,
            ),
            (product::pk(&sku), product::SK.to_string(), Entity::Product),
            (
                catalog::pk(catalog::shard(&sku)),
                catalog::sk(&sku),
                Entity::CatalogEntry,
            ),
            (
                idempotency::pk(&c1(), &key),
                idempotency::SK.to_string(),
                Entity::IdempotencyRecord,
            ),
            (
                migration::pk("0001-line-item-gsi2"),
                migration::STATUS_SK.to_string(),
                Entity::MigrationState,
            ),
        ];
        for (pk, sk, entity) in &cases {
            assert_eq!(Entity::of(pk, sk), Some(*entity), "{pk} {sk}");
        }
        let named: Vec<Entity> = cases.iter().map(|(_, _, e)| *e).collect();
        assert_eq!(named, Entity::ALL, "every entity, in the legend's order");
        for (pk, sk) in [
            (warm_up::PK, warm_up::SK),
            ("CUSTOMER#", "PROFILE"),
            ("CUSTOMER#c1", "OTHER"),
            ("ORDER#o1", "PROFILE"),
            ("PRODUCT#sku-1", "ITEM#x"),
        ] {
            assert_eq!(Entity::of(pk, sk), None, "{pk} {sk}");
        }
    }
}
