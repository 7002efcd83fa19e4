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
//!
//! A variant's copy also says whether the read of all its shards that followed found none
//! in stock ([`Recent::read_sold_out`]): for as long as the copy serves, this process answers
//! that SKU's buyers sold out without reading its shards (a sale's end is when most buyers
//! come, and each would otherwise read every shard). A unit given back in another process
//! reaches this one's buyers within [`RECENT`], as a restock does; in this process, at once.

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

/// A variant as read at a moment, whether every shard was then found empty, and whether a
/// buyer has been served from it.
#[derive(Debug)]
struct VariantCopy {
    at: Instant,
    variant: Variant,
    sold_out: bool,
    used: bool,
}

#[derive(Debug, Default)]
struct Copies {
    variants: HashMap<Sku, VariantCopy>,
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
        let mut copies = self.copies();
        let copy = copies.variants.get_mut(sku)?;
        if !self.fresh(copy.at) {
            return None;
        }
        copy.used = true;
        Some(copy.variant.clone())
    }

    /// The SKUs whose copies have ended since a buyer was last served from them, taken: a
    /// checkout reads them again beside its cart, before it knows its lines (they are likely a
    /// flash sale's), so that a copy's end costs its buyer no round trip. A copy no buyer used
    /// is not read ahead again. At most `most` of them (the others wait for the next).
    pub(crate) fn take_ended(&self, most: usize) -> Vec<Sku> {
        let mut copies = self.copies();
        (copies.variants.iter_mut())
            .filter(|(_, copy)| self.ended_after_use(copy))
            .take(most)
            .map(|(sku, copy)| {
                copy.used = false;
                sku.clone()
            })
            .collect()
    }

    /// Whether a copy a buyer used has ended: [`Recent::take_ended`] would take it.
    pub(crate) fn any_ended(&self) -> bool {
        (self.copies().variants.values()).any(|copy| self.ended_after_use(copy))
    }

    /// Whether `copy` served a buyer and has ended since (copies that never serve never end).
    fn ended_after_use(&self, copy: &VariantCopy) -> bool {
        copy.used && !self.fresh(copy.at) && !self.1.is_zero()
    }

    /// Whether `sku`'s copy serves and every shard was found empty when it was read; if so
    /// the copy is marked used, as a buyer's answer taken from it.
    pub(crate) fn sold_out(&self, sku: &Sku) -> bool {
        let mut copies = self.copies();
        match copies.variants.get_mut(sku) {
            Some(copy) if copy.sold_out && self.fresh(copy.at) => {
                copy.used = true;
                true
            }
            _ => false,
        }
    }

    /// A read of all `sku`'s shards, after its copy, found none in stock: until the copy ends,
    /// its buyers are answered sold out from here.
    pub(crate) fn read_sold_out(&self, sku: &Sku) {
        if let Some(copy) = self.copies().variants.get_mut(sku) {
            copy.sold_out = true;
        }
    }

    /// A variant just read from its item: kept if its stock is split over shards (a SKU on
    /// sale in a flash sale), forgotten otherwise.
    pub(crate) fn read_variant(&self, variant: &Variant) {
        let mut copies = self.copies();
        if variant.stock_shards > ShardCount::ONE {
            let copy = VariantCopy {
                at: Instant::now(),
                variant: variant.clone(),
                sold_out: false,
                used: false,
            };
            copies.variants.insert(variant.sku.clone(), copy);
        } else {
            copies.variants.remove(&variant.sku);
        }
    }

    /// `sku`'s variant changed here (its terms, or its stock: a restock, a unit given back):
    /// the next read reads it.
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
        assert!(!recent.sold_out(&sku));
        recent.read_sold_out(&sku);
        assert!(recent.sold_out(&sku));
        recent.read_variant(&variant);
        assert!(
            !recent.sold_out(&sku),
            "a new copy is not sold out until its shards say so"
        );
        recent.read_sold_out(&sku);
        recent.forget_variant(&sku);
        assert_eq!(recent.variant(&sku), None);
        assert!(!recent.sold_out(&sku), "forgotten with its copy");
        recent.read_sold_out(&sku);
        assert!(!recent.sold_out(&sku), "no copy, no mark");
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
        let copy = VariantCopy {
            at: old,
            variant: variant.clone(),
            sold_out: true,
            used: true,
        };
        (recent.copies().variants).insert(variant.sku.clone(), copy);
        assert_eq!(recent.variant(&variant.sku), None);
        assert!(
            !recent.sold_out(&variant.sku),
            "an old copy's mark ends with it"
        );
        assert_eq!(recent.take_ended(0), Vec::new(), "none wanted");
        assert_eq!(recent.take_ended(1), vec![variant.sku.clone()]);
        assert_eq!(recent.take_ended(1), Vec::new(), "taken once");
        recent.read_variant(&variant);
        assert_eq!(recent.take_ended(1), Vec::new(), "fresh");
        let unused = VariantCopy {
            at: old,
            variant: variant.clone(),
            sold_out: false,
            used: false,
        };
        (recent.copies().variants).insert(variant.sku.clone(), unused);
        assert_eq!(recent.take_ended(1), Vec::new(), "no buyer used it");
    }
}
