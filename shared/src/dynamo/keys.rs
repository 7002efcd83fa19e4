//! The key design's shared parts: the attribute names of the table's and the indexes' keys,
//! the prefixes every key starts with, and the registry of which entities share a partition and
//! in what order their sort keys fall. Each entity's own key builders and parsers live in its
//! file under `dynamo::entities`; the README numbers the access patterns each key serves.
//!
//! | entity | PK | SK | serves |
//! |---|---|---|---|
//! | Customer | `CUSTOMER#<customerId>` | `PROFILE` | 1 |
//! | Order listing | `CUSTOMER#<customerId>` | `ORDER#<placedAt>#<orderId>` | 2, 4 (GSI1: `STATUS#<status>[#<k>]` / `<placedAt>`) |
//! | Line item | `ORDER#<orderId>` | `ITEM#<sku>` | 3, 8 (GSI2: `PRODUCT#<sku>` / `<placedAt>#<orderId>`) |
//! | Order header | `ORDER#<orderId>` | `HEADER` | 7 |
//! | Order as counted | `CUSTOMER#<customerId>` | `COUNTED#<orderId>` | statistics |
//! | Open-order count | `CUSTOMER#<customerId>` | `PLACED_ORDERS` | the cap on open orders |
//! | Product | `PRODUCT#<productId>` | `DETAILS` | 12 (GSI3: `PRODUCT#<productId>` / `DETAILS`) |
//! | Variant | `PRODUCT#<sku>` | `PRODUCT` | 5, 12 (GSI3: `PRODUCT#<productId>` / `VARIANT#<sku>`), orders |
//! | Stock shard | `STOCK#<sku>#<n>` | `STOCK` | a flash sale's checkouts, on n ≥ 1 |
//! | Catalog entry | `CATALOG#<shard>` | `PRODUCT#<productId>` | 6 |
//! | Category | `CATEGORIES` | `CATEGORY#<categoryId>` | 13 |
//! | Category tree | `CATEGORIES` | `VERSION` | the tree written one change at a time |
//! | Category listing | `PRODUCT#<productId>` | `LISTED#<categoryId>#<order>` | 14 (GSI3: `CATEGORY#<categoryId>#<order>` / `<price or createdAt>#<productId>`) |
//! | Product picture | `PRODUCT#<productId>` | `MEDIA#<mediaId>` | 12, once it shows (GSI3: `PRODUCT#<productId>` / `MEDIA#<rank>#<mediaId>`) |
//! | Shipping option | `SHIPPING` | `OPTION#<optionId>` | the options serving an address (one Query) |
//! | Tax rate | `TAX` | `COUNTRY#<country>` | the tax where an order goes (one GetItem) |
//! | Promotion | `PROMOTIONS` | `PROMOTION#<promotionId>` | the price of a cart (one Query) |
//! | Promotion code | `PROMOTIONS` | `CODE#<code>` | a code names one promotion |
//! | Promotion uses | `PROMOTION#<promotionId>` | `USES`, `USES#<customerId>` | a limit counted in the checkout |
//! | Idempotency record | `IDEMPOTENCY#<customerId>#<key>` | `RESPONSE` | retried POSTs |
//! | Migration state | `MIGRATION#<name>` | `STATUS`, `SEGMENT#<total>#<i>`, `DEFERRED#<orderId>#<sku>`, `UNPLACEABLE#<PK>#<SK>` | `store-migrate` |
//! | Cart line | `CUSTOMER#<customerId>` | `CART#<sku>` | 9 |
//! | Cart version | `CUSTOMER#<customerId>` | `CART` | the cap on a cart's lines; the customer is one |
//! | Applied payment event | `PAYMENT_EVENT#<eventId>` | `APPLIED` | the webhook, at most once |
//! | Payment's order | `PAYMENT#<paymentId>` | `ORDER` | a dispute's order |
//! | Refund due | `REFUND#<paymentId>` | `REFUND` | 10 (GSI1: `REFUNDS#<status>` / `<requestedAt>`) |
//! | Order refund | `ORDER#<orderId>` | `REFUND#<refundId>` | 10, the ledger (GSI1: `REFUNDS#<status>` / `<requestedAt>`) |
//! | Unread provider event | `UNREAD_EVENT#<sha256>` | `RAW` | a person's look (GSI1: `UNREAD_EVENTS` / `<receivedAt>`) |
//! | Customer email | `EMAIL#<eventId>` | `EMAIL` | one email per event |
//! | Fulfilment | `ORDER#<orderId>` | `FULFILMENT#<fulfilmentId>` | 7, the order's shipments |
//! | Cancellation | `ORDER#<orderId>` | `CANCELLATION#<cancellationId>` | 7, the order's cancelled lines |
//! | Order return | `ORDER#<orderId>` | `RETURN#<returnId>` | 7, 11 (GSI1: `RETURNS#<status>` / `<requestedAt>`) |
//!
//! The table above is tested against [`Entity::keys`] (and so is the README's), and the order
//! of sort keys within a shared partition against [`CUSTOMER_PARTITION`] and
//! [`ORDER_PARTITION`].

use std::fmt;

/// Attribute names of the table's and its indexes' keys.
pub const PK: &str = "PK";
/// The table's sort key attribute.
pub const SK: &str = "SK";
/// GSI1's partition key attribute.
pub const GSI1PK: &str = "GSI1PK";
/// GSI1's sort key attribute.
pub const GSI1SK: &str = "GSI1SK";
/// The index of orders by status.
pub const GSI1: &str = "GSI1";
/// GSI2's partition key attribute.
pub const GSI2PK: &str = "GSI2PK";
/// GSI2's sort key attribute.
pub const GSI2SK: &str = "GSI2SK";
/// The index of orders by product.
pub const GSI2: &str = "GSI2";
/// GSI3's partition key attribute.
pub const GSI3PK: &str = "GSI3PK";
/// GSI3's sort key attribute.
pub const GSI3SK: &str = "GSI3SK";
/// The catalog's index: a product with its variants and pictures.
pub const GSI3: &str = "GSI3";

/// The prefixes keys start with; an ID never holds `#`, so a prefix ends where the ID begins.
pub const CUSTOMER_PREFIX: &str = "CUSTOMER#";
/// Orders: a customer's listings' sort keys, and an order's partition.
pub const ORDER_PREFIX: &str = "ORDER#";
/// An order's line items' sort keys.
pub const ITEM_PREFIX: &str = "ITEM#";
/// An order's fulfilments' sort keys.
pub const FULFILMENT_PREFIX: &str = "FULFILMENT#";
/// An order's cancellations' sort keys.
pub const CANCELLATION_PREFIX: &str = "CANCELLATION#";
/// An order's returns' sort keys.
pub const RETURN_PREFIX: &str = "RETURN#";
/// GSI1's partitions of returns: a status.
pub const RETURNS_GSI1_PREFIX: &str = "RETURNS#";
/// GSI1's partitions: a status (and its shard).
pub const STATUS_PREFIX: &str = "STATUS#";
/// Idempotency records' partitions.
pub const IDEMPOTENCY_PREFIX: &str = "IDEMPOTENCY#";
/// Counted orders' sort keys.
pub const COUNTED_PREFIX: &str = "COUNTED#";
/// Products' and variants' partitions, catalog entries' sort keys, GSI2's and GSI3's
/// partitions.
pub const PRODUCT_PREFIX: &str = "PRODUCT#";
/// Stock shards' partitions: `STOCK#<sku>#<n>`.
pub const STOCK_PREFIX: &str = "STOCK#";
/// A stock shard's sort key.
pub const STOCK_SK: &str = "STOCK";
/// Variants' GSI3 sort keys.
pub const VARIANT_PREFIX: &str = "VARIANT#";
/// The partition of every category.
pub const CATEGORIES_PK: &str = "CATEGORIES";
/// Categories' sort keys, and their listings' GSI3 partitions.
pub const CATEGORY_PREFIX: &str = "CATEGORY#";
/// A product's listings' sort keys.
pub const LISTED_PREFIX: &str = "LISTED#";
/// A product's pictures' sort keys (and GSI3 sort keys, once they show).
pub const MEDIA_PREFIX: &str = "MEDIA#";
/// The partition of every country's tax.
pub const TAX_PK: &str = "TAX";
/// Tax rates' sort keys.
pub const COUNTRY_PREFIX: &str = "COUNTRY#";
/// The partition of every shipping option.
pub const SHIPPING_PK: &str = "SHIPPING";
/// Shipping options' sort keys.
pub const OPTION_PREFIX: &str = "OPTION#";
/// The partition of every promotion and code.
pub const PROMOTIONS_PK: &str = "PROMOTIONS";
/// Promotions' sort keys.
pub const PROMOTION_PREFIX: &str = "PROMOTION#";
/// Promotion codes' sort keys.
pub const CODE_PREFIX: &str = "CODE#";
/// A promotion's count of uses: its sort key (`USES#<customerId>`: one customer's).
pub const USES_SK: &str = "USES";
/// The category tree's version's sort key.
pub const TREE_VERSION_SK: &str = "VERSION";
/// The catalog's partitions.
pub const CATALOG_PREFIX: &str = "CATALOG#";
/// Migrations' partitions.
pub const MIGRATION_PREFIX: &str = "MIGRATION#";
/// A customer's cart lines' sort keys.
pub const CART_PREFIX: &str = "CART#";
/// Applied provider events' partitions.
pub const PAYMENT_EVENT_PREFIX: &str = "PAYMENT_EVENT#";
/// Payments' partitions: the order each collected payment placed.
pub const PAYMENT_PREFIX: &str = "PAYMENT#";
/// Refunds: the partitions of those of payments that name no order, the sort keys of an
/// order's.
pub const REFUND_PREFIX: &str = "REFUND#";
/// GSI1's partitions of refunds, one per status (`REFUNDS#REQUESTED`, ...): no order status's,
/// which start with `STATUS#`.
pub const REFUNDS_GSI1_PREFIX: &str = "REFUNDS#";
/// Signed provider events the store could not read: their partitions.
pub const UNREAD_EVENT_PREFIX: &str = "UNREAD_EVENT#";
/// Customer emails' partitions: one per event emailed about.
pub const EMAIL_PREFIX: &str = "EMAIL#";
/// GSI1's partition of unread provider events.
pub const UNREAD_EVENTS_GSI1PK: &str = "UNREAD_EVENTS";

/// The fixed sort keys of entities that share a partition with others (their entity files name
/// them `SORT_KEY`).
pub const PROFILE_SK: &str = "PROFILE";
/// The cart's version's sort key: before its lines' (`CART#<sku>`), outside their prefix.
pub const CART_VERSION_SK: &str = "CART";
/// The open-order count's sort key.
pub const PLACED_ORDERS_SK: &str = "PLACED_ORDERS";
/// The order header's sort key.
pub const HEADER_SK: &str = "HEADER";
/// The fixed sort keys of entities alone in their partitions: a variant's.
pub const PRODUCT_SK: &str = "PRODUCT";
/// A product's sort key.
pub const DETAILS_SK: &str = "DETAILS";
/// The idempotency record's sort key.
pub const RESPONSE_SK: &str = "RESPONSE";
/// The applied provider event's sort key.
pub const APPLIED_SK: &str = "APPLIED";
/// The sort key of a payment's order.
pub const PAYMENT_ORDER_SK: &str = "ORDER";
/// The refund's sort key.
pub const REFUND_SK: &str = "REFUND";
/// An unread provider event's sort key.
pub const RAW_SK: &str = "RAW";
/// A customer email's sort key.
pub const EMAIL_SK: &str = "EMAIL";

/// FNV-1a of `text`'s bytes: stable across releases and machines, so a shard chosen with it
/// never moves unless its count does.
pub(crate) fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

pub use crate::dynamo::status_shards::StatusShards;

/// A stored key that does not have the shape the key design gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedKey {
    /// Which key attribute.
    pub attribute: &'static str,
    /// What it held.
    pub value: String,
}

impl fmt::Display for MalformedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed {} {:?}", self.attribute, self.value)
    }
}

impl std::error::Error for MalformedKey {}

pub(crate) fn malformed(attribute: &'static str, value: &str) -> MalformedKey {
    MalformedKey {
        attribute,
        value: value.to_owned(),
    }
}

/// The one key every function may read, to open its connection during init: no entity's
/// partition (they all start with a prefix and `#`), so it never holds data.
pub mod warm_up {
    /// Its partition key.
    pub const PK: &str = "WARMUP";
    /// Its sort key.
    pub const SK: &str = "WARMUP";
}

/// How an entity's sort keys are spelled in a partition it shares with other entities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKeys {
    /// One sort key, this one.
    Exactly(&'static str),
    /// Every sort key starts with this prefix (which ends in `#`) and is longer than it.
    Prefixed(&'static str),
}

impl SortKeys {
    /// Whether `sk` is one of these.
    pub fn holds(self, sk: &str) -> bool {
        match self {
            SortKeys::Exactly(exact) => sk == exact,
            SortKeys::Prefixed(prefix) => sk.len() > prefix.len() && sk.starts_with(prefix),
        }
    }

    /// An inclusive lower bound: at or below every one of these sort keys.
    pub fn lowest(self) -> &'static str {
        match self {
            SortKeys::Exactly(text) | SortKeys::Prefixed(text) => text,
        }
    }

    /// An inclusive upper bound: above every one of these sort keys, and below every sort key
    /// that sorts after them all (a prefix with its last character raised by one: `ORDER$` is
    /// above every `ORDER#…`, and no `ORDER#…`).
    pub fn highest(self) -> String {
        match self {
            SortKeys::Exactly(exact) => exact.to_owned(),
            SortKeys::Prefixed(prefix) => {
                let mut chars = prefix.chars();
                let last = chars.next_back().map(u32::from);
                let raised = last.and_then(|c| char::from_u32(c + 1));
                match raised {
                    Some(raised) => format!("{}{raised}", chars.as_str()),
                    None => prefix.to_owned(),
                }
            }
        }
    }
}

/// The entities that share one kind of partition, in the order their sort keys fall. Every range
/// read over such a partition is built from this list ([`Partition::range`]), and a test proves
/// that no entry falls inside another's keys and that each range reads only the entities it
/// names: a new entity added here in the wrong place, or between two that are read together,
/// fails it.
#[derive(Debug)]
pub struct Partition {
    /// The partition key's shape, for the legend.
    pub pk: &'static str,
    /// Each entity and its sort keys, in ascending order.
    pub sort_keys: &'static [(Entity, SortKeys)],
}

/// `CUSTOMER#<customerId>`: a customer's cart version, cart lines, counted orders, order listings, count of
/// open orders and profile, in this order.
pub const CUSTOMER_PARTITION: Partition = Partition {
    pk: "CUSTOMER#<customerId>",
    sort_keys: &[
        (Entity::CartVersion, SortKeys::Exactly(CART_VERSION_SK)),
        (Entity::CartLine, SortKeys::Prefixed(CART_PREFIX)),
        (Entity::CountedOrder, SortKeys::Prefixed(COUNTED_PREFIX)),
        (Entity::OrderListing, SortKeys::Prefixed(ORDER_PREFIX)),
        (Entity::OpenOrderCount, SortKeys::Exactly(PLACED_ORDERS_SK)),
        (Entity::Customer, SortKeys::Exactly(PROFILE_SK)),
    ],
};

/// `ORDER#<orderId>`: an order's cancellations, its fulfilments, its header, then its line
/// items, then its refunds, then its returns.
pub const ORDER_PARTITION: Partition = Partition {
    pk: "ORDER#<orderId>",
    sort_keys: &[
        (
            Entity::Cancellation,
            SortKeys::Prefixed(CANCELLATION_PREFIX),
        ),
        (Entity::Fulfilment, SortKeys::Prefixed(FULFILMENT_PREFIX)),
        (Entity::OrderHeader, SortKeys::Exactly(HEADER_SK)),
        (Entity::LineItem, SortKeys::Prefixed(ITEM_PREFIX)),
        (Entity::OrderRefund, SortKeys::Prefixed(REFUND_PREFIX)),
        (Entity::OrderReturn, SortKeys::Prefixed(RETURN_PREFIX)),
    ],
};

impl Partition {
    /// The sort keys of `entity` here.
    pub fn of(&self, entity: Entity) -> Option<SortKeys> {
        self.sort_keys
            .iter()
            .find(|(e, _)| *e == entity)
            .map(|(_, keys)| *keys)
    }

    /// Inclusive bounds of `SK BETWEEN :lo AND :hi` reading `first`'s sort keys through
    /// `last`'s, and (as the test proves for every range the store reads) nothing else.
    pub fn range(&self, first: Entity, last: Entity) -> (String, String) {
        let lo = self.of(first).map(SortKeys::lowest).unwrap_or_default();
        let hi = self.of(last).map(SortKeys::highest).unwrap_or_default();
        (lo.to_owned(), hi)
    }

    /// Which entity of this partition sort key `sk` belongs to.
    pub fn entity_of(&self, sk: &str) -> Option<Entity> {
        self.sort_keys
            .iter()
            .find(|(_, keys)| keys.holds(sk))
            .map(|(entity, _)| *entity)
    }
}

mod entity;
pub use entity::Entity;

#[cfg(test)]
mod tests {
    use super::*;

    /// The entity, `PK` and `SK` cells of each row of the markdown table in `text` whose header
    /// starts with `| entity | PK | SK |`, backticks dropped.
    fn key_table(text: &str) -> Vec<(String, String, String)> {
        let cell = |raw: &str| raw.trim().replace('`', "");
        text.lines()
            .map(|line| line.trim_start_matches("//!").trim())
            .skip_while(|line| !line.starts_with("| entity | PK | SK |"))
            .skip(2)
            .take_while(|line| line.starts_with('|'))
            .map(|row| {
                let cells: Vec<&str> = row.split('|').collect();
                (cell(cells[1]), cell(cells[2]), cell(cells[3]))
            })
            .collect()
    }

    /// Each entity's name (the explorer's legend) and keys.
    fn registry() -> Vec<(String, String, String)> {
        Entity::ALL
            .iter()
            .map(|e| {
                (
                    e.name().to_owned(),
                    e.keys().0.to_owned(),
                    e.keys().1.to_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn the_key_tables_of_this_file_and_the_readme_are_the_registrys() {
        assert_eq!(key_table(include_str!("keys.rs")), registry(), "keys.rs");
        let readme = include_str!("../../../README.md");
        let mut rows = key_table(readme);
        let mut expected = registry();
        rows.sort();
        expected.sort();
        assert_eq!(
            rows, expected,
            "README.md's key design table: one name per entity, the explorer's"
        );
    }

    #[test]
    fn every_sort_key_a_shared_partition_holds_is_in_its_registry() {
        for (entity, keys) in CUSTOMER_PARTITION.sort_keys {
            assert_eq!(entity.keys().0, CUSTOMER_PARTITION.pk);
            assert!(
                keys.holds(entity.keys().1) || entity.keys().1.starts_with(keys.lowest()),
                "{entity:?}"
            );
        }
        for (entity, keys) in ORDER_PARTITION.sort_keys {
            assert_eq!(entity.keys().0, ORDER_PARTITION.pk);
            assert!(entity.keys().1.starts_with(keys.lowest()), "{entity:?}");
        }
        let in_a_shared_partition =
            |e: &Entity| [CUSTOMER_PARTITION.pk, ORDER_PARTITION.pk].contains(&e.keys().0);
        let registered = CUSTOMER_PARTITION.sort_keys.len() + ORDER_PARTITION.sort_keys.len();
        assert_eq!(
            Entity::ALL
                .iter()
                .filter(|e| in_a_shared_partition(e))
                .count(),
            registered,
            "an entity in a shared partition that its registry does not list"
        );
    }
}
