//! A variant, `PRODUCT#<sku>` / `PRODUCT` (access pattern 5, GetItem): what orders read
//! (price, title, options, whether it is for sale) and change (stock), one item per SKU. It
//! keeps the key the SKU had before products had variants, so no stock, order or cart moved
//! when they came. It also carries GSI3 keys, `PRODUCT#<productId>` / `VARIANT#<sku>`, so its
//! product and all its variants are read in one Query (access pattern 12).

use crate::domain::ids::{ProductId, Sku};
use crate::domain::money::Money;
use crate::domain::product::{OptionValues, ProductStatus};
use crate::domain::stock_shards::ShardCount;
use crate::domain::variant::Variant;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, primary_key};
use crate::dynamo::entities::product;
use crate::dynamo::keys::{self, Entity, MalformedKey, PRODUCT_PREFIX, VARIANT_PREFIX, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::UpdateSpec;

/// The variant's sort key.
pub const SORT_KEY: &str = keys::PRODUCT_SK;

record! {
    /// What the variant's item stores of it.
    pub Record stores Variant beside (sku: Sku) {
        /// Its product (absent on a SKU written before products).
        product_id: ProductId = PRODUCT_ID "productId", optional, store;
        /// Its product's title (`name`, as the SKU's item called it before products).
        title: String = TITLE "name", required, store;
        /// Its options' values.
        options: OptionValues = OPTIONS "options", empty, store;
        /// The price of one.
        price: Money = PRICE "price", required, store;
        /// How many are left to order in this item: the SKU's stock when it has one shard,
        /// shard 0's part of it when it has more ([`crate::domain::stock_shards`]).
        stock: u64 = STOCK "stock", required, store;
        /// How many items its stock is split across (absent: 1, this item alone).
        stock_shards: ShardCount = STOCK_SHARDS "stockShards", default, store;
        /// How many GSI2 partitions its order lines are spread over (absent: 1, `PRODUCT#<sku>`
        /// alone): the most shards its stock has had, never lowered.
        order_shards: ShardCount = ORDER_SHARDS "orderShards", default, store;
        /// Its product's status (absent: a SKU written before products, on sale).
        status: ProductStatus = STATUS "status", default, store;
        /// What one weighs, in grams.
        weight_grams: u32 = WEIGHT_GRAMS "weightGrams", default, store;
    }
}

/// GSI3's partition key: its product's.
pub const GSI3PK: Attr<String> = Attr::new(keys::GSI3PK);
/// GSI3's sort key: `VARIANT#<sku>`.
pub const GSI3SK: Attr<String> = Attr::new(keys::GSI3SK);
/// What an order's take of stock or a cancellation gives back to it changes.
pub const STOCK_CHANGE: Attr<i64> = Attr::new("stock");

/// What writing a product writes of each of its variants (one UpdateItem each, in the
/// product's transaction): everything but the stock, which is kept (0 for a new SKU).
pub const WRITE: UpdateSpec = UpdateSpec {
    set: &[
        PRODUCT_ID.name,
        TITLE.name,
        OPTIONS.name,
        PRICE.name,
        STATUS.name,
        WEIGHT_GRAMS.name,
        GSI3PK.name,
        GSI3SK.name,
    ],
    set_if_absent: &[STOCK.name],
    remove: &[OPTIONS.name],
    checks: &[PRODUCT_ID.name, STOCK_SHARDS.name],
    ..UpdateSpec::of(Entity::Variant)
};
/// What a product that drops a variant writes of it: no longer for sale, out of its product's
/// answer; its stock and its orders are kept, and the SKU stays its product's.
pub const RETIRE: UpdateSpec = UpdateSpec {
    set: &[STATUS.name],
    remove: &[GSI3PK.name, GSI3SK.name],
    checks: &[PRODUCT_ID.name, STOCK_SHARDS.name],
    ..UpdateSpec::of(Entity::Variant)
};
/// What `0002-products` (`store-migrate`) writes of a SKU written before products: the product
/// it now belongs to (its own), its status and its GSI3 keys.
pub const ADOPT: UpdateSpec = UpdateSpec {
    set: &[PRODUCT_ID.name, STATUS.name, GSI3PK.name, GSI3SK.name],
    ..UpdateSpec::of(Entity::Variant)
};
/// What a stock change writes (an adjustment, a cancellation's return).
pub const STOCK_UPDATE: UpdateSpec = UpdateSpec {
    add: &[STOCK.name],
    ..UpdateSpec::of(Entity::Variant)
};
/// What a change of its stock's count of shards writes: the count (and its orders' GSI2
/// partitions, raised with it, never lowered), and the units moved in or out of its own item, on the condition that its stock, count and terms are as read (the
/// terms are copied to the shards in the same transaction).
pub const SPREAD: UpdateSpec = UpdateSpec {
    set: &[STOCK_SHARDS.name, ORDER_SHARDS.name],
    add: &[STOCK.name],
    checks: &[PRICE.name, STATUS.name],
    ..UpdateSpec::of(Entity::Variant)
};
/// What an order's take of stock names: the stock, and the price and status its condition
/// checks.
pub const TAKE_STOCK: UpdateSpec = UpdateSpec {
    add: &[STOCK.name],
    checks: &[PRICE.name, STATUS.name],
    ..UpdateSpec::of(Entity::Variant)
};

/// The variant's partition key.
pub fn pk(sku: &Sku) -> String {
    format!("{PRODUCT_PREFIX}{sku}")
}

/// The SKU a partition key names.
pub fn parse_pk(pk: &str) -> Result<Sku, MalformedKey> {
    pk.strip_prefix(PRODUCT_PREFIX)
        .and_then(|raw| Sku::parse(raw).ok())
        .ok_or_else(|| malformed(keys::PK, pk))
}

/// The variant's key.
pub fn key(sku: &Sku) -> Item {
    primary_key(pk(sku), SORT_KEY)
}

/// Its GSI3 sort key.
pub fn gsi3sk(sku: &Sku) -> String {
    format!("{VARIANT_PREFIX}{sku}")
}

/// The SKU a GSI3 sort key names.
pub fn parse_gsi3sk(sk: &str) -> Option<Sku> {
    sk.strip_prefix(VARIANT_PREFIX)
        .and_then(|raw| Sku::parse(raw).ok())
}

/// The variant whole, as a test or the sample data writes it: with its GSI3 keys when it has
/// a product.
pub fn to_item(variant: &Variant) -> Item {
    let mut item = key(&variant.sku);
    Record::write(&mut item, variant);
    if let Some(product_id) = &variant.product_id {
        GSI3PK.put(&mut item, &product::gsi3pk(product_id));
        GSI3SK.put(&mut item, &gsi3sk(&variant.sku));
    }
    item
}

/// The variant an item holds.
pub fn from_item(mut item: Item) -> Result<Variant, BadItem> {
    let sku = parse_pk(&PK.take(&mut item)?)?;
    Record::read(&mut item, sku)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, shape, sku1};

    #[test]
    fn variant_keys() {
        assert_eq!(pk(&sku1()), "PRODUCT#sku-1");
        assert_eq!(SORT_KEY, "PRODUCT");
        assert_eq!(parse_pk("PRODUCT#sku-1"), Ok(sku1()));
        assert_eq!(gsi3sk(&sku1()), "VARIANT#sku-1");
        assert_eq!(parse_gsi3sk("VARIANT#sku-1"), Some(sku1()));
    }

    #[test]
    fn a_variant_reads_back() {
        let tee = Variant {
            sku: sku1(),
            product_id: Some(ProductId::parse("tee").expect("id")),
            title: "Plain tee".into(),
            options: OptionValues(vec![
                ("Size".into(), "M".into()),
                ("Colour".into(), "Blue".into()),
            ]),
            price: Money::parse_number("19.95").expect("money"),
            stock: 7,
            stock_shards: ShardCount::new(4).expect("count"),
            order_shards: ShardCount::new(8).expect("count"),
            status: ProductStatus::Draft,
            weight_grams: 180,
        };
        let item = to_item(&tee);
        let expected = pairs(&[
            ("GSI3PK", "S PRODUCT#tee"),
            ("GSI3SK", "S VARIANT#sku-1"),
            ("PK", "S PRODUCT#sku-1"),
            ("SK", "S PRODUCT"),
            ("name", "S Plain tee"),
            ("orderShards", "N 8"),
            ("price", "N 19.95"),
            ("productId", "S tee"),
            ("status", "S DRAFT"),
            ("stock", "N 7"),
            ("stockShards", "N 4"),
            ("weightGrams", "N 180"),
        ]);
        let (options, got): (Vec<_>, Vec<_>) = shape(&item)
            .into_iter()
            .partition(|(name, _)| name == "options");
        assert!(options[0].1.starts_with("L("), "{options:?}");
        assert_eq!(got, expected);
        assert_eq!(from_item(item).expect("reads"), tee);
    }

    #[test]
    fn a_sku_written_before_products_reads_as_one_on_sale() {
        let item = pairs_item();
        let old = from_item(item).expect("reads");
        assert_eq!(old.status, ProductStatus::Published);
        assert_eq!(
            (old.product_id, old.options),
            (None, OptionValues::default())
        );
        assert_eq!(old.title, "Blue mug");
    }

    fn pairs_item() -> Item {
        use aws_sdk_dynamodb::types::AttributeValue as A;
        Item::from([
            ("PK".to_owned(), A::S("PRODUCT#sku-1".into())),
            ("SK".to_owned(), A::S("PRODUCT".into())),
            ("name".to_owned(), A::S("Blue mug".into())),
            ("price".to_owned(), A::N("19.95".into())),
            ("stock".to_owned(), A::N("7".into())),
            ("version".to_owned(), A::N("3".into())),
        ])
    }
}
