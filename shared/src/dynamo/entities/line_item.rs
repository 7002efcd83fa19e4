//! An order's line item, `ORDER#<orderId>` / `ITEM#<sku>` with quantity and price (access
//! pattern 3, an order's line items: Query on PK), in the order's partition after its header.
//! Each line also carries the GSI2 keys `PRODUCT#<sku>` / `<placedAt>#<orderId>`, the inverted
//! view that answers access pattern 8 (a product's orders, newest first: Query on GSI2PK). A
//! SKU whose stock is split over shards lists its lines over as many GSI2 partitions,
//! `PRODUCT#<sku>#<k>` for k ≥ 1 (the shard the buyer started on), so a flash sale's line items
//! do not all write one partition. Line items written before GSI2 get them from the migration
//! `0001-line-item-gsi2` (`store-migrate`).

use crate::domain::ids::{CustomerId, OrderId, Sku};
use crate::domain::money::Money;
use crate::domain::order::{LineBack, LineItem, Order, ProductOrderLine};
use crate::domain::product::OptionValues;
use crate::domain::stock_shards::{ShardCount, ShardIndex};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, SK, primary_key};
use crate::dynamo::entities::variant;
use crate::dynamo::keys::{self, Entity, ITEM_PREFIX, MalformedKey, ORDER_PREFIX, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::{Change, PutSpec, UpdateSpec};

record! {
    /// What a line item stores of the line: quantity and price, as the source design writes
    /// them.
    pub Record stores LineItem beside (sku: Sku) {
        /// How many.
        quantity: u32 = QUANTITY "quantity", required, source;
        /// The price of one, as ordered.
        price: Money = PRICE "price", required, source;
        /// The product's title when ordered (absent on lines kept before orders kept it).
        title: String = TITLE "title", optional, store;
        /// The variant's options when ordered.
        options: OptionValues = OPTIONS "options", empty, store;
        /// What the promotions took off the line (a checked-out order's).
        discount: Money = DISCOUNT "discount", optional, store;
        /// The line's tax (a checked-out order's).
        tax: Money = TAX "tax", optional, store;
    }
}

/// The order's customer: what a product's orders show beside the line (access pattern 8).
pub const CUSTOMER_ID: Attr<CustomerId> = Attr::new("customerId");
/// GSI2's partition key: the line's product.
pub const GSI2PK: Attr<String> = Attr::new(keys::GSI2PK);
/// GSI2's sort key: when the order was placed, and which.
pub const GSI2SK: Attr<String> = Attr::new(keys::GSI2SK);

/// How many of the line were refunded.
pub const REFUNDED_QUANTITY: Attr<u32> = Attr::new("refundedQuantity");
/// How many of the line went back into stock.
pub const RESTOCKED_QUANTITY: Attr<u32> = Attr::new("restockedQuantity");
/// How many of the line will never ship: cancelled, or refunded before they shipped.
pub const CANCELLED_QUANTITY: Attr<u32> = Attr::new("cancelledQuantity");
/// How many of the line came back in returns (received, damaged or not).
pub const RETURNED_QUANTITY: Attr<u32> = Attr::new("returnedQuantity");
/// A change of how many of the line were refunded: a refund that FAILED (or was REVERSED)
/// gives its units back to the line, so they may be refunded again.
pub const REFUNDED_CHANGE: Attr<i64> = Attr::new(REFUNDED_QUANTITY.name);
/// A refund of the line's quantities (with restock, or a cancellation's stock back), or a
/// failed refund's given back: counted on the line. The header's refund count, in the same
/// transaction, keeps two racing refunds from counting on the same read; the restocked count
/// as read, two writers from putting the same units back into stock.
pub const BACK: UpdateSpec = UpdateSpec {
    add: &[
        REFUNDED_QUANTITY.name,
        RESTOCKED_QUANTITY.name,
        CANCELLED_QUANTITY.name,
        RETURNED_QUANTITY.name,
    ],
    ..UpdateSpec::of(Entity::LineItem)
};

/// `back` (an update of the line by [`BACK`]) putting `quantity` more of it back into stock, on
/// the condition that its restocked count is still `restocked`, as the order was read: of a
/// refund and a cancellation putting the same units back, one does, and the other reads again.
pub fn restocked(back: Change, quantity: u32, restocked: u32) -> Change {
    back.add(&RESTOCKED_QUANTITY, &quantity)
        .condition(if restocked == 0 {
            "attribute_not_exists(#restockedQuantity) OR #restockedQuantity = :restocked"
        } else {
            "#restockedQuantity = :restocked"
        })
        .value(":restocked", &RESTOCKED_QUANTITY, &restocked)
}

/// What of the line went back, as its item says.
pub fn back(item: &Item) -> LineBack {
    LineBack {
        refunded: REFUNDED_QUANTITY.get(item).unwrap_or(0),
        restocked: RESTOCKED_QUANTITY.get(item).unwrap_or(0),
        cancelled: CANCELLED_QUANTITY.get(item).unwrap_or(0),
        returned: RETURNED_QUANTITY.get(item).unwrap_or(0),
    }
}

/// What the GSI2 backfill adds to a line written before GSI2 (`store-migrate`'s UpdateItem).
pub const GSI2_BACKFILL: UpdateSpec = UpdateSpec {
    set: &[CUSTOMER_ID.name, GSI2PK.name, GSI2SK.name],
    ..UpdateSpec::of(Entity::LineItem)
};
/// What placing an order writes of each line.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::LineItem,
    attributes: &[
        keys::PK,
        keys::SK,
        QUANTITY.name,
        PRICE.name,
        TITLE.name,
        OPTIONS.name,
        DISCOUNT.name,
        TAX.name,
        CUSTOMER_ID.name,
        GSI2PK.name,
        GSI2SK.name,
    ],
};

/// The order's partition key: its header's and its lines'.
pub fn pk(order: &OrderId) -> String {
    format!("{ORDER_PREFIX}{order}")
}

/// The line's sort key.
pub fn sk(sku: &Sku) -> String {
    format!("{ITEM_PREFIX}{sku}")
}

/// Every line item sort key starts with this.
pub const SK_PREFIX: &str = ITEM_PREFIX;

/// The order a partition key names.
pub fn parse_pk(pk: &str) -> Result<OrderId, MalformedKey> {
    pk.strip_prefix(ORDER_PREFIX)
        .and_then(|raw| OrderId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::PK, pk))
}

/// The SKU a line's sort key names.
pub fn parse_sk(sk: &str) -> Result<Sku, MalformedKey> {
    sk.strip_prefix(ITEM_PREFIX)
        .and_then(|raw| Sku::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// `sk` is byte for byte a line item's sort key as this store writes it.
pub fn is_canonical_sk(sk: &str) -> bool {
    parse_sk(sk).is_ok_and(|sku| sk == self::sk(&sku))
}

/// The product's orders in GSI2 partition `k`: partition 0 is the product item's own key
/// string; `k` ≥ 1 (a sharded SKU's) `PRODUCT#<sku>#<k>`.
pub fn gsi2pk(sku: &Sku, k: ShardIndex) -> String {
    if k == ShardIndex::VARIANT {
        variant::pk(sku)
    } else {
        format!("{}#{k}", variant::pk(sku))
    }
}

/// The GSI2 partition of `order`'s line of a SKU whose orders are spread over `shards`: that
/// of the stock shard its buyer started on.
pub fn gsi2_partition(order: &OrderId, shards: ShardCount) -> ShardIndex {
    shards.start_for(order.as_str().as_bytes())
}

/// The line's GSI2 sort key.
pub fn gsi2sk(placed_at: Timestamp, order: &OrderId) -> String {
    format!("{placed_at}#{order}")
}

/// The SKU, and the partition of its orders, a GSI2 partition key names.
pub fn parse_gsi2pk(gsi2pk: &str) -> Result<(Sku, ShardIndex), MalformedKey> {
    let bad = || malformed(keys::GSI2PK, gsi2pk);
    match gsi2pk.rsplit_once('#') {
        Some((pk, k)) if pk.contains('#') => {
            let k = ShardIndex::parse_extra(k).ok_or_else(bad)?;
            Ok((variant::parse_pk(pk).map_err(|_| bad())?, k))
        }
        _ => Ok((
            variant::parse_pk(gsi2pk).map_err(|_| bad())?,
            ShardIndex::VARIANT,
        )),
    }
}

/// When, and which order, a GSI2 sort key names.
pub fn parse_gsi2sk(gsi2sk: &str) -> Result<(Timestamp, OrderId), MalformedKey> {
    gsi2sk
        .rsplit_once('#')
        .and_then(|(at, id)| Some((Timestamp::parse(at).ok()?, OrderId::parse(id).ok()?)))
        .ok_or_else(|| malformed(keys::GSI2SK, gsi2sk))
}

/// Inclusive bounds for `GSI2SK BETWEEN :lo AND :hi` selecting the orders placed in
/// `[from, to)`; either end may be open.
pub fn gsi2sk_range(from: Option<Timestamp>, to: Option<Timestamp>) -> (String, String) {
    // `<from>` sorts before every `<from>#<orderId>`; `<to>` before every `<to>#<orderId>`, so
    // orders placed at `to` are out. Every timestamp starts with a digit: "0" is below them all
    // and ":" (after '9') above.
    let lo = from.map_or_else(|| "0".to_owned(), |from| from.to_string());
    let hi = to.map_or_else(|| ":".to_owned(), |to| to.to_string());
    (lo, hi)
}

/// The line's key.
pub fn key(order: &OrderId, sku: &Sku) -> Item {
    primary_key(pk(order), sk(sku))
}

/// The line as the source design's boto3 code writes it: quantity and price.
pub fn source_design_item(order: &OrderId, line: &LineItem) -> Item {
    let mut item = key(order, &line.sku);
    Record::write(&mut item, line);
    item
}

/// The line as this store writes it: the source design's attributes, and what GSI2 lists (the
/// order's customer, and the keys that put the line under its product, in the partition of
/// its SKU's `shards` that its buyer started on).
pub fn to_item(order: &Order, line: &LineItem, shards: ShardCount) -> Item {
    let mut item = source_design_item(&order.order_id, line);
    CUSTOMER_ID.put(&mut item, &order.customer_id);
    let k = gsi2_partition(&order.order_id, shards);
    GSI2PK.put(&mut item, &gsi2pk(&line.sku, k));
    GSI2SK.put(&mut item, &gsi2sk(order.placed_at, &order.order_id));
    item
}

/// The line an item holds, in the source design's shape (quantity and price).
pub fn from_item(mut item: Item) -> Result<LineItem, BadItem> {
    let sku = parse_sk(&SK.take(&mut item)?)?;
    Record::read(&mut item, sku)
}

/// A line as GSI2 projects it: the order from the table's key, the time from GSI2's.
pub fn product_order_from_item(mut item: Item) -> Result<ProductOrderLine, BadItem> {
    let (placed_at, order_id) = parse_gsi2sk(&GSI2SK.take(&mut item)?)?;
    Ok(ProductOrderLine {
        order_id,
        customer_id: CUSTOMER_ID.take(&mut item)?,
        placed_at,
        quantity: QUANTITY.take(&mut item)?,
        price: PRICE.take(&mut item)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::status::OrderStatus;
    use crate::dynamo::entities::test_support::{n, o100, order, pairs, placed, s, shape, sku1};

    #[test]
    fn line_item_keys_are_the_source_designs() {
        assert_eq!(pk(&o100()), "ORDER#o100");
        assert_eq!(sk(&sku1()), "ITEM#sku-1");
        assert_eq!(parse_sk("ITEM#sku-1"), Ok(sku1()));
        assert_eq!(parse_pk("ORDER#o100"), Ok(o100()));
        assert!(parse_sk("ITEM#").is_err());
        assert!(parse_sk("ITEM#a#b").is_err());
    }

    #[test]
    fn a_line_items_gsi2_keys_invert_it_under_its_product() {
        let (at, sku, order) = (placed(), sku1(), o100());
        assert_eq!(gsi2pk(&sku, ShardIndex::VARIANT), "PRODUCT#sku-1");
        let third = ShardIndex::parse_extra("3").expect("shard");
        assert_eq!(gsi2pk(&sku, third), "PRODUCT#sku-1#3");
        assert_eq!(
            parse_gsi2pk("PRODUCT#sku-1#3").expect("parses"),
            (sku.clone(), third)
        );
        for bad in [
            "PRODUCT#sku-1#0",
            "PRODUCT#sku-1#03",
            "PRODUCT#sku-1#32",
            "PRODUCT#",
        ] {
            assert!(parse_gsi2pk(bad).is_err(), "{bad}");
        }
        assert_eq!(gsi2sk(at, &order), "2026-10-08T14:30:00Z#o100");
        assert_eq!(
            parse_gsi2sk("2026-10-08T14:30:00Z#o100").expect("parses"),
            (at, order.clone())
        );
        assert_eq!(
            parse_gsi2pk("PRODUCT#sku-1").expect("parses"),
            (sku.clone(), ShardIndex::VARIANT)
        );
        for bad in [
            "2026-10-08T14:30:00Z",
            "yesterday#o1",
            "2026-10-08T14:30:00Z#o#1",
        ] {
            assert!(parse_gsi2sk(bad).is_err(), "{bad}");
        }
        let (lo, hi) = gsi2sk_range(None, None);
        assert!(lo.as_str() < "0000-01-01T00:00:00Z#a" && "9999-12-31T23:59:59Z#z" < hi.as_str());
        let (_, hi) = gsi2sk_range(None, Some(at));
        assert!(gsi2sk(at, &order) > hi, "an order placed at `to` is out");
    }

    #[test]
    fn a_line_item_is_written_in_the_source_designs_shape_and_reads_back() {
        let line = LineItem::untitled(sku1(), 2, Money::parse_number("19.95").expect("money"));
        let item = source_design_item(&o100(), &line);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S ORDER#o100"),
                ("SK", "S ITEM#sku-1"),
                ("price", "N 19.95"),
                ("quantity", "N 2"),
            ])
        );
        assert_eq!(from_item(item).expect("reads"), line);
    }

    #[test]
    fn this_stores_line_item_also_carries_its_customer_and_its_place_under_the_product() {
        let line = LineItem::untitled(sku1(), 2, Money::parse_number("19.95").expect("money"));
        let order = order(OrderStatus::Placed);
        let item = to_item(&order, &line, ShardCount::ONE);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("GSI2PK", "S PRODUCT#sku-1"),
                ("GSI2SK", "S 2026-10-08T14:30:00Z#o100"),
                ("PK", "S ORDER#o100"),
                ("SK", "S ITEM#sku-1"),
                ("customerId", "S c1"),
                ("price", "N 19.95"),
                ("quantity", "N 2"),
            ])
        );
        assert_eq!(from_item(item.clone()).expect("reads"), line);
        let listed = product_order_from_item(item).expect("reads as GSI2 lists it");
        assert_eq!(
            (
                listed.order_id,
                listed.customer_id,
                listed.placed_at,
                listed.quantity
            ),
            (order.order_id, order.customer_id, order.placed_at, 2)
        );
        assert_eq!(listed.price, line.price);
    }

    #[test]
    fn a_sharded_skus_lines_are_listed_over_its_partitions_where_their_buyers_started() {
        let line = LineItem::untitled(sku1(), 1, Money::parse_number("5").expect("money"));
        let eight = ShardCount::new(8).expect("count");
        let mut order = order(OrderStatus::Placed);
        let mut seen = std::collections::BTreeSet::new();
        for id in 0..64 {
            order.order_id = OrderId::parse(&format!("o{id}")).expect("id");
            let k = gsi2_partition(&order.order_id, eight);
            assert_eq!(k, eight.start_for(order.order_id.as_str().as_bytes()));
            let item = to_item(&order, &line, eight);
            let listed = GSI2PK.get(&item).expect("GSI2PK");
            assert_eq!(parse_gsi2pk(&listed).expect("parses"), (sku1(), k));
            seen.insert(listed);
        }
        assert_eq!(seen.len(), 8, "{seen:?}");
        assert!(seen.contains("PRODUCT#sku-1") && seen.contains("PRODUCT#sku-1#7"));
    }

    #[test]
    fn the_source_designs_line_item_reads_exactly() {
        let item = Item::from([
            ("PK".into(), s("ORDER#o100")),
            ("SK".into(), s("ITEM#sku-1")),
            ("quantity".into(), n("2")),
            ("price".into(), n("19.95")),
        ]);
        let line = from_item(item).expect("reads");
        assert_eq!(line.sku.as_str(), "sku-1");
        assert_eq!(line.quantity, 2);
        assert_eq!(line.price.to_string(), "19.95");
    }

    #[test]
    fn a_line_without_a_whole_quantity_is_refused() {
        let item = Item::from([
            ("PK".into(), s("ORDER#o100")),
            ("SK".into(), s("ITEM#sku-1")),
            ("quantity".into(), n("2.5")),
            ("price".into(), n("19.95")),
        ]);
        assert!(from_item(item).is_err());
    }
}
