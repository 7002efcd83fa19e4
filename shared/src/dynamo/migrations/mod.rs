//! Migrations of data already written, named and versioned here and run by `store-migrate`
//! (`ops/`): what a team does when the store starts answering a question its design never
//! listed, for the items written before it did (docs/adding-an-access-pattern.md).
//!
//! A run is one parallel Scan (`segments` at once), the one Scan in the project, and only here:
//! every change it makes is a conditional write that does nothing where the change is already
//! made, so it is safe beside live traffic and safe to run twice. Each segment's progress is
//! checkpointed in the table (`MIGRATION#<name>` / `SEGMENT#<n>#<i>`), so a run stopped at any
//! moment continues where it stopped; completion is recorded (`STATUS`) and a completed
//! migration is not run again. The pace is held to `max_read` / `max_write` units per second of
//! the capacity DynamoDB reports ([`budget`]).

pub mod budget;
mod line_item_gsi2;
mod products;
mod state;

use std::sync::atomic::{AtomicU64, Ordering};

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use futures_util::future::join_all;

use crate::AppError;
use crate::dynamo::codec::Item;
use crate::dynamo::store::Store;
use crate::retry::{Backoff, retry};

pub use budget::{Budget, Spent};

/// The UpdateItems the migrations send (`store-migrate`, with `StoreMigrationPolicy`): no
/// function sends them.
pub const UPDATES: &[&crate::dynamo::update::UpdateSpec] = &[
    &crate::dynamo::entities::line_item::GSI2_BACKFILL,
    &crate::dynamo::entities::variant::ADOPT,
];

/// A migration of data already written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Migration {
    /// Access pattern 8 (a product's orders) reads GSI2, which only line items written since
    /// carry keys for: this sets `GSI2PK`, `GSI2SK` and `customerId` on the older ones, from
    /// their order's header or, for orders the source design's boto3 code wrote (no header),
    /// from their order's listing item.
    LineItemGsi2,
    /// Products group variants: each SKU written before them becomes the one variant of a
    /// product of its own (its SKU as the product's ID), published, read by access pattern 12
    /// through GSI3.
    Products,
}

impl Migration {
    /// Every migration, in the order they run.
    pub const ALL: [Migration; 2] = [Migration::LineItemGsi2, Migration::Products];

    /// The migration's name, as its state's partition key holds it.
    pub fn name(self) -> &'static str {
        match self {
            Migration::LineItemGsi2 => "0001-line-item-gsi2",
            Migration::Products => "0002-products",
        }
    }

    /// The index whose keys it writes: it must exist and be ACTIVE before anything is written.
    pub fn index(self) -> &'static str {
        match self {
            Migration::LineItemGsi2 => crate::dynamo::keys::GSI2,
            Migration::Products => crate::dynamo::keys::GSI3,
        }
    }

    /// Its version: a completion recorded under another version does not count, so it runs
    /// again.
    pub fn version(self) -> u32 {
        match self {
            Migration::LineItemGsi2 | Migration::Products => 1,
        }
    }

    /// What it does, in a sentence.
    pub fn describe(self) -> &'static str {
        match self {
            Migration::LineItemGsi2 => {
                "line items written before GSI2 get GSI2PK, GSI2SK and customerId (access pattern 8)"
            }
            Migration::Products => {
                "each SKU written before products becomes the one variant of a published product of its own ID (access pattern 12)"
            }
        }
    }
}

/// How a run goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Scan segments read at once.
    pub segments: u32,
    /// The most read / write units per second the run may average (none: no limit).
    pub max_read: Option<f64>,
    /// The most write units a second it may spend (`None`: no limit).
    pub max_write: Option<f64>,
    /// Count what would change; write nothing, checkpoints included.
    pub dry_run: bool,
    /// Run a migration recorded complete again, from the start of the scan.
    pub rerun: bool,
    /// Scan nothing: look again at each item an earlier run could not place.
    pub retry_unplaceable: bool,
}

impl Default for Options {
    /// Four segments, no limit, everything written.
    fn default() -> Self {
        Self {
            segments: 4,
            max_read: None,
            max_write: None,
            dry_run: false,
            rerun: false,
            retry_unplaceable: false,
        }
    }
}

/// What a run has done so far: updated as it goes, for a progress display.
#[derive(Debug, Default)]
pub struct Progress {
    scanned: AtomicU64,
    changed: AtomicU64,
    skipped: AtomicU64,
    deferred: AtomicU64,
    unplaceable: AtomicU64,
    segments_done: AtomicU64,
}

/// A snapshot of [`Progress`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Items the scan read.
    pub scanned: u64,
    /// Items changed (or, in a dry run, that would be).
    pub changed: u64,
    /// Items found changed already when written (a concurrent run, or a retried page).
    pub skipped: u64,
    /// Line items whose order was not known when the scan met them, set aside until it had read
    /// every order listing.
    pub deferred: u64,
    /// Line items that could not be placed (no order to take their keys from, or a key outside
    /// the store's ID grammar): each reported by key with the reason, recorded for
    /// `--retry-unplaceable`, left alone, never guessed.
    pub unplaceable: u64,
    /// Scan segments finished.
    pub segments_done: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, more: Counts) {
        self.scanned += more.scanned;
        self.changed += more.changed;
        self.skipped += more.skipped;
        self.deferred += more.deferred;
        self.unplaceable += more.unplaceable;
        self.segments_done += more.segments_done;
    }
}

impl Counts {
    /// What was counted after `before` was.
    fn since(self, before: Counts) -> Counts {
        Counts {
            scanned: self.scanned - before.scanned,
            changed: self.changed - before.changed,
            skipped: self.skipped - before.skipped,
            deferred: self.deferred - before.deferred,
            unplaceable: self.unplaceable - before.unplaceable,
            segments_done: self.segments_done - before.segments_done,
        }
    }
}

impl Progress {
    fn add(&self, counts: Counts) {
        self.scanned.fetch_add(counts.scanned, Ordering::Relaxed);
        self.changed.fetch_add(counts.changed, Ordering::Relaxed);
        self.skipped.fetch_add(counts.skipped, Ordering::Relaxed);
        self.deferred.fetch_add(counts.deferred, Ordering::Relaxed);
        self.unplaceable
            .fetch_add(counts.unplaceable, Ordering::Relaxed);
    }

    /// What it has done so far.
    pub fn counts(&self) -> Counts {
        Counts {
            scanned: self.scanned.load(Ordering::Relaxed),
            changed: self.changed.load(Ordering::Relaxed),
            skipped: self.skipped.load(Ordering::Relaxed),
            deferred: self.deferred.load(Ordering::Relaxed),
            unplaceable: self.unplaceable.load(Ordering::Relaxed),
            segments_done: self.segments_done.load(Ordering::Relaxed),
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Which migration.
    pub migration: Migration,
    /// Recorded complete before this run: nothing was read or written.
    pub already_complete: bool,
    /// Segments a previous, interrupted run had finished, not scanned again.
    pub segments_resumed: u32,
    /// What it did.
    pub counts: Counts,
    /// What it spent.
    pub spent: Spent,
    /// How long it took, in seconds.
    pub seconds: f64,
}

/// Items a scan page holds at most: a page's work (headers read, lines set) is done before its
/// checkpoint is written, so a stopped run repeats at most a page per segment.
const SCAN_PAGE: i32 = 200;

/// Retried through the one retry helper: throttling and DynamoDB's own failures, after the
/// SDK's own retries, with an operator's patience.
pub(crate) async fn patiently<T, F, Fut>(attempt: F) -> Result<T, AppError>
where
    F: FnMut(u32) -> Fut,
    Fut: std::future::Future<Output = Result<T, AppError>>,
{
    retry(
        &Backoff::OPERATOR,
        |err| matches!(err, AppError::Unavailable(_)),
        attempt,
    )
    .await
}

impl Store {
    /// Runs `migration` to completion (or, if it is recorded complete, does nothing): every
    /// segment of the scan at once, each from its checkpoint, then what was deferred.
    pub async fn migrate(
        &self,
        migration: Migration,
        options: &Options,
        budget: &Budget,
        progress: &Progress,
    ) -> Result<Report, AppError> {
        let started = budget.elapsed();
        let mut report = Report {
            migration,
            already_complete: false,
            segments_resumed: 0,
            counts: Counts::default(),
            spent: budget.spent(),
            seconds: 0.0,
        };
        // Nothing is written to a table whose index the migration fills is missing or building:
        // it would be recorded complete with nothing listed.
        self.index_active(migration.index()).await?;
        let before = progress.counts();
        if options.retry_unplaceable {
            let retried = match migration {
                Migration::LineItemGsi2 => {
                    line_item_gsi2::retry_unplaceable(self, migration, options, budget).await?
                }
                Migration::Products => products::retry_unplaceable(self, options, budget).await?,
            };
            progress.add(retried);
        } else {
            let complete = self.migration_complete(migration, budget).await?;
            if !options.dry_run && !options.rerun && complete {
                report.already_complete = true;
                return Ok(report);
            }
            if options.rerun && !options.dry_run {
                // The scan records again whatever it still cannot place.
                self.clear_unplaceable(migration, budget).await?;
            }
            let segments = (0..options.segments.max(1))
                .map(|segment| self.migrate_segment(migration, segment, options, budget, progress));
            for resumed in join_all(segments).await {
                report.segments_resumed += u32::from(resumed?);
            }
            if migration == Migration::LineItemGsi2 {
                let deferred =
                    line_item_gsi2::resolve_deferred(self, migration, options, budget).await?;
                progress.add(deferred);
            }
        }
        if !options.dry_run {
            let left = self.unplaceable(migration, budget).await?.len() as u64;
            self.record_complete(migration, left, budget).await?;
        }
        let after = progress.counts();
        report.counts = after.since(before);
        report.spent = budget.spent();
        report.seconds = (budget.elapsed() - started).as_secs_f64();
        Ok(report)
    }

    /// One segment of the scan, page by page from its checkpoint; `true` when an earlier run
    /// had finished it.
    async fn migrate_segment(
        &self,
        migration: Migration,
        segment: u32,
        options: &Options,
        budget: &Budget,
        progress: &Progress,
    ) -> Result<bool, AppError> {
        let mut checkpoint = if options.dry_run || options.rerun {
            state::Checkpoint::default()
        } else {
            self.read_checkpoint(migration, segment, options.segments, budget)
                .await?
        };
        if checkpoint.done {
            progress.segments_done.fetch_add(1, Ordering::Relaxed);
            return Ok(true);
        }
        loop {
            let (items, next) = self
                .scan_page(segment, options.segments, checkpoint.next.clone(), budget)
                .await?;
            let counts = match migration {
                Migration::LineItemGsi2 => {
                    line_item_gsi2::migrate_page(self, migration, items, options, budget).await?
                }
                Migration::Products => {
                    products::migrate_page(self, migration, items, options, budget).await?
                }
            };
            progress.add(counts);
            checkpoint.advance(counts, next);
            if !options.dry_run {
                self.write_checkpoint(migration, segment, options.segments, &checkpoint, budget)
                    .await?;
            }
            if checkpoint.done {
                progress.segments_done.fetch_add(1, Ordering::Relaxed);
                return Ok(false);
            }
        }
    }

    /// One page of one segment of the parallel Scan: its items, and where the next starts.
    async fn scan_page(
        &self,
        segment: u32,
        segments: u32,
        start: Option<Item>,
        budget: &Budget,
    ) -> Result<(Vec<Item>, Option<Item>), AppError> {
        let out = patiently(|_| async {
            self.client
                .scan()
                .table_name(&self.table)
                .segment(i32::try_from(segment).unwrap_or(i32::MAX))
                .total_segments(i32::try_from(segments.max(1)).unwrap_or(i32::MAX))
                .limit(SCAN_PAGE)
                .set_exclusive_start_key(start.clone())
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(AppError::from)
        })
        .await?;
        budget.read(out.consumed_capacity()).await?;
        let next = out.last_evaluated_key.filter(|key| !key.is_empty());
        Ok((out.items.unwrap_or_default(), next))
    }
}
