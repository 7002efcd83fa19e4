//! One codec per stored entity: each module names the entity's attributes once, with their
//! types ([`Attr`]), and both writes and reads the item through them. Update expressions use
//! the same declarations for their names and values.
//!
//! Items are read the way the source design's boto3 code writes them: only the attributes of the key
//! design are required, and what the keys already say (customerId, orderId, placedAt, sku) is
//! taken from the keys.

use crate::dynamo::codec::{Attr, BadItem, Item};
use crate::dynamo::keys;

/// The table's key attributes, as every entity writes them.
pub const PK: Attr<String> = Attr::new(keys::PK);
pub const SK: Attr<String> = Attr::new(keys::SK);

/// An item holding just a primary key.
pub fn key(pk: String, sk: impl Into<String>) -> Item {
    let mut item = Item::with_capacity(2);
    PK.put(&mut item, &pk);
    SK.put(&mut item, &sk.into());
    item
}

/// A customer's profile: `CUSTOMER#<id>` / `PROFILE`, with name and email as the source design writes
/// them, and the order statistics the stream consumer keeps on it. The consumer may count orders
/// before the customer has a name (the source design's boto3 code writes orders without a profile): such an
/// item holds statistics only and is not yet a customer.
pub mod profile {
    use super::*;
    use crate::domain::customer::{Customer, CustomerProfile, OrderStats};
    use crate::domain::money::{Decimal, Money};
    use crate::domain::time::Timestamp;

    pub const NAME: Attr<String> = Attr::new("name");
    pub const EMAIL: Attr<String> = Attr::new("email");
    pub const ORDER_COUNT: Attr<u64> = Attr::new("orderCount");
    pub const TOTAL_SPENT: Attr<Money> = Attr::new("totalSpent");
    pub const LAST_ORDER_AT: Attr<Timestamp> = Attr::new("lastOrderAt");
    /// Set once every order of the customer's partition has been counted (see
    /// `dynamo::stats`); from then on the stream keeps the statistics exact by itself.
    pub const STATS_COMPLETE: Attr<bool> = Attr::new("statsComplete");
    /// What an update adds to the statistics (a change may be negative).
    pub const ORDER_COUNT_CHANGE: Attr<i64> = Attr::new("orderCount");
    pub const TOTAL_SPENT_CHANGE: Attr<Decimal> = Attr::new("totalSpent");

    pub fn key(customer: &crate::domain::ids::CustomerId) -> Item {
        super::key(keys::customer::pk(customer), keys::customer::PROFILE_SK)
    }

    /// The profile as the source design writes it: keys, name and email (no statistics yet).
    pub fn to_item(customer: &Customer) -> Item {
        let mut item = key(&customer.customer_id);
        NAME.put(&mut item, &customer.name);
        EMAIL.put(&mut item, &customer.email);
        item
    }

    pub fn from_item(mut item: Item) -> Result<CustomerProfile, BadItem> {
        let customer_id = keys::customer::parse_pk(&PK.take(&mut item)?)?;
        Ok(CustomerProfile {
            customer: Customer {
                customer_id,
                name: NAME.take(&mut item)?,
                email: EMAIL.take(&mut item)?,
            },
            stats: OrderStats {
                order_count: ORDER_COUNT.take_optional(&mut item)?.unwrap_or(0),
                total_spent: TOTAL_SPENT.take_optional(&mut item)?.unwrap_or_default(),
                last_order_at: LAST_ORDER_AT.take_optional(&mut item)?,
            },
        })
    }
}

/// An order's listing: `CUSTOMER#<id>` / `ORDER#<placedAt>#<orderId>` and GSI1
/// `STATUS#<status>[#<k>]` / `<placedAt>`, in the source design's shape (with one status shard, exactly
/// the source design's keys).
pub mod order_listing {
    use super::*;
    use crate::domain::ids::OrderId;
    use crate::domain::money::Money;
    use crate::domain::order::Order;
    use crate::domain::status::OrderStatus;

    pub const ORDER_ID: Attr<OrderId> = Attr::new("orderId");
    pub const STATUS: Attr<OrderStatus> = Attr::new("status");
    pub const TOTAL: Attr<Money> = Attr::new("total");
    pub const GSI1PK: Attr<String> = Attr::new(keys::GSI1PK);
    pub const GSI1SK: Attr<String> = Attr::new(keys::GSI1SK);

    pub fn key(order: &Order) -> Item {
        super::key(
            keys::order_listing::pk(&order.customer_id),
            keys::order_listing::sk(order.placed_at, &order.order_id),
        )
    }

    pub fn to_item(order: &Order, shards: keys::StatusShards) -> Item {
        let mut item = key(order);
        ORDER_ID.put(&mut item, &order.order_id);
        STATUS.put(&mut item, &order.status);
        TOTAL.put(&mut item, &order.total);
        let shard = shards.of(&order.order_id);
        GSI1PK.put(&mut item, &keys::order_listing::gsi1pk(order.status, shard));
        GSI1SK.put(&mut item, &keys::order_listing::gsi1sk(order.placed_at));
        item
    }

    /// Ids and time from the keys, status and total from the attributes the source design writes.
    pub fn from_item(mut item: Item) -> Result<Order, BadItem> {
        let (placed_at, order_id) = keys::order_listing::parse_sk(&SK.take(&mut item)?)?;
        Ok(Order {
            order_id,
            customer_id: keys::customer::parse_pk(&PK.take(&mut item)?)?,
            placed_at,
            status: STATUS.take(&mut item)?,
            total: TOTAL.take(&mut item)?,
        })
    }
}

/// An order's header: `ORDER#<orderId>` / `HEADER`, what a lookup by order ID needs, beside
/// the line items in the order's own partition.
pub mod header {
    use super::*;
    use crate::domain::ids::{CustomerId, OrderId};
    use crate::domain::order::Order;
    use crate::domain::time::Timestamp;

    pub use super::order_listing::{STATUS, TOTAL};
    pub const CUSTOMER_ID: Attr<CustomerId> = Attr::new("customerId");
    pub const PLACED_AT: Attr<Timestamp> = Attr::new("placedAt");

    pub fn key(order: &OrderId) -> Item {
        super::key(keys::order_header::pk(order), keys::order_header::SK)
    }

    pub fn to_item(order: &Order) -> Item {
        let mut item = key(&order.order_id);
        CUSTOMER_ID.put(&mut item, &order.customer_id);
        PLACED_AT.put(&mut item, &order.placed_at);
        STATUS.put(&mut item, &order.status);
        TOTAL.put(&mut item, &order.total);
        item
    }

    pub fn from_item(mut item: Item) -> Result<Order, BadItem> {
        Ok(Order {
            order_id: keys::line_item::parse_pk(&PK.take(&mut item)?)?,
            customer_id: CUSTOMER_ID.take(&mut item)?,
            placed_at: PLACED_AT.take(&mut item)?,
            status: STATUS.take(&mut item)?,
            total: TOTAL.take(&mut item)?,
        })
    }
}

/// An order's line item: `ORDER#<orderId>` / `ITEM#<sku>`, quantity and price.
pub mod line_item {
    use super::*;
    use crate::domain::ids::{CustomerId, OrderId, Sku};
    use crate::domain::money::Money;
    use crate::domain::order::{LineItem, Order, ProductOrderLine};

    pub const QUANTITY: Attr<u32> = Attr::new("quantity");
    pub const PRICE: Attr<Money> = Attr::new("price");
    /// The order's customer: what a product's orders show beside the line (access pattern 8).
    pub const CUSTOMER_ID: Attr<CustomerId> = Attr::new("customerId");
    pub const GSI2PK: Attr<String> = Attr::new(keys::GSI2PK);
    pub const GSI2SK: Attr<String> = Attr::new(keys::GSI2SK);

    pub fn key(order: &OrderId, sku: &Sku) -> Item {
        super::key(keys::line_item::pk(order), keys::line_item::sk(sku))
    }

    /// The line as the source design's boto3 code writes it: quantity and price.
    pub fn source_design_item(order: &OrderId, line: &LineItem) -> Item {
        let mut item = key(order, &line.sku);
        QUANTITY.put(&mut item, &line.quantity);
        PRICE.put(&mut item, &line.price);
        item
    }

    /// The line as this store writes it: the source design's attributes, and what GSI2 lists
    /// (the order's customer, and the keys that put the line under its product).
    pub fn to_item(order: &Order, line: &LineItem) -> Item {
        let mut item = source_design_item(&order.order_id, line);
        CUSTOMER_ID.put(&mut item, &order.customer_id);
        GSI2PK.put(&mut item, &keys::product_orders::gsi2pk(&line.sku));
        GSI2SK.put(
            &mut item,
            &keys::product_orders::gsi2sk(order.placed_at, &order.order_id),
        );
        item
    }

    pub fn from_item(mut item: Item) -> Result<LineItem, BadItem> {
        Ok(LineItem {
            sku: keys::line_item::parse_sk(&SK.take(&mut item)?)?,
            quantity: QUANTITY.take(&mut item)?,
            price: PRICE.take(&mut item)?,
        })
    }

    /// A line as GSI2 projects it: the order from the table's key, the time from GSI2's.
    pub fn product_order_from_item(mut item: Item) -> Result<ProductOrderLine, BadItem> {
        let (placed_at, order_id) = keys::product_orders::parse_gsi2sk(&GSI2SK.take(&mut item)?)?;
        Ok(ProductOrderLine {
            order_id,
            customer_id: CUSTOMER_ID.take(&mut item)?,
            placed_at,
            quantity: QUANTITY.take(&mut item)?,
            price: PRICE.take(&mut item)?,
        })
    }
}

/// What an `Idempotency-Key` remembers: `IDEMPOTENCY#<customerId>#<key>` / `RESPONSE`, until
/// `expiresAt` (the table's TTL attribute).
pub mod idempotency {
    use super::*;
    use crate::domain::idempotency::IdempotencyRecord;
    use crate::domain::ids::{CustomerId, IdempotencyKey, OrderId};

    pub const FINGERPRINT: Attr<String> = Attr::new("fingerprint");
    pub const ORDER_ID: Attr<OrderId> = Attr::new("orderId");
    pub const RESPONSE: Attr<String> = Attr::new("response");
    pub const EXPIRES_AT: Attr<u64> = Attr::new("expiresAt");

    pub fn key(customer: &CustomerId, idempotency_key: &IdempotencyKey) -> Item {
        super::key(
            keys::idempotency::pk(customer, idempotency_key),
            keys::idempotency::SK,
        )
    }

    pub fn to_item(
        customer: &CustomerId,
        idempotency_key: &IdempotencyKey,
        record: &IdempotencyRecord,
        expires_at: u64,
    ) -> Item {
        let mut item = key(customer, idempotency_key);
        FINGERPRINT.put(&mut item, &record.fingerprint);
        ORDER_ID.put(&mut item, &record.order_id);
        RESPONSE.put(&mut item, &record.response);
        EXPIRES_AT.put(&mut item, &expires_at);
        item
    }

    /// The record and when it expires (0 when the item has no expiry).
    pub fn from_item(mut item: Item) -> Result<(IdempotencyRecord, u64), BadItem> {
        let record = IdempotencyRecord {
            fingerprint: FINGERPRINT.take(&mut item)?,
            order_id: ORDER_ID.take(&mut item)?,
            response: RESPONSE.take(&mut item)?,
        };
        Ok((record, EXPIRES_AT.take_optional(&mut item)?.unwrap_or(0)))
    }
}

/// A product: `PRODUCT#<sku>` / `PRODUCT`, what orders read and change. `version` counts the
/// catalog's changes to it (name, price), so that a replacement never overwrites a concurrent one.
pub mod product {
    use super::*;
    use crate::domain::ids::Sku;
    use crate::domain::money::Money;
    use crate::domain::product::Product;

    pub const NAME: Attr<String> = Attr::new("name");
    pub const PRICE: Attr<Money> = Attr::new("price");
    pub const STOCK: Attr<u64> = Attr::new("stock");
    pub const VERSION: Attr<u64> = Attr::new("version");
    /// What an order takes from or a cancellation gives back to the stock.
    pub const STOCK_CHANGE: Attr<i64> = Attr::new("stock");

    pub fn key(sku: &Sku) -> Item {
        super::key(keys::product::pk(sku), keys::product::SK)
    }

    pub fn to_item(product: &Product, version: u64) -> Item {
        let mut item = key(&product.sku);
        NAME.put(&mut item, &product.name);
        PRICE.put(&mut item, &product.price);
        STOCK.put(&mut item, &product.stock);
        VERSION.put(&mut item, &version);
        item
    }

    /// The product and its version.
    pub fn from_item(mut item: Item) -> Result<(Product, u64), BadItem> {
        let product = Product {
            sku: keys::product::parse_pk(&PK.take(&mut item)?)?,
            name: NAME.take(&mut item)?,
            price: PRICE.take(&mut item)?,
            stock: STOCK.take(&mut item)?,
        };
        Ok((product, VERSION.take_optional(&mut item)?.unwrap_or(0)))
    }
}

/// A catalog entry: `CATALOG#<shard>` / `PRODUCT#<sku>`, a product's name and price again for
/// the listing, in the shard of its SKU.
pub mod catalog_entry {
    use super::*;
    use crate::domain::product::CatalogEntry;

    pub use super::product::{NAME, PRICE};

    pub fn to_item(entry: &CatalogEntry) -> Item {
        let mut item = key(
            keys::catalog::pk(keys::catalog::shard(&entry.sku)),
            keys::catalog::sk(&entry.sku),
        );
        NAME.put(&mut item, &entry.name);
        PRICE.put(&mut item, &entry.price);
        item
    }

    pub fn from_item(mut item: Item) -> Result<CatalogEntry, BadItem> {
        Ok(CatalogEntry {
            sku: keys::catalog::parse_sk(&SK.take(&mut item)?)?,
            name: NAME.take(&mut item)?,
            price: PRICE.take(&mut item)?,
        })
    }
}

/// An order as the statistics count it: `CUSTOMER#<id>` / `COUNTED#<orderId>`, with what it adds
/// to `totalSpent` (its total, or 0 while CANCELLED) and the version of the change that set it.
/// With `countedSpent` the order counts in `orderCount`; without, it was removed (the version
/// stays, so an older change arriving late is recognised). The profile's statistics are always
/// the sum of these, since both change in one transaction.
pub mod counted_order {
    use super::*;
    use crate::domain::ids::{CustomerId, OrderId};
    use crate::domain::money::Decimal;
    use crate::domain::stats::ShareVersion;

    pub const SPENT: Attr<Decimal> = Attr::new("countedSpent");
    pub const VERSION: Attr<ShareVersion> = Attr::new("countedVersion");

    pub fn key(customer: &CustomerId, order: &OrderId) -> Item {
        super::key(
            keys::counted_order::pk(customer),
            keys::counted_order::sk(order),
        )
    }

    pub fn to_item(
        customer: &CustomerId,
        order: &OrderId,
        spent: Option<&Decimal>,
        version: &ShareVersion,
    ) -> Item {
        let mut item = key(customer, order);
        if let Some(spent) = spent {
            SPENT.put(&mut item, spent);
        }
        VERSION.put(&mut item, version);
        item
    }

    /// The order, what it adds to totalSpent (`None`: not counted) and the version.
    pub fn from_item(mut item: Item) -> Result<(OrderId, Option<Decimal>, ShareVersion), BadItem> {
        let order = keys::counted_order::parse_sk(&SK.take(&mut item)?)?;
        Ok((
            order,
            SPENT.take_optional(&mut item)?,
            VERSION.take(&mut item)?,
        ))
    }
}

/// How many PLACED orders a customer holds: `CUSTOMER#<id>` / `PLACED_ORDERS`, `placedCount`,
/// counted up by each order placed and down by each one leaving PLACED (shipped or cancelled).
pub mod placed_orders {
    use super::*;
    use crate::domain::ids::CustomerId;

    pub const COUNT: Attr<u32> = Attr::new("placedCount");
    /// What an update adds (one, or minus one).
    pub const COUNT_CHANGE: Attr<i64> = Attr::new("placedCount");

    pub fn key(customer: &CustomerId) -> Item {
        super::key(keys::placed_orders::pk(customer), keys::placed_orders::SK)
    }
}

/// A data migration's own items, under `MIGRATION#<name>` (`store-migrate`): its completion, each
/// scan segment's checkpoint, and the line items it deferred.
pub mod migration {
    use super::*;
    use crate::domain::ids::{OrderId, Sku};

    pub const VERSION: Attr<u32> = Attr::new("version");
    pub const COMPLETED_AT: Attr<String> = Attr::new("completedAt");
    /// Where the segment's scan continues: its LastEvaluatedKey, as a map; absent once done.
    pub const LAST_KEY: Attr<Item> = Attr::new("lastKey");
    pub const DONE: Attr<bool> = Attr::new("done");
    pub const SCANNED: Attr<u64> = Attr::new("scanned");
    pub const CHANGED: Attr<u64> = Attr::new("changed");
    pub const SKIPPED: Attr<u64> = Attr::new("skipped");
    pub const DEFERRED: Attr<u64> = Attr::new("deferred");
    pub const UNPLACEABLE: Attr<u64> = Attr::new("unplaceable");

    pub fn status_key(name: &str) -> Item {
        super::key(keys::migration::pk(name), keys::migration::STATUS_SK)
    }

    pub fn segment_key(name: &str, segment: u32, total: u32) -> Item {
        super::key(
            keys::migration::pk(name),
            keys::migration::segment_sk(segment, total),
        )
    }

    pub fn deferred_key(name: &str, order: &OrderId, sku: &Sku) -> Item {
        super::key(
            keys::migration::pk(name),
            keys::migration::deferred_sk(order, sku),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::customer::{Customer, OrderStats};
    use crate::domain::idempotency::IdempotencyRecord;
    use crate::domain::ids::{CustomerId, IdempotencyKey, OrderId, Sku};
    use crate::domain::money::Money;
    use crate::domain::order::{LineItem, Order};
    use crate::domain::stats::ShareVersion;
    use crate::domain::status::OrderStatus;
    use crate::domain::time::Timestamp;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.to_owned())
    }
    fn n(v: &str) -> AttributeValue {
        AttributeValue::N(v.to_owned())
    }

    fn order(status: OrderStatus) -> Order {
        Order {
            order_id: OrderId::parse("o100").expect("id"),
            customer_id: CustomerId::parse("c1").expect("id"),
            placed_at: Timestamp::parse("2026-10-08T14:30:00Z").expect("t"),
            status,
            total: Money::parse_number("39.9").expect("money"),
        }
    }

    /// The item's attributes, each as its DynamoDB type and text, sorted.
    fn shape(item: &Item) -> Vec<(String, String)> {
        let mut shape: Vec<_> = item
            .iter()
            .map(|(name, value)| {
                let typed = match value {
                    AttributeValue::S(s) => format!("S {s}"),
                    AttributeValue::N(n) => format!("N {n}"),
                    other => format!("{other:?}"),
                };
                (name.clone(), typed)
            })
            .collect();
        shape.sort();
        shape
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    }

    #[test]
    fn an_order_listing_is_written_in_the_source_designs_shape_and_reads_back() {
        let shipped = order(OrderStatus::Shipped);
        let item = order_listing::to_item(&shipped, keys::StatusShards::ONE);
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
        assert_eq!(order_listing::from_item(item).expect("reads"), shipped);
    }

    #[test]
    fn an_order_header_is_written_beside_its_lines_and_reads_back() {
        let placed = order(OrderStatus::Placed);
        let item = header::to_item(&placed);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S ORDER#o100"),
                ("SK", "S HEADER"),
                ("customerId", "S c1"),
                ("placedAt", "S 2026-10-08T14:30:00Z"),
                ("status", "S PLACED"),
                ("total", "N 39.90"),
            ])
        );
        assert_eq!(header::from_item(item).expect("reads"), placed);
    }

    #[test]
    fn a_line_item_is_written_in_the_source_designs_shape_and_reads_back() {
        let line = LineItem {
            sku: Sku::parse("sku-1").expect("sku"),
            quantity: 2,
            price: Money::parse_number("19.95").expect("money"),
        };
        let item = line_item::source_design_item(&OrderId::parse("o100").expect("id"), &line);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S ORDER#o100"),
                ("SK", "S ITEM#sku-1"),
                ("price", "N 19.95"),
                ("quantity", "N 2"),
            ])
        );
        assert_eq!(line_item::from_item(item).expect("reads"), line);
    }

    #[test]
    fn this_stores_line_item_also_carries_its_customer_and_its_place_under_the_product() {
        let line = LineItem {
            sku: Sku::parse("sku-1").expect("sku"),
            quantity: 2,
            price: Money::parse_number("19.95").expect("money"),
        };
        let order = Order {
            order_id: OrderId::parse("o100").expect("id"),
            customer_id: CustomerId::parse("c1").expect("id"),
            placed_at: Timestamp::parse("2026-10-08T14:30:00Z").expect("t"),
            status: OrderStatus::Placed,
            total: Money::parse_number("39.90").expect("money"),
        };
        let item = line_item::to_item(&order, &line);
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
        assert_eq!(line_item::from_item(item.clone()).expect("reads"), line);
        let listed = line_item::product_order_from_item(item).expect("reads as GSI2 lists it");
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
    fn a_profile_is_written_as_the_source_design_writes_it_and_reads_back() {
        let customer = Customer::new(
            CustomerId::parse("c1").expect("id"),
            "Ana Torres",
            "ana@example.com",
        )
        .expect("valid");
        let mut item = profile::to_item(&customer);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S CUSTOMER#c1"),
                ("SK", "S PROFILE"),
                ("email", "S ana@example.com"),
                ("name", "S Ana Torres"),
            ])
        );
        let read = profile::from_item(item.clone()).expect("reads");
        assert_eq!(
            (read.customer, read.stats),
            (customer.clone(), OrderStats::default())
        );

        let stats = OrderStats {
            order_count: 3,
            total_spent: Money::parse_number("79.8").expect("money"),
            last_order_at: Some(Timestamp::parse("2026-10-08T14:30:00Z").expect("t")),
        };
        profile::ORDER_COUNT.put(&mut item, &stats.order_count);
        profile::TOTAL_SPENT.put(&mut item, &stats.total_spent);
        profile::LAST_ORDER_AT.put(&mut item, &stats.last_order_at.expect("set"));
        let read = profile::from_item(item).expect("reads");
        assert_eq!((read.customer, read.stats), (customer, stats));
    }

    #[test]
    fn an_idempotency_record_reads_back_with_its_expiry() {
        let record = IdempotencyRecord {
            fingerprint: "f00d".into(),
            order_id: OrderId::parse("o100").expect("id"),
            response: r#"{"orderId":"o100"}"#.into(),
        };
        let item = idempotency::to_item(
            &CustomerId::parse("c1").expect("id"),
            &IdempotencyKey::parse("k-1").expect("key"),
            &record,
            1_800_000_000,
        );
        assert_eq!(item["PK"], AttributeValue::S("IDEMPOTENCY#c1#k-1".into()));
        assert_eq!(item["expiresAt"], AttributeValue::N("1800000000".into()));
        assert_eq!(
            idempotency::from_item(item).expect("reads"),
            (record, 1_800_000_000)
        );
    }

    #[test]
    fn a_product_and_its_catalog_entry_read_back() {
        use crate::domain::product::{CatalogEntry, Product};
        let mug = Product {
            sku: Sku::parse("sku-1").expect("sku"),
            name: "Blue mug".into(),
            price: Money::parse_number("19.95").expect("money"),
            stock: 7,
        };
        let item = product::to_item(&mug, 3);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S PRODUCT#sku-1"),
                ("SK", "S PRODUCT"),
                ("name", "S Blue mug"),
                ("price", "N 19.95"),
                ("stock", "N 7"),
                ("version", "N 3"),
            ])
        );
        assert_eq!(product::from_item(item).expect("reads"), (mug.clone(), 3));
        let entry = CatalogEntry {
            sku: mug.sku.clone(),
            name: mug.name.clone(),
            price: mug.price,
        };
        let item = catalog_entry::to_item(&entry);
        assert_eq!(item["PK"], AttributeValue::S("CATALOG#0".into()));
        assert_eq!(item["SK"], AttributeValue::S("PRODUCT#sku-1".into()));
        assert_eq!(catalog_entry::from_item(item).expect("reads"), entry);
    }

    #[test]
    fn a_counted_order_holds_what_it_adds_to_total_spent() {
        let c1 = CustomerId::parse("c1").expect("id");
        let o100 = OrderId::parse("o100").expect("id");
        let spent = Money::parse_number("39.90").expect("money").amount();
        let v42 = ShareVersion::parse("42").expect("version");
        let item = counted_order::to_item(&c1, &o100, Some(&spent), &v42);
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
        assert_eq!(
            counted_order::from_item(item).expect("reads"),
            (o100.clone(), Some(spent), v42)
        );
        let v43 = ShareVersion::parse("43").expect("version");
        let removed = counted_order::to_item(&c1, &o100, None, &v43);
        assert_eq!(
            counted_order::from_item(removed).expect("reads"),
            (o100, None, v43)
        );
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
        let order = order_listing::from_item(item).expect("reads");
        assert_eq!(order.order_id.as_str(), "o100");
        assert_eq!(order.customer_id.as_str(), "c1");
        assert_eq!(order.placed_at.to_string(), "2026-10-08T14:30:00Z");
        assert_eq!(order.status, OrderStatus::Placed);
        assert_eq!(order.total.to_string(), "39.90");
    }

    #[test]
    fn a_profile_reads_with_or_without_statistics() {
        let mut item = Item::from([
            ("PK".into(), s("CUSTOMER#c1")),
            ("SK".into(), s("PROFILE")),
            ("name".into(), s("Ana Torres")),
            ("email".into(), s("ana@example.com")),
        ]);
        let bare = profile::from_item(item.clone()).expect("reads");
        assert_eq!(bare.stats, OrderStats::default());
        item.insert("orderCount".into(), n("3"));
        item.insert("totalSpent".into(), n("79.8"));
        item.insert("lastOrderAt".into(), s("2026-10-08T14:30:00Z"));
        let profile = profile::from_item(item).expect("reads");
        assert_eq!(profile.stats.order_count, 3);
        assert_eq!(profile.stats.total_spent.to_string(), "79.80");
        let json = serde_json::to_value(&profile).expect("json");
        assert_eq!(
            json,
            serde_json::json!({"customerId": "c1", "name": "Ana Torres", "email": "ana@example.com",
                "orderCount": 3, "totalSpent": "79.80", "lastOrderAt": "2026-10-08T14:30:00Z"})
        );
    }

    #[test]
    fn the_source_designs_line_item_reads_exactly() {
        let item = Item::from([
            ("PK".into(), s("ORDER#o100")),
            ("SK".into(), s("ITEM#sku-1")),
            ("quantity".into(), n("2")),
            ("price".into(), n("19.95")),
        ]);
        let line = line_item::from_item(item).expect("reads");
        assert_eq!(line.sku.as_str(), "sku-1");
        assert_eq!(line.quantity, 2);
        assert_eq!(line.price.to_string(), "19.95");
    }

    #[test]
    fn items_missing_what_the_source_design_writes_are_refused() {
        let item = Item::from([
            ("PK".into(), s("ORDER#o100")),
            ("SK".into(), s("ITEM#sku-1")),
            ("quantity".into(), n("2.5")),
            ("price".into(), n("19.95")),
        ]);
        assert!(line_item::from_item(item).is_err());
        let item = Item::from([("PK".into(), s("CUSTOMER#c1")), ("name".into(), s("Ana"))]);
        assert!(profile::from_item(item).is_err());
    }

    #[test]
    fn attributes_of_the_wrong_type_or_value_are_named() {
        let listing = |status: AttributeValue, total: AttributeValue| {
            Item::from([
                ("PK".into(), s("CUSTOMER#c1")),
                ("SK".into(), s("ORDER#2026-10-08T14:30:00Z#o100")),
                ("status".into(), status),
                ("total".into(), total),
            ])
        };
        let err = |item| {
            order_listing::from_item(item)
                .expect_err("refused")
                .to_string()
        };
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
        let profile = Item::from([
            ("PK".into(), s("CUSTOMER#c1")),
            ("name".into(), s("Ana")),
            ("email".into(), s("ana@example.com")),
            ("orderCount".into(), n("-1")),
        ]);
        assert_eq!(
            profile::from_item(profile)
                .expect_err("refused")
                .to_string(),
            "attribute orderCount is missing or is not a whole number"
        );
    }
}
