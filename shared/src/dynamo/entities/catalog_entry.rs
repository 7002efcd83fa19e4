//! A catalog entry, `CATALOG#<shard>` / `PRODUCT#<sku>` (access pattern 6, the catalog, paged:
//! one Query per shard): a product's name and price again, in one of [`SHARDS`] partitions
//! chosen by its SKU, so that listing the catalog reads no partition that holds every product,
//! and orders (which change stock) never write here.

use crate::domain::ids::Sku;
use crate::domain::money::Money;
use crate::domain::product::CatalogEntry;
use crate::dynamo::codec::{BadItem, Item, SK, primary_key};
use crate::dynamo::keys::{
    self, CATALOG_PREFIX, Entity, MalformedKey, PRODUCT_PREFIX, fnv1a, malformed,
};
use crate::dynamo::record::record;
use crate::dynamo::update::PutSpec;

pub use crate::dynamo::entities::product::{NAME, PRICE};

record! {
    /// What an entry stores of its product: name and price, in the product item's attributes
    /// (put-product writes both in one transaction).
    pub Record stores CatalogEntry beside (sku: Sku) {
        name: String = NAME, required, store;
        price: Money = PRICE, required, store;
    }
}

/// How many catalog partitions the products are spread over.
pub const SHARDS: u32 = 4;

/// What writing an entry puts: the entry whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::CatalogEntry,
    attributes: &[keys::PK, keys::SK, NAME.name, PRICE.name],
};

/// The shard of `sku`: FNV-1a of its bytes, stable across releases and machines.
pub fn shard(sku: &Sku) -> u32 {
    fnv1a(sku.as_str()) % SHARDS
}

/// Catalog shard `shard`'s partition key.
pub fn pk(shard: u32) -> String {
    format!("{CATALOG_PREFIX}{shard}")
}

/// The entry's sort key: its product's key.
pub fn sk(sku: &Sku) -> String {
    format!("{PRODUCT_PREFIX}{sku}")
}

/// The SKU a sort key names.
pub fn parse_sk(sk: &str) -> Result<Sku, MalformedKey> {
    sk.strip_prefix(PRODUCT_PREFIX)
        .and_then(|raw| Sku::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// `(pk, sk)` is byte for byte a catalog entry's key as this store writes it: the entry of a
/// SKU, in that SKU's shard.
pub fn is_canonical_key(pk: &str, sk: &str) -> bool {
    parse_sk(sk).is_ok_and(|sku| sk == self::sk(&sku) && pk == self::pk(shard(&sku)))
}

/// The entry, in its SKU's shard.
pub fn to_item(entry: &CatalogEntry) -> Item {
    let mut item = primary_key(pk(shard(&entry.sku)), sk(&entry.sku));
    Record::write(&mut item, entry);
    item
}

/// The entry an item holds.
pub fn from_item(mut item: Item) -> Result<CatalogEntry, BadItem> {
    let sku = parse_sk(&SK.take(&mut item)?)?;
    Record::read(&mut item, sku)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::product;
    use crate::dynamo::entities::test_support::sku1;
    use aws_sdk_dynamodb::types::AttributeValue;

    #[test]
    fn an_entry_stores_its_products_name_and_price_as_the_product_does() {
        // put-product writes both in one transaction: the same attributes, of the same form.
        for shared in Record::ATTRIBUTES {
            let product = product::Record::ATTRIBUTES
                .iter()
                .find(|a| a.name == shared.name);
            assert_eq!(product, Some(shared), "{}", shared.name);
        }
    }

    #[test]
    fn catalog_keys() {
        assert_eq!(sk(&sku1()), "PRODUCT#sku-1");
        assert_eq!(parse_sk("PRODUCT#sku-1"), Ok(sku1()));
        // Fixed values: a shard that moved between releases would hide products.
        let shards: Vec<u32> = ["sku-1", "sku-2", "sku-3", "sku-4", "a", "B"]
            .iter()
            .map(|raw| shard(&Sku::parse(raw).expect("valid")))
            .collect();
        assert_eq!(shards, [0, 1, 2, 3, 0, 1]);
        assert_eq!(pk(shard(&sku1())), "CATALOG#0");
    }

    #[test]
    fn a_catalog_entry_reads_back() {
        let entry = CatalogEntry {
            sku: sku1(),
            name: "Blue mug".into(),
            price: Money::parse_number("19.95").expect("money"),
        };
        let item = to_item(&entry);
        assert_eq!(item["PK"], AttributeValue::S("CATALOG#0".into()));
        assert_eq!(item["SK"], AttributeValue::S("PRODUCT#sku-1".into()));
        assert_eq!(from_item(item).expect("reads"), entry);
    }
}
