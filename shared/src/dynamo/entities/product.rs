//! A product, `PRODUCT#<sku>` / `PRODUCT` (access pattern 5, GetItem): what orders read (price,
//! stock) and change (stock), one item per SKU. `version` counts the catalog's changes to it
//! (name, price), so that a replacement never overwrites a concurrent one.

use crate::domain::ids::Sku;
use crate::domain::money::Money;
use crate::domain::product::Product;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, primary_key};
use crate::dynamo::keys::{self, Entity, MalformedKey, PRODUCT_PREFIX, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::UpdateSpec;

/// The product's sort key.
pub const SORT_KEY: &str = keys::PRODUCT_SK;

record! {
    /// What the product's item stores of it (the catalog is this store's, not the source
    /// design's).
    pub Record stores Product beside (sku: Sku) {
        /// What the catalog calls it.
        name: String = NAME "name", required, store;
        /// The price of one.
        price: Money = PRICE "price", required, store;
        /// How many are left to order.
        stock: u64 = STOCK "stock", required, store;
    }
}

/// How many times the catalog changed its name or price.
pub const VERSION: Attr<u64> = Attr::new("version");
/// What an order takes from or a cancellation gives back to the stock.
pub const STOCK_CHANGE: Attr<i64> = Attr::new("stock");

/// What replacing a product's name and price writes (`put-product`'s UpdateItem: its version
/// moves on, its stock is kept or started at 0).
pub const REPLACE: UpdateSpec = UpdateSpec {
    set: &[NAME.name, PRICE.name, VERSION.name],
    set_if_absent: &[STOCK.name],
    ..UpdateSpec::of(Entity::Product)
};
/// What a stock change writes (an adjustment, a cancellation's return).
pub const STOCK_UPDATE: UpdateSpec = UpdateSpec {
    add: &[STOCK.name],
    ..UpdateSpec::of(Entity::Product)
};
/// What an order's take of stock names: the stock, and the price its condition checks.
pub const TAKE_STOCK: UpdateSpec = UpdateSpec {
    add: &[STOCK.name],
    checks: &[PRICE.name],
    ..UpdateSpec::of(Entity::Product)
};

/// The product's partition key.
pub fn pk(sku: &Sku) -> String {
    format!("{PRODUCT_PREFIX}{sku}")
}

/// The SKU a partition key names.
pub fn parse_pk(pk: &str) -> Result<Sku, MalformedKey> {
    pk.strip_prefix(PRODUCT_PREFIX)
        .and_then(|raw| Sku::parse(raw).ok())
        .ok_or_else(|| malformed(keys::PK, pk))
}

/// The product's key.
pub fn key(sku: &Sku) -> Item {
    primary_key(pk(sku), SORT_KEY)
}

/// The product at `version`.
pub fn to_item(product: &Product, version: u64) -> Item {
    let mut item = key(&product.sku);
    Record::write(&mut item, product);
    VERSION.put(&mut item, &version);
    item
}

/// The product and its version.
pub fn from_item(mut item: Item) -> Result<(Product, u64), BadItem> {
    let sku = parse_pk(&PK.take(&mut item)?)?;
    let product = Record::read(&mut item, sku)?;
    Ok((product, VERSION.take_optional(&mut item)?.unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, shape, sku1};

    #[test]
    fn product_keys() {
        assert_eq!(pk(&sku1()), "PRODUCT#sku-1");
        assert_eq!(SORT_KEY, "PRODUCT");
        assert_eq!(parse_pk("PRODUCT#sku-1"), Ok(sku1()));
    }

    #[test]
    fn a_product_reads_back_with_its_version() {
        let mug = Product {
            sku: sku1(),
            name: "Blue mug".into(),
            price: Money::parse_number("19.95").expect("money"),
            stock: 7,
        };
        let item = to_item(&mug, 3);
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
        assert_eq!(from_item(item).expect("reads"), (mug, 3));
    }
}
