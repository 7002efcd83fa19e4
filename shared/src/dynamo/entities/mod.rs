//! One file per stored entity: its key builders and parsers, its codec (the attributes it
//! holds, with their DynamoDB types, written and read through one description), and the
//! attribute names its writes touch. Everything about an item is in its entity's file;
//! `dynamo::keys` holds what entities share: the prefixes, and the registry of which sort keys
//! share a partition, in order.
//!
//! Items are read the way the source design's boto3 code writes them: only the attributes of
//! the key design are required, and what the keys already say (customerId, orderId, placedAt,
//! sku) is taken from the keys.

pub mod cart_line;
pub mod catalog_entry;
pub mod counted_order;
pub mod customer;
pub mod idempotency;
pub mod line_item;
pub mod migration_state;
pub mod open_order_count;
pub mod order_header;
pub mod order_listing;
pub mod payment_event;
pub mod product;
pub mod refund_due;

#[cfg(test)]
mod test_support;

use crate::dynamo::keys::Entity;

/// The attributes each UpdateItem of `entity` may touch beyond its keys, one list per kind of
/// update, as its file declares them; an entity written whole (PutItem, through its codec) has
/// none. template-tests holds what the code sends to these lists and to template.yaml's grants.
pub fn updates(entity: Entity) -> &'static [&'static [&'static str]] {
    match entity {
        Entity::Customer => &[customer::PROFILE_WRITES, customer::STATS_WRITES],
        Entity::OrderListing => &[order_listing::STATUS_CHANGE_WRITES],
        Entity::OrderHeader => &[
            order_header::STATUS_CHANGE_WRITES,
            order_header::PAYMENT_WRITES,
            order_header::HOLD_END_WRITES,
        ],
        Entity::LineItem => &[line_item::GSI2_BACKFILL_WRITES],
        Entity::OpenOrderCount => &[open_order_count::WRITES],
        Entity::Product => &[
            product::CATALOG_WRITES,
            product::ORDER_TAKE_WRITES,
            product::STOCK_WRITES,
        ],
        // Migration state is written by `store-migrate`, under the operator's own policy.
        Entity::CountedOrder
        | Entity::CartLine
        | Entity::CatalogEntry
        | Entity::IdempotencyRecord
        | Entity::PaymentEvent
        | Entity::RefundDue
        | Entity::MigrationState => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::{IdempotencyKey, PaymentEventId, PaymentId, Sku};
    use crate::dynamo::codec::{PK, SK};
    use crate::dynamo::keys::{
        CUSTOMER_PARTITION, Entity, ORDER_PARTITION, Partition, SortKeys, warm_up,
    };
    use test_support::{c1, o100};

    /// Whether every sort key of `keys` is inside the inclusive range `lo..=hi` (`Some(true)`),
    /// none is (`Some(false)`), or some are and some are not (`None`).
    fn inside(keys: SortKeys, lo: &str, hi: &str) -> Option<bool> {
        match keys {
            SortKeys::Exactly(exact) => Some(lo <= exact && exact <= hi),
            // Every key of a prefix is longer than it, and below its highest bound.
            SortKeys::Prefixed(prefix) => {
                let top = keys.highest();
                if lo <= prefix && top.as_str() <= hi {
                    Some(true)
                } else if top.as_str() <= lo || prefix >= hi {
                    Some(false)
                } else {
                    None
                }
            }
        }
    }

    /// What a range read is for, the partition it reads, its bounds and what it means to read.
    type RangeRead = (
        &'static str,
        &'static Partition,
        (String, String),
        Vec<Entity>,
    );

    /// Each range a Query reads over a shared partition, and the entities it means to read.
    fn ranges_the_store_reads() -> Vec<RangeRead> {
        vec![
            (
                "a customer's orders (pattern 2)",
                &CUSTOMER_PARTITION,
                order_listing::sk_range(None, None),
                vec![Entity::OrderListing],
            ),
            (
                "the statistics' recount",
                &CUSTOMER_PARTITION,
                counted_order::with_listings_range(),
                vec![Entity::CountedOrder, Entity::OrderListing],
            ),
            (
                "an order's header and lines (patterns 3, 7)",
                &ORDER_PARTITION,
                ORDER_PARTITION.range(Entity::OrderHeader, Entity::LineItem),
                vec![Entity::OrderHeader, Entity::LineItem],
            ),
            (
                "the source design's begins_with(SK, \"ORDER#\")",
                &CUSTOMER_PARTITION,
                (
                    order_listing::SK_PREFIX.to_owned(),
                    SortKeys::Prefixed(order_listing::SK_PREFIX).highest(),
                ),
                vec![Entity::OrderListing],
            ),
            (
                "a customer's cart (pattern 9)",
                &CUSTOMER_PARTITION,
                (
                    cart_line::SK_PREFIX.to_owned(),
                    SortKeys::Prefixed(cart_line::SK_PREFIX).highest(),
                ),
                vec![Entity::CartLine],
            ),
            (
                "the source design's begins_with(SK, \"ITEM#\")",
                &ORDER_PARTITION,
                (
                    line_item::SK_PREFIX.to_owned(),
                    SortKeys::Prefixed(line_item::SK_PREFIX).highest(),
                ),
                vec![Entity::LineItem],
            ),
        ]
    }

    #[test]
    fn every_range_the_store_reads_holds_only_the_entities_it_names() {
        for (what, partition, (lo, hi), meant) in ranges_the_store_reads() {
            assert!(lo <= hi, "{what}: {lo} > {hi}");
            for (entity, keys) in partition.sort_keys {
                let expected = meant.contains(entity);
                assert_eq!(
                    inside(*keys, &lo, &hi),
                    Some(expected),
                    "{what} ({lo}..={hi}) and {entity:?} ({keys:?})"
                );
            }
        }
    }

    #[test]
    fn the_sort_keys_of_a_shared_partition_are_listed_in_order_and_never_overlap() {
        for partition in [&CUSTOMER_PARTITION, &ORDER_PARTITION] {
            for pair in partition.sort_keys.windows(2) {
                let ((a, a_keys), (b, b_keys)) = (pair[0], pair[1]);
                // Every key of `a` sorts below every key of `b`.
                let below = match (a_keys, b_keys) {
                    (SortKeys::Exactly(x), SortKeys::Exactly(y)) => x < y,
                    _ => a_keys.highest().as_str() <= b_keys.lowest(),
                };
                assert!(
                    below,
                    "{a:?} ({a_keys:?}) must sort wholly below {b:?} ({b_keys:?})"
                );
                assert!(
                    !a_keys.holds(b_keys.lowest()) && !b_keys.holds(a_keys.lowest()),
                    "{a:?} and {b:?} share keys"
                );
            }
        }
    }

    /// A prefix added between the counted orders and the listings would be read, billed and
    /// logged by the recount: the registry check catches it.
    #[test]
    fn an_entity_placed_inside_a_read_range_is_caught() {
        let cart = SortKeys::Prefixed("DRAFT#");
        let (lo, hi) = counted_order::with_listings_range();
        assert_eq!(inside(cart, &lo, &hi), Some(true));
        let after_profile = SortKeys::Exactly("ZZZ");
        assert_eq!(inside(after_profile, &lo, &hi), Some(false));
        let straddling = SortKeys::Prefixed("ORDER$");
        assert_eq!(inside(straddling, "ORDER#", "ORDER$x"), None);
    }

    #[test]
    fn every_entity_is_known_by_the_keys_its_builders_write() {
        let sku = Sku::parse("sku-1").expect("sku");
        let key = IdempotencyKey::parse("k-1").expect("key");
        let written = [
            (customer::key(&c1()), Entity::Customer),
            (
                order_listing::key(&test_support::order(
                    crate::domain::status::OrderStatus::Placed,
                )),
                Entity::OrderListing,
            ),
            (line_item::key(&o100(), &sku), Entity::LineItem),
            (order_header::key(&o100()), Entity::OrderHeader),
            (counted_order::key(&c1(), &o100()), Entity::CountedOrder),
            (open_order_count::key(&c1()), Entity::OpenOrderCount),
            (product::key(&sku), Entity::Product),
            (
                crate::dynamo::codec::primary_key(
                    catalog_entry::pk(catalog_entry::shard(&sku)),
                    catalog_entry::sk(&sku),
                ),
                Entity::CatalogEntry,
            ),
            (idempotency::key(&c1(), &key), Entity::IdempotencyRecord),
            (
                migration_state::status_key("0001-line-item-gsi2"),
                Entity::MigrationState,
            ),
            (cart_line::key(&c1(), &sku), Entity::CartLine),
            (
                payment_event::key(&PaymentEventId::parse("evt_1").expect("id")),
                Entity::PaymentEvent,
            ),
            (
                refund_due::key(&PaymentId::parse("pi_1").expect("id")),
                Entity::RefundDue,
            ),
        ];
        for (item, entity) in &written {
            let pk = PK.get(item).expect("PK");
            let sk = SK.get(item).expect("SK");
            assert_eq!(Entity::of(&pk, &sk), Some(*entity), "{pk} {sk}");
        }
        let named: Vec<Entity> = written.iter().map(|(_, e)| *e).collect();
        assert_eq!(named, Entity::ALL, "every entity, in the legend's order");
        for (pk, sk) in [
            (warm_up::PK, warm_up::SK),
            ("CUSTOMER#", "PROFILE"),
            ("CUSTOMER#c1", "OTHER"),
            ("CUSTOMER#c1", "ORDER#"),
            ("ORDER#o1", "PROFILE"),
            ("PRODUCT#sku-1", "ITEM#x"),
        ] {
            assert_eq!(Entity::of(pk, sk), None, "{pk} {sk}");
        }
    }
}
