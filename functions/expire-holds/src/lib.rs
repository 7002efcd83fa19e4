//! The holds' expiry, every minute (an EventBridge schedule; `make dev` runs it every
//! `EXPIRY_EVERY_SECONDS`): each hold whose `holdUntil` has passed ends, its order EXPIRED and
//! its stock given back, found through access pattern 4 (GSI1, PENDING_PAYMENT, oldest first,
//! every shard), a page at a time, within the invocation's time. What it did is its result; a
//! run cut short by its deadline says so, and the next run carries on. Idempotent: each hold's
//! transaction is conditional on the hold still pending, so a run that overlaps another, or a
//! payment, ends nothing twice. One item it cannot read, or a hold whose transaction fails, is
//! reported by key (`failures`, metric `HoldsNotEnded` with its alarm), never a stop: every other
//! hold ends on time.

use std::time::Duration;

use shared::dynamo::holds::ExpiryRun;
use shared::metrics::{self, Metric};
use shared::{AppError, Store};

pub async fn handle(store: &Store, budget: Duration) -> Result<ExpiryRun, AppError> {
    let run = store.end_expired_holds(budget).await?;
    metrics::count(Metric::HoldsExpired, run.expired as u64);
    metrics::count(Metric::HoldsNotEnded, run.failures.len() as u64);
    if !run.failures.is_empty() {
        tracing::error!(failures = ?run.failures, "the expiry went past what it could not end");
    }
    if run.unfinished || run.contended > 0 {
        tracing::warn!(?run, "holds still to end: the next run goes on");
    } else if run.expired > 0 {
        tracing::info!(?run, "holds ended");
    }
    Ok(run)
}
