//! A stock shard, `STOCK#<sku>#<n>` / `STOCK` for n from 1 to its variant's `stockShards` less
//! one: a part of one SKU's stock in a partition of its own, so that the SKU's buyers, arriving
//! together, write different partitions (`crate::domain::stock_shards`). Shard 0 is the
//! variant's own item. A shard keeps copies of its variant's price and status, which a
//! checkout's take checks on the shard itself: a ConditionCheck on the variant would write the
//! one partition the shards are there to spare. Every write of the variant's terms writes them
//! to its shards in the same transaction.

use crate::domain::ids::Sku;
use crate::domain::money::Money;
use crate::domain::product::ProductStatus;
use crate::domain::stock_shards::{ShardIndex, StockShard};
use crate::dynamo::codec::{Attr, BadItem, Item, PK, primary_key};
use crate::dynamo::keys::{self, Entity, MalformedKey, STOCK_PREFIX, STOCK_SK, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::{DeleteSpec, UpdateSpec};

record! {
    /// What a shard's item stores of it.
    pub Record stores StockShard beside (sku: Sku, shard: ShardIndex) {
        /// The units it holds.
        stock: u64 = STOCK "stock", required, store;
        /// Its variant's price.
        price: Money = PRICE "price", required, store;
        /// Its variant's status.
        status: ProductStatus = STATUS "status", required, store;
    }
}

/// What a take or a move of units adds to it (negative: takes).
pub const STOCK_CHANGE: Attr<i64> = Attr::new("stock");

/// A checkout's take: its units, on the condition that the shard holds them and still has the
/// line's price and a published status.
pub const TAKE: UpdateSpec = UpdateSpec {
    add: &[STOCK.name],
    checks: &[PRICE.name, STATUS.name],
    ..UpdateSpec::of(Entity::StockShard)
};
/// A change of its variant's count: units moved in or out, on the condition that it holds what
/// was read, and the variant's terms written with them (a new shard starts with both).
pub const SPREAD: UpdateSpec = UpdateSpec {
    set: &[PRICE.name, STATUS.name],
    add: &[STOCK.name],
    ..UpdateSpec::of(Entity::StockShard)
};
/// Its variant's terms, written by the product's write beside the variant's own.
pub const TERMS: UpdateSpec = UpdateSpec {
    set: &[PRICE.name, STATUS.name],
    ..UpdateSpec::of(Entity::StockShard)
};
/// A shard the lowered count drops, deleted once its units are moved, if it holds what was
/// read.
pub const DROP: DeleteSpec = DeleteSpec {
    entity: Entity::StockShard,
    checks: &[STOCK.name],
};

/// The shard's partition key.
pub fn pk(sku: &Sku, shard: ShardIndex) -> String {
    format!("{STOCK_PREFIX}{sku}#{shard}")
}

/// The SKU and the shard a partition key names.
pub fn parse_pk(pk: &str) -> Result<(Sku, ShardIndex), MalformedKey> {
    pk.strip_prefix(STOCK_PREFIX)
        .and_then(|rest| rest.rsplit_once('#'))
        .and_then(|(sku, shard)| Some((Sku::parse(sku).ok()?, ShardIndex::parse_extra(shard)?)))
        .ok_or_else(|| malformed(keys::PK, pk))
}

/// The shard's key.
pub fn key(sku: &Sku, shard: ShardIndex) -> Item {
    primary_key(pk(sku, shard), STOCK_SK)
}

/// The shard whole, as a count's change creates it.
pub fn to_item(shard: &StockShard) -> Item {
    let mut item = key(&shard.sku, shard.shard);
    Record::write(&mut item, shard);
    item
}

/// The shard an item holds.
pub fn from_item(mut item: Item) -> Result<StockShard, BadItem> {
    let (sku, shard) = parse_pk(&PK.take(&mut item)?)?;
    Record::read(&mut item, sku, shard)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, shape, sku1};

    fn third() -> ShardIndex {
        ShardIndex::parse_extra("3").expect("a shard")
    }

    #[test]
    fn a_shards_keys_name_its_sku_and_its_place() {
        assert_eq!(pk(&sku1(), third()), "STOCK#sku-1#3");
        assert_eq!(parse_pk("STOCK#sku-1#3"), Ok((sku1(), third())));
        for bad in [
            "STOCK#sku-1#0",
            "STOCK#sku-1#32",
            "STOCK#sku-1#03",
            "STOCK#sku-1",
            "PRODUCT#sku-1#3",
        ] {
            assert!(parse_pk(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Entity::of("STOCK#sku-1#3", "STOCK"),
            Some(Entity::StockShard)
        );
    }

    #[test]
    fn a_shard_reads_back() {
        let shard = StockShard {
            sku: sku1(),
            shard: third(),
            stock: 12,
            price: Money::parse_number("19.95").expect("money"),
            status: ProductStatus::Published,
        };
        let item = to_item(&shard);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S STOCK#sku-1#3"),
                ("SK", "S STOCK"),
                ("price", "N 19.95"),
                ("status", "S PUBLISHED"),
                ("stock", "N 12"),
            ])
        );
        assert_eq!(from_item(item).expect("reads"), shard);
    }
}
