//! A SKU's stock over its shards (`domain::stock_shards`; the items: `entities::stock_shard`):
//! their levels read beside the variants they belong to, and their count changed.

use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::types::builders::UpdateBuilder;

use crate::AppError;
use crate::domain::ids::Sku;
use crate::domain::money::Money;
use crate::domain::product::ProductStatus;
use crate::domain::stock_shards::{
    ShardCount, ShardCounts, ShardIndex, StockLevels, Take, plan_take, respread,
};
use crate::domain::variant::Variant;
use crate::dynamo::codec::Item;
use crate::dynamo::entities::{stock_shard, variant};
use crate::dynamo::store::Store;
use crate::dynamo::transaction::{Outcome, Transaction};
use crate::dynamo::update::Change;
use crate::retry::{Backoff, retry};

use super::{MAX_BATCH_GET, Retry};

/// A condition that a number attribute (`#stock`) still holds `level`, as read: a level of 0
/// was also read where no item (or no attribute) was.
pub(crate) fn still_at(level: u64) -> &'static str {
    if level == 0 {
        "attribute_not_exists(#stock) OR #stock = :level"
    } else {
        "#stock = :level"
    }
}

/// A condition that the variant's count of shards is still `count`, as read (absent: 1).
pub(crate) fn shards_still(count: ShardCount) -> &'static str {
    if count == ShardCount::ONE {
        "(attribute_not_exists(#stockShards) OR #stockShards = :shards)"
    } else {
        "#stockShards = :shards"
    }
}

/// A variant's terms written to each of its `count` shards beyond its own item: its status,
/// and its price where the write knows it (a retired variant's is left as it is).
pub(crate) fn terms_to_shards(
    table: &str,
    sku: &Sku,
    count: ShardCount,
    (price, status): (Option<&Money>, ProductStatus),
) -> Vec<Change> {
    (count.extra())
        .map(|shard| {
            let terms = stock_shard::TERMS.on(table, stock_shard::key(sku, shard));
            let terms = terms.set(&stock_shard::STATUS, &status);
            match price {
                Some(price) => terms.set(&stock_shard::PRICE, price),
                None => terms,
            }
        })
        .collect()
}

/// The shard keys to read beside `wanted`'s variants, as `counts` last knew them: the start
/// shard of the buyer `seed` names, or every shard once a start shard was short; at most
/// `room` of them (none if more).
pub(crate) fn hinted_keys(
    counts: &ShardCounts,
    wanted: &HashMap<Sku, u64>,
    seed: &[u8],
    room: usize,
) -> Vec<Item> {
    let keys: Vec<Item> = (wanted.keys())
        .filter_map(|sku| Some((sku, counts.known(sku)?)))
        .flat_map(|(sku, hint)| {
            let start = hint.count.start_for(seed);
            (hint.count.extra())
                .filter(move |shard| hint.whole || *shard == start)
                .map(|shard| stock_shard::key(sku, shard))
        })
        .collect();
    if keys.len() > room { Vec::new() } else { keys }
}

/// Stock shards an order's read already has: the keys it asked for, and the levels found; and,
/// for an order's read, the units it wants of each SKU and whose start shard (`seed`) to take
/// them from first.
#[derive(Debug, Default)]
pub(crate) struct ShardsRead {
    asked: HashSet<(Sku, ShardIndex)>,
    found: HashMap<(Sku, ShardIndex), u64>,
    wanted: HashMap<Sku, u64>,
    seed: Vec<u8>,
}

impl ShardsRead {
    /// The keys `keys` were asked for (absent ones hold nothing), by an order that wants
    /// `wanted` and starts where `seed` says.
    pub(crate) fn asked(keys: &[Item], wanted: HashMap<Sku, u64>, seed: &[u8]) -> Self {
        let asked = (keys.iter())
            .filter_map(|key| crate::dynamo::codec::PK.get(key))
            .filter_map(|pk| stock_shard::parse_pk(&pk).ok())
            .collect();
        Self {
            asked,
            found: HashMap::new(),
            wanted,
            seed: seed.to_vec(),
        }
    }

    /// A shard's item found.
    pub(crate) fn found(&mut self, item: Item) -> Result<(), AppError> {
        let shard = stock_shard::from_item(item)?;
        self.found.insert((shard.sku, shard.shard), shard.stock);
        Ok(())
    }

    /// Every shard of `sku` beyond its variant's item (of `count`) known empty without a
    /// read: this process found it sold out a moment ago ([`crate::dynamo::recent`]).
    pub(crate) fn known_empty(&mut self, sku: &Sku, count: ShardCount) {
        (self.asked).extend(count.extra().map(|shard| (sku.clone(), shard)));
    }

    /// Whether `variant`'s start shard holds, as read, what the order wants of it (then the
    /// others need no read: the take asks that shard alone).
    fn start_holds(&self, variant: &Variant) -> bool {
        let Some(wanted) = self.wanted.get(&variant.sku) else {
            return false;
        };
        let start = variant.stock_shards.start_for(&self.seed);
        let level = if start == ShardIndex::VARIANT {
            variant.stock
        } else if self.asked.contains(&(variant.sku.clone(), start)) {
            (self.found.get(&(variant.sku.clone(), start)).copied()).unwrap_or(0)
        } else {
            return false;
        };
        level >= *wanted
    }
}

impl Store {
    /// The levels of the shards of each variant of `variants` that has more than one, in one
    /// BatchGetItem (another per 100 shards past the first 100), strongly or eventually
    /// consistent; each such variant's `stock` becomes its shards' sum. A variant of one shard
    /// costs no read.
    pub async fn read_stock_shards<'a>(
        &self,
        variants: impl IntoIterator<Item = &'a mut Variant>,
        consistent: bool,
    ) -> Result<StockLevels, AppError> {
        self.complete_stock_shards(variants, consistent, ShardsRead::default())
            .await
    }

    /// [`Store::read_stock_shards`], for shards `read` has not asked for yet.
    pub(crate) async fn complete_stock_shards<'a>(
        &self,
        variants: impl IntoIterator<Item = &'a mut Variant>,
        consistent: bool,
        read: ShardsRead,
    ) -> Result<StockLevels, AppError> {
        let all: Vec<&mut Variant> = variants.into_iter().collect();
        // What this process knows of each SKU's count, now read for certain.
        for variant in &all {
            self.shard_counts
                .remember(&variant.sku, variant.stock_shards);
        }
        let mut sharded: Vec<&mut Variant> = (all.into_iter())
            .filter(|variant| variant.stock_shards > ShardCount::ONE)
            .collect();
        let mut levels = StockLevels::for_buyer(&read.seed);
        // A SKU whose buyer's start shard holds the line is taken from there: its other shards
        // stay unread (their levels 0 here, which the take never asks them for).
        let starts: HashSet<Sku> = (sharded.iter())
            .filter(|v| read.start_holds(v))
            .map(|v| v.sku.clone())
            .collect();
        for variant in &sharded {
            if !read.wanted.is_empty() {
                let whole = !starts.contains(&variant.sku);
                self.shard_counts.read_whole(&variant.sku, whole);
            }
        }
        let keys: Vec<Item> = (sharded.iter())
            .filter(|v| !starts.contains(&v.sku))
            .flat_map(|v| (v.stock_shards.extra()).map(|shard| (&v.sku, shard)))
            .filter(|(sku, shard)| !read.asked.contains(&((*sku).clone(), *shard)))
            .map(|(sku, shard)| stock_shard::key(sku, shard))
            .collect();
        let ShardsRead { mut found, .. } = read;
        for chunk in keys.chunks(MAX_BATCH_GET) {
            for item in self.batch_get(chunk.to_vec(), consistent).await? {
                let shard = stock_shard::from_item(item)?;
                found.insert((shard.sku, shard.shard), shard.stock);
            }
        }
        for variant in &mut sharded {
            let mut all = vec![variant.stock];
            all.extend(variant.stock_shards.extra().map(|shard| {
                let at = (variant.sku.clone(), shard);
                found.get(&at).copied().unwrap_or(0)
            }));
            variant.stock = all.iter().sum();
            // Every shard read and none holds a unit: this process answers its buyers sold out
            // while its copy of the variant serves.
            if variant.stock == 0 && !starts.contains(&variant.sku) {
                self.recent.read_sold_out(&variant.sku);
            }
            levels.insert(variant.sku.clone(), all);
        }
        Ok(levels)
    }

    /// A variant with its stock over all its shards: its item, then (if it has more than one
    /// shard) the shards in one BatchGetItem.
    pub async fn variant_whole(
        &self,
        sku: &Sku,
        consistent: bool,
    ) -> Result<Option<Variant>, AppError> {
        let mut variant = self.get_variant(sku, consistent).await?;
        self.read_stock_shards(variant.as_mut(), consistent).await?;
        Ok(variant)
    }

    /// Splits `sku`'s stock over `count` shards, its units spread evenly
    /// (`domain::stock_shards::respread`), in ONE TransactWriteItems: the variant's count and
    /// its own units, each shard's units with the variant's terms, each dropped shard deleted,
    /// every one on the condition that it holds what was read, so a checkout that took units
    /// meanwhile makes it read again and retry. No unit is lost or made. 404 for an unknown
    /// SKU. The variant is read back (strongly consistent) for the answer.
    pub async fn set_stock_shards(
        &self,
        sku: &Sku,
        count: ShardCount,
    ) -> Result<Variant, AppError> {
        self.recent.forget_variant(sku);
        let sent = retry(
            &Backoff::TRANSACTION,
            |err| matches!(err, Retry::Changed | Retry::Contended),
            |_| async move {
                let Some(mut variant) = self.get_variant(sku, true).await? else {
                    return Err(Retry::Failed(AppError::not_found(format!(
                        "variant {sku} does not exist"
                    ))));
                };
                let levels = self.read_stock_shards([&mut variant], true).await?;
                let levels = levels
                    .of(sku)
                    .map_or_else(|| vec![variant.stock], <[u64]>::to_vec);
                let transaction = self.spread(&variant, &levels, count)?;
                match self.send(transaction).await? {
                    Outcome::Committed => Ok(()),
                    Outcome::Cancelled(c) if c.conflicted() => Err(Retry::Contended),
                    Outcome::Cancelled(c) if c.failed_conditions().next().is_some() => {
                        Err(Retry::Changed)
                    }
                    Outcome::Cancelled(c) => Err(Retry::Failed(c.unexplained("stock shards"))),
                }
            },
        )
        .await;
        sent.map_err(|err| err.into_error("variant's stock"))?;
        self.variant_whole(sku, true).await?.ok_or_else(|| {
            AppError::internal(format!("variant {sku} vanished after its shards changed"))
        })
    }

    /// Takes `needed` units of a SKU whose stock is split over shards, from the fullest ones
    /// (`domain::stock_shards::plan_take`), in ONE TransactWriteItems, each item on the
    /// condition that it still holds what the plan takes; a shard short meanwhile makes it read
    /// again. 409 when all of them together hold less. `None`, with nothing written, for a SKU
    /// of one shard (or none): [`Store::adjust_stock`]'s own take decides.
    pub(crate) async fn take_over_shards(
        &self,
        sku: &Sku,
        needed: u64,
    ) -> Result<Option<()>, AppError> {
        let taken = retry(
            &Backoff::TRANSACTION,
            |err| matches!(err, Retry::Changed | Retry::Contended),
            |_| async move {
                let Some(mut variant) = self.get_variant(sku, true).await? else {
                    return Ok(None);
                };
                let levels = self.read_stock_shards([&mut variant], true).await?;
                let Some(levels) = levels.of(sku) else {
                    return Ok(None);
                };
                let Some(takes) = plan_take(levels, needed, ShardIndex::VARIANT) else {
                    tracing::info!(%sku, stock = variant.stock, "a stock change would take it below 0");
                    return Err(Retry::Failed(AppError::OutOfStock(vec![sku.clone()])));
                };
                let mut transaction = Transaction::with_capacity(takes.len());
                for take in takes {
                    transaction.update((), self.take_units(sku, take)?)?;
                }
                match self.send(transaction).await? {
                    Outcome::Committed => Ok(Some(())),
                    Outcome::Cancelled(c) if c.conflicted() => Err(Retry::Contended),
                    Outcome::Cancelled(c) if c.failed_conditions().next().is_some() => {
                        Err(Retry::Changed)
                    }
                    Outcome::Cancelled(c) => Err(Retry::Failed(c.unexplained("stock"))),
                }
            },
        )
        .await;
        taken.map_err(|err| err.into_error("variant's stock"))
    }

    /// `take`'s units taken from its item, if it holds them.
    fn take_units(&self, sku: &Sku, take: Take) -> Result<UpdateBuilder, AppError> {
        let units = take.units as i64;
        if take.shard == ShardIndex::VARIANT {
            return (variant::STOCK_UPDATE.on(&self.table, variant::key(sku)))
                .add(&variant::STOCK_CHANGE, &-units)
                .condition("#stock >= :needed")
                .value(":needed", &variant::STOCK, &take.units)
                .build();
        }
        (stock_shard::TAKE.on(&self.table, stock_shard::key(sku, take.shard)))
            .add(&stock_shard::STOCK_CHANGE, &-units)
            .condition("#stock >= :needed")
            .value(":needed", &stock_shard::STOCK, &take.units)
            .build()
    }

    /// The transaction that moves `variant`'s units from `levels` (as read) to `count` shards.
    fn spread(
        &self,
        variant: &Variant,
        levels: &[u64],
        count: ShardCount,
    ) -> Result<Transaction<()>, AppError> {
        let moves: HashMap<usize, i64> = (respread(levels, count).into_iter())
            .map(|(shard, change)| (shard.get(), change))
            .collect();
        let moved = |shard: usize| moves.get(&shard).copied().unwrap_or(0);
        let level = |shard: usize| levels.get(shard).copied().unwrap_or(0);
        let mut transaction = Transaction::with_capacity(levels.len().max(count.get()));
        transaction.update((), self.spread_variant(variant, level(0), moved(0), count)?)?;
        let shards = (variant.stock_shards.extra()).chain(count.extra());
        let mut done = std::collections::BTreeSet::new();
        for shard in shards.filter(|shard| done.insert(*shard)) {
            let at = shard.get();
            let key = stock_shard::key(&variant.sku, shard);
            if at < count.get() {
                let write = (stock_shard::SPREAD.on(&self.table, key))
                    .add(&stock_shard::STOCK_CHANGE, &moved(at))
                    .set(&stock_shard::PRICE, &variant.price)
                    .set(&stock_shard::STATUS, &variant.status)
                    .condition(still_at(level(at)))
                    .value(":level", &stock_shard::STOCK, &level(at));
                transaction.update((), write.build()?)?;
            } else {
                let drop = (stock_shard::DROP.delete(&self.table, key))
                    .condition(still_at(level(at)))
                    .value(":level", &stock_shard::STOCK, &level(at));
                transaction.delete((), drop.build()?)?;
            }
        }
        Ok(transaction)
    }

    /// The variant's part of a change of its count: the count, its own units moved, on the
    /// condition that its units, count and terms are as read.
    fn spread_variant(
        &self,
        variant: &Variant,
        level: u64,
        moved: i64,
        count: ShardCount,
    ) -> Result<UpdateBuilder, AppError> {
        let status = if variant.status == ProductStatus::Published {
            "(attribute_not_exists(#status) OR #status = :status)"
        } else {
            "#status = :status"
        };
        let condition = format!(
            "#stock = :level AND #price = :price AND {status} AND {}",
            shards_still(variant.stock_shards)
        );
        variant::SPREAD
            .on(&self.table, variant::key(&variant.sku))
            .set(&variant::STOCK_SHARDS, &count)
            .set(&variant::ORDER_SHARDS, &count.max(variant.order_shards))
            .add(&variant::STOCK_CHANGE, &moved)
            .condition(condition)
            .value(":level", &variant::STOCK, &level)
            .value(":price", &variant::PRICE, &variant.price)
            .value(":status", &variant::STATUS, &variant.status)
            .value(":shards", &variant::STOCK_SHARDS, &variant.stock_shards)
            .build()
    }
}
