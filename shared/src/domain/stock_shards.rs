//! Stock shards: a SKU's stock split across items of their own, so that its buyers, arriving
//! together, write different partitions (one serves at most 1,000 write units a second, a
//! transactional write costs two, and two transactions on one item at once do not queue). Shard
//! 0 is the variant's own item, where stock was before shards: a SKU of one shard is stored as
//! before. What a checkout takes and what a change of the count moves are plans over the
//! shards' levels, worked out here; the DynamoDB layer writes them, each shard's condition
//! checking its level again, since the levels a plan starts from may be an eventual read.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use crate::AppError;
use crate::domain::ids::Sku;
use crate::domain::money::Money;
use crate::domain::product::ProductStatus;

/// How many items a SKU's stock is split across: 1 to [`ShardCount::MAX`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ShardCount(u8);

impl ShardCount {
    /// The variant's item alone: every SKU until staff or the store raise it.
    pub const ONE: Self = Self(1);
    /// The most. 32 shards serve ~16,000 checkouts a second of one SKU at DynamoDB's published
    /// limits (500 transactional writes a second each), and a read of them all is one
    /// BatchGetItem (at most 100 keys).
    pub const MAX: u8 = 32;

    /// A count a client asked for: 1 to [`ShardCount::MAX`].
    pub fn new(count: u64) -> Result<Self, AppError> {
        match u8::try_from(count) {
            Ok(count @ 1..=Self::MAX) => Ok(Self(count)),
            _ => Err(AppError::invalid(format!(
                "a SKU's stock shards must be 1 to {}",
                Self::MAX
            ))),
        }
    }

    /// How many.
    pub fn get(self) -> usize {
        usize::from(self.0)
    }

    /// Every shard, the variant's own item (0) first.
    pub fn all(self) -> impl Iterator<Item = ShardIndex> {
        (0..self.0).map(ShardIndex)
    }

    /// The shards beyond the variant's own item: 1 to the count less one.
    pub fn extra(self) -> impl Iterator<Item = ShardIndex> {
        (1..self.0).map(ShardIndex)
    }

    /// A count as stored: 1 to [`ShardCount::MAX`], else `None`.
    pub fn parse(text: &str) -> Option<Self> {
        text.parse().ok().and_then(|count| Self::new(count).ok())
    }

    /// Where a buyer starts looking: the same shard for the same `seed` (an order's ID, so a
    /// retried checkout asks the same shard first), and buyers spread evenly over the shards.
    pub fn start_for(self, seed: &[u8]) -> ShardIndex {
        // FNV-1a: stable across builds and platforms, unlike std's randomly keyed hasher.
        let hash = seed.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
        });
        ShardIndex((hash % u64::from(self.0)) as u8)
    }
}

impl Default for ShardCount {
    fn default() -> Self {
        Self::ONE
    }
}

impl fmt::Display for ShardCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// One of a SKU's stock shards: 0 is the variant's item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ShardIndex(u8);

impl ShardIndex {
    /// The variant's own item, where stock put back goes.
    pub const VARIANT: Self = Self(0);

    /// Its position among the shards.
    pub fn get(self) -> usize {
        usize::from(self.0)
    }

    /// The `k`th shard, if a SKU can have one (`k` below [`ShardCount::MAX`]).
    pub fn nth(k: usize) -> Option<Self> {
        (u8::try_from(k).ok())
            .filter(|k| *k < ShardCount::MAX)
            .map(Self)
    }

    /// A shard beyond the variant's item as its key names it: 1 to [`ShardCount::MAX`] less
    /// one, else `None`.
    pub fn parse_extra(text: &str) -> Option<Self> {
        match text.parse::<u8>() {
            Ok(index @ 1..ShardCount::MAX) if !text.starts_with('0') => Some(Self(index)),
            _ => None,
        }
    }
}

impl fmt::Display for ShardIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A shard beyond the variant's item (index 1 and up): its part of the SKU's stock, and copies
/// of the variant's price and status, which a checkout's take checks there rather than on the
/// variant's item, the partition every buyer of the SKU would otherwise write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StockShard {
    /// Whose.
    pub sku: Sku,
    /// Which: 1 and up.
    pub shard: ShardIndex,
    /// The units it holds.
    pub stock: u64,
    /// The variant's price, as last written to it.
    pub price: Money,
    /// The variant's status, as last written to it.
    pub status: ProductStatus,
}

/// Units a line takes from one shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Take {
    /// From which.
    pub shard: ShardIndex,
    /// How many.
    pub units: u64,
}

/// Where a line's `needed` units come from, given its SKU's shard levels (index = shard) and
/// where its buyer starts: one shard when one holds enough, the first such from `start` on, so
/// buyers arriving together write different items; otherwise the fullest shards until `needed`
/// is met, so a unit in stock is never refused while another shard holds it. `None` when all of
/// them together hold less: sold out for this line.
///
/// Levels beyond [`ShardCount::MAX`] are not shards and are not read.
pub fn plan_take(levels: &[u64], needed: u64, start: ShardIndex) -> Option<Vec<Take>> {
    let levels = shards_of(levels);
    let count = levels.len();
    if count == 0 || levels.iter().sum::<u64>() < needed {
        return None;
    }
    let from_start = (0..count).map(|step| (start.get() + step) % count);
    if let Some(shard) = from_start.clone().find(|&shard| levels[shard] >= needed) {
        return Some(vec![take(shard, needed)]);
    }
    let mut fullest: Vec<usize> = from_start.filter(|&shard| levels[shard] > 0).collect();
    fullest.sort_by_key(|&shard| std::cmp::Reverse(levels[shard]));
    let mut left = needed;
    let mut takes = Vec::new();
    for shard in fullest {
        let units = levels[shard].min(left);
        takes.push(take(shard, units));
        left -= units;
        if left == 0 {
            break;
        }
    }
    Some(takes)
}

fn take(shard: usize, units: u64) -> Take {
    Take {
        shard: index(shard),
        units,
    }
}

/// The levels that are shards: at most [`ShardCount::MAX`].
fn shards_of(levels: &[u64]) -> &[u64] {
    &levels[..levels.len().min(usize::from(ShardCount::MAX))]
}

/// A shard's index from its position, below [`ShardCount::MAX`] (see [`shards_of`]).
fn index(shard: usize) -> ShardIndex {
    ShardIndex(shard as u8)
}

/// The shards' levels of the sharded SKUs an order names, as read (index: the shard, 0 the
/// variant's item). A SKU not in it has one shard: the variant's item, whose take's own
/// condition decides. Where the buyer's start shard held the line, only it and the variant's
/// item were read: the others read as 0, and the take asks the start shard alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StockLevels {
    levels: HashMap<Sku, Vec<u64>>,
    /// Where the buyer starts among each SKU's shards ([`buyer_seed`]), as the read did.
    seed: Vec<u8>,
}

/// Where a buyer starts among a SKU's shards, on an order's `attempt`: their customer ID, so
/// buyers spread evenly over the shards; and a retry, which collided with another buyer's take
/// on that shard, starts on another.
pub fn buyer_seed(customer: &crate::domain::ids::CustomerId, attempt: u32) -> Vec<u8> {
    match attempt {
        0 => customer.as_str().as_bytes().to_vec(),
        n => format!("{customer}#{n}").into_bytes(),
    }
}

impl StockLevels {
    /// Levels read for a buyer starting where `seed` says.
    pub fn for_buyer(seed: &[u8]) -> Self {
        Self {
            levels: HashMap::new(),
            seed: seed.to_vec(),
        }
    }

    /// `sku`'s levels, as read.
    pub fn insert(&mut self, sku: Sku, levels: Vec<u64>) {
        self.levels.insert(sku, levels);
    }

    /// `sku`'s levels, if it has more than one shard.
    pub fn of(&self, sku: &Sku) -> Option<&[u64]> {
        self.levels.get(sku).map(Vec::as_slice)
    }

    /// How many shards `sku` has, as read (1 for a SKU not in it).
    pub fn count(&self, sku: &Sku) -> ShardCount {
        self.of(sku)
            .and_then(|levels| ShardCount::new(levels.len() as u64).ok())
            .unwrap_or(ShardCount::ONE)
    }

    /// Where a line of `needed` units of `sku` takes them from, its buyer starting where the
    /// read's seed says: the variant's item alone for a SKU of one shard, else [`plan_take`];
    /// `None` when its shards together hold less.
    pub fn takes(&self, sku: &Sku, needed: u64) -> Option<Vec<Take>> {
        let Some(levels) = self.of(sku) else {
            return Some(vec![take(0, needed)]);
        };
        plan_take(levels, needed, self.count(sku).start_for(&self.seed))
    }
}

/// How many stock shards each sharded SKU had when this process last read its variant, and
/// whether its last buyer here found their start shard short: a hint, so that an order's read
/// asks for the shards in the same BatchGetItem as the variants (a flash sale's buyers, one
/// after another on one Lambda, read one request, not two). While the start shards hold
/// units, the read asks for the buyer's start shard alone (every buyer reading every shard
/// would make each shard's partition as read-hot as the variant's); once one was short, for
/// all of them, so a sold-out SKU is answered from one read. The variant read beside them
/// says the count for certain; a shard the hint missed is read after.
#[derive(Debug, Clone, Default)]
pub struct ShardCounts(Arc<Mutex<HashMap<Sku, ShardHint>>>);

/// What [`ShardCounts`] knows of one SKU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardHint {
    /// Its count of shards, as last read (more than one).
    pub count: ShardCount,
    /// Its last buyer's start shard here held too little: read every shard.
    pub whole: bool,
}

impl ShardCounts {
    fn counts(&self) -> std::sync::MutexGuard<'_, HashMap<Sku, ShardHint>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `sku`'s count as last read, if it had more than one shard.
    pub fn known(&self, sku: &Sku) -> Option<ShardHint> {
        self.counts().get(sku).copied()
    }

    /// `sku`'s count, as just read.
    pub fn remember(&self, sku: &Sku, count: ShardCount) {
        let mut counts = self.counts();
        match count {
            ShardCount::ONE => {
                counts.remove(sku);
            }
            count => {
                let whole = counts.get(sku).is_some_and(|hint| hint.whole);
                counts.insert(sku.clone(), ShardHint { count, whole });
            }
        }
    }

    /// Whether `sku`'s next read should ask for every shard (its start shard was short) or
    /// for its buyer's start shard alone (it held the line).
    pub fn read_whole(&self, sku: &Sku, whole: bool) {
        if let Some(hint) = self.counts().get_mut(sku) {
            hint.whole = whole;
        }
    }
}

/// `total` units spread over `count` shards as evenly as they go, the odd units to the lowest
/// shards: what raising or lowering a SKU's count leaves in each.
pub fn spread(total: u64, count: ShardCount) -> Vec<u64> {
    let shards = u64::from(count.0);
    (0..shards)
        .map(|shard| total / shards + u64::from(shard < total % shards))
        .collect()
}

/// What each shard gains (or loses: negative) to go from `levels` to [`spread`] over `count`
/// shards, the total kept; a shard beyond `count` gives all it holds. Only shards that change.
pub fn respread(levels: &[u64], count: ShardCount) -> Vec<(ShardIndex, i64)> {
    let levels = shards_of(levels);
    let target = spread(levels.iter().sum(), count);
    let shards = levels.len().max(target.len());
    (0..shards)
        .filter_map(|shard| {
            let now = levels.get(shard).copied().unwrap_or(0);
            let then = target.get(shard).copied().unwrap_or(0);
            let change = i128::from(then) - i128::from(now);
            (change != 0).then(|| (index(shard), change as i64))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn at(shard: u8) -> ShardIndex {
        ShardIndex(shard)
    }

    #[test]
    fn a_count_is_one_to_thirty_two() {
        assert_eq!(ShardCount::new(1).ok().map(ShardCount::get), Some(1));
        assert_eq!(ShardCount::new(32).ok().map(ShardCount::get), Some(32));
        assert!(ShardCount::new(0).is_err());
        assert!(ShardCount::new(33).is_err());
        assert!(ShardCount::new(u64::MAX).is_err());
    }

    #[test]
    fn one_shard_that_holds_enough_serves_the_line_from_where_its_buyer_starts() {
        let levels = [5, 0, 2, 9];
        assert_eq!(
            plan_take(&levels, 2, at(1)),
            Some(vec![Take {
                shard: at(2),
                units: 2
            }])
        );
        assert_eq!(
            plan_take(&levels, 6, at(0)),
            Some(vec![Take {
                shard: at(3),
                units: 6
            }])
        );
    }

    #[test]
    fn a_line_no_one_shard_holds_is_taken_from_the_fullest_ones() {
        let levels = [1, 3, 0, 2];
        assert_eq!(
            plan_take(&levels, 5, at(0)),
            Some(vec![
                Take {
                    shard: at(1),
                    units: 3
                },
                Take {
                    shard: at(3),
                    units: 2
                },
            ])
        );
        assert_eq!(plan_take(&levels, 7, at(0)), None);
    }

    #[test]
    fn buyers_start_on_every_shard_and_a_retry_on_the_same_one() {
        let count = ShardCount::new(8).expect("count");
        let starts: std::collections::BTreeSet<_> = (0..200)
            .map(|order| count.start_for(format!("o{order}").as_bytes()))
            .collect();
        assert_eq!(starts.len(), 8);
        assert_eq!(count.start_for(b"o17"), count.start_for(b"o17"));
        assert_eq!(ShardCount::ONE.start_for(b"o17"), ShardIndex::VARIANT);
    }

    #[test]
    fn spreading_gives_the_odd_units_to_the_lowest_shards() {
        let four = ShardCount::new(4).expect("count");
        assert_eq!(spread(10, four), vec![3, 3, 2, 2]);
        assert_eq!(spread(2, four), vec![1, 1, 0, 0]);
        assert_eq!(spread(7, ShardCount::ONE), vec![7]);
    }

    #[test]
    fn lowering_the_count_empties_the_shards_dropped_into_those_kept() {
        let two = ShardCount::new(2).expect("count");
        assert_eq!(
            respread(&[1, 0, 4, 5], two),
            vec![(at(0), 4), (at(1), 5), (at(2), -4), (at(3), -5)]
        );
        assert_eq!(respread(&[5, 5], two), vec![]);
    }

    proptest! {
        #[test]
        fn a_plan_takes_exactly_what_is_needed_and_never_more_than_a_shard_holds(
            levels in proptest::collection::vec(0u64..20, 1..=32),
            needed in 1u64..60,
            start in 0u8..32,
        ) {
            let start = ShardIndex(start % levels.len() as u8);
            let total: u64 = levels.iter().sum();
            match plan_take(&levels, needed, start) {
                None => prop_assert!(total < needed),
                Some(takes) => {
                    prop_assert_eq!(takes.iter().map(|t| t.units).sum::<u64>(), needed);
                    let mut seen = std::collections::BTreeSet::new();
                    for take in &takes {
                        prop_assert!(take.units > 0 && take.units <= levels[take.shard.get()]);
                        prop_assert!(seen.insert(take.shard));
                    }
                    let one_holds_enough = levels.iter().any(|&level| level >= needed);
                    prop_assert_eq!(takes.len() == 1, one_holds_enough);
                }
            }
        }

        #[test]
        fn a_respread_keeps_every_unit_and_leaves_the_shards_even(
            levels in proptest::collection::vec(0u64..1_000, 1..=32),
            count in 1u64..=32,
        ) {
            let count = ShardCount::new(count).expect("count");
            let mut after: Vec<i128> = levels.iter().map(|&level| i128::from(level)).collect();
            after.resize(after.len().max(count.get()), 0);
            for (shard, change) in respread(&levels, count) {
                after[shard.get()] += i128::from(change);
            }
            prop_assert!(after.iter().all(|&level| level >= 0));
            prop_assert_eq!(after.iter().sum::<i128>(), levels.iter().map(|&l| i128::from(l)).sum::<i128>());
            prop_assert!(after[count.get()..].iter().all(|&level| level == 0));
            let kept = &after[..count.get()];
            let (low, high) = (kept.iter().min().copied(), kept.iter().max().copied());
            prop_assert!(high.zip(low).is_some_and(|(high, low)| high - low <= 1));
        }
    }
}
