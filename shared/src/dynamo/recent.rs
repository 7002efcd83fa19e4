//! What this process read a moment ago of the items every checkout of a flash sale would
//! otherwise read: the variants of SKUs whose stock is split over shards, and the promotions.
//! Each is one partition every buyer shares (a variant's item, `PROMOTIONS`), and DynamoDB
//! serves a partition 6,000 eventually consistent reads a second, so at a few thousand
//! checkouts a second their reads, not the writes the shards spread, are the ceiling. A copy
//! serves an eventually consistent read for [`RECENT`]: on Lambda, a process serves one request
//! at a time, so each reads these at most once a second however fast the sale.
//!
//! A copy only ever decides what a transaction then checks: a sharded SKU's take is
//! conditioned on the shard's own copy of the price and status and on its level, so a stale
//! copy makes the checkout read again (strongly consistent), never sell at an old price; and
//! a promotion's start and end are applied by the clock. What a staff edit of a promotion
//! changes reaches checkouts within [`RECENT`] (and at once in the process that wrote it).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::domain::ids::Sku;
use crate::domain::promotions::PromotionRule;
use crate::domain::stock_shards::ShardCount;
use crate::domain::variant::Variant;

/// How long a copy serves, unless the store is told otherwise
/// ([`crate::Store::with_copies_kept`]).
pub const RECENT: Duration = Duration::from_secs(1);

/// Every promotion and its version, as [`crate::Store`] reads them.
pub(crate) type Promotions = Vec<(PromotionRule, u64)>;

/// The copies, shared by the clones of one store (one process), and how long one serves.
#[derive(Debug, Clone)]
pub(crate) struct Recent(Arc<Mutex<Copies>>, Duration);

impl Default for Recent {
    fn default() -> Self {
        Self::keeping(RECENT)
    }
}

#[derive(Debug, Default)]
struct Copies {
    variants: HashMap<Sku, (Instant, Variant)>,
    promotions: Option<(Instant, Promotions)>,
}

impl Recent {
    /// Copies that serve for `ttl` (zero: never; every read reads).
    pub(crate) fn keeping(ttl: Duration) -> Self {
        Self(Arc::default(), ttl)
    }

    fn fresh(&self, at: Instant) -> bool {
        at.elapsed() < self.1
    }

    fn copies(&self) -> MutexGuard<'_, Copies> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `sku`'s variant, as read less than [`RECENT`] ago (its own item's stock, not summed).
    pub(crate) fn variant(&self, sku: &Sku) -> Option<Variant> {
        let copies = self.copies();
        let (at, variant) = copies.variants.get(sku)?;
        self.fresh(*at).then(|| variant.clone())
    }

    /// A variant just read from its item: kept if its stock is split over shards (a SKU on
    /// sale in a flash sale), forgotten otherwise.
    pub(crate) fn read_variant(&self, variant: &Variant) {
        let mut copies = self.copies();
        if variant.stock_shards > ShardCount::ONE {
            let copy = (Instant::now(), variant.clone());
            copies.variants.insert(variant.sku.clone(), copy);
        } else {
            copies.variants.remove(&variant.sku);
        }
    }

    /// `sku`'s variant changed here: the next read reads it.
    pub(crate) fn forget_variant(&self, sku: &Sku) {
        self.copies().variants.remove(sku);
    }

    /// The promotions, as read less than [`RECENT`] ago.
    pub(crate) fn promotions(&self) -> Option<Promotions> {
        let copies = self.copies();
        let (at, promotions) = copies.promotions.as_ref()?;
        self.fresh(*at).then(|| promotions.clone())
    }

    /// The promotions, just read.
    pub(crate) fn read_promotions(&self, promotions: &Promotions) {
        self.copies().promotions = Some((Instant::now(), promotions.clone()));
    }

    /// A promotion changed here: the next read reads them.
    pub(crate) fn forget_promotions(&self) {
        self.copies().promotions = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::variant::test_support::mug;

    #[test]
    fn only_a_sharded_skus_variant_is_kept_and_a_change_here_forgets_it() {
        let recent = Recent::default();
        let sku = Sku::parse("sku-1").expect("sku");
        let mut variant = mug(sku.clone());
        recent.read_variant(&variant);
        assert_eq!(recent.variant(&sku), None, "one shard: always read");
        variant.stock_shards = ShardCount::new(4).expect("count");
        recent.read_variant(&variant);
        assert_eq!(recent.variant(&sku), Some(variant.clone()));
        recent.forget_variant(&sku);
        assert_eq!(recent.variant(&sku), None);
        recent.read_promotions(&Vec::new());
        assert_eq!(recent.promotions(), Some(Vec::new()));
        recent.forget_promotions();
        assert_eq!(recent.promotions(), None);
    }

    #[test]
    fn a_copy_serves_for_a_second_then_is_read_again() {
        let recent = Recent::default();
        let old = Instant::now().checked_sub(RECENT + Duration::from_millis(1));
        let Some(old) = old else {
            return;
        };
        recent.copies().promotions = Some((old, Vec::new()));
        assert_eq!(recent.promotions(), None);
        let never = Recent::keeping(Duration::ZERO);
        never.read_promotions(&Vec::new());
        assert_eq!(
            never.promotions(),
            None,
            "a store told to keep nothing reads every time"
        );
        let mut variant = mug(Sku::parse("sku-1").expect("sku"));
        variant.stock_shards = ShardCount::new(2).expect("count");
        (recent.copies().variants).insert(variant.sku.clone(), (old, variant.clone()));
        assert_eq!(recent.variant(&variant.sku), None);
    }
}
