//! A catalog entry, `CATALOG#<shard>` / `PRODUCT#<productId>` (access pattern 6, the catalog,
//! paged: one Query per shard): a published product's title and lowest price, in one of
//! [`SHARDS`] partitions chosen by its ID, so that listing the catalog reads no partition that
//! holds every product, and orders (which change stock) never write here. Writing a product
//! puts its entry while it is published and deletes it otherwise, in the same transaction.

use crate::domain::ids::ProductId;
use crate::domain::media::Picture;
use crate::domain::money::Money;
use crate::domain::product::CatalogEntry;
use crate::dynamo::codec::{BadItem, Item, SK, primary_key};
use crate::dynamo::keys::{
    self, CATALOG_PREFIX, Entity, MalformedKey, PRODUCT_PREFIX, fnv1a, malformed,
};
use crate::dynamo::record::record;
use crate::dynamo::update::{DeleteSpec, PutSpec, UpdateSpec};

record! {
    /// What an entry stores of its product: its title (`name`, as entries of SKUs called it
    /// before products) and its lowest price.
    pub Record stores CatalogEntry beside (product_id: ProductId) {
        /// Its product's title.
        title: String = NAME "name", required, store;
        /// Its product's lowest variant price.
        price: Money = PRICE "price", required, store;
        /// Its product's first picture.
        cover: Picture = COVER "cover", optional, store;
    }
}

/// How many catalog partitions the products are spread over.
pub const SHARDS: u32 = 4;

/// What writing an entry puts: the entry whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::CatalogEntry,
    attributes: &[keys::PK, keys::SK, NAME.name, PRICE.name, COVER.name],
};
/// Its product's first picture changed (shown, or removed): the entry's copy, on the
/// condition that the entry is there.
pub const COVER_CHANGE: UpdateSpec = UpdateSpec {
    set: &[COVER.name],
    remove: &[COVER.name],
    ..UpdateSpec::of(Entity::CatalogEntry)
};
/// What unpublishing a product deletes: its entry.
pub const REMOVE: DeleteSpec = DeleteSpec {
    entity: Entity::CatalogEntry,
    checks: &[],
};

/// The shard of `product`: FNV-1a of its bytes, stable across releases and machines.
pub fn shard(product: &ProductId) -> u32 {
    fnv1a(product.as_str()) % SHARDS
}

/// Catalog shard `shard`'s partition key.
pub fn pk(shard: u32) -> String {
    format!("{CATALOG_PREFIX}{shard}")
}

/// The entry's sort key: its product's key.
pub fn sk(product: &ProductId) -> String {
    format!("{PRODUCT_PREFIX}{product}")
}

/// The product a sort key names.
pub fn parse_sk(sk: &str) -> Result<ProductId, MalformedKey> {
    sk.strip_prefix(PRODUCT_PREFIX)
        .and_then(|raw| ProductId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// `(pk, sk)` is byte for byte a catalog entry's key as this store writes it: the entry of a
/// product, in that product's shard.
pub fn is_canonical_key(pk: &str, sk: &str) -> bool {
    parse_sk(sk).is_ok_and(|id| sk == self::sk(&id) && pk == self::pk(shard(&id)))
}

/// The entry's key.
pub fn key(product: &ProductId) -> Item {
    primary_key(pk(shard(product)), sk(product))
}

/// The entry, in its product's shard.
pub fn to_item(entry: &CatalogEntry) -> Item {
    let mut item = key(&entry.product_id);
    Record::write(&mut item, entry);
    item
}

/// The entry an item holds.
pub fn from_item(mut item: Item) -> Result<CatalogEntry, BadItem> {
    let product_id = parse_sk(&SK.take(&mut item)?)?;
    Record::read(&mut item, product_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn product1() -> ProductId {
        ProductId::parse("sku-1").expect("valid")
    }

    #[test]
    fn catalog_keys() {
        assert_eq!(sk(&product1()), "PRODUCT#sku-1");
        assert_eq!(parse_sk("PRODUCT#sku-1"), Ok(product1()));
        // Fixed values: a shard that moved between releases would hide products.
        let shards: Vec<u32> = ["sku-1", "sku-2", "sku-3", "sku-4", "a", "B"]
            .iter()
            .map(|raw| shard(&ProductId::parse(raw).expect("valid")))
            .collect();
        assert_eq!(shards, [0, 1, 2, 3, 0, 1]);
        assert_eq!(pk(shard(&product1())), "CATALOG#0");
    }

    #[test]
    fn a_catalog_entry_reads_back() {
        let entry = CatalogEntry {
            product_id: product1(),
            title: "Blue mug".into(),
            price: Money::parse_number("19.95").expect("money"),
            cover: Some(crate::domain::media::Picture {
                media_id: crate::domain::ids::MediaId::parse("md_1").expect("id"),
                alt: "A blue mug".into(),
                rank: 0,
            }),
        };
        let item = to_item(&entry);
        assert_eq!(item["PK"], AttributeValue::S("CATALOG#0".into()));
        assert_eq!(item["SK"], AttributeValue::S("PRODUCT#sku-1".into()));
        assert_eq!(from_item(item).expect("reads"), entry);
    }
}
