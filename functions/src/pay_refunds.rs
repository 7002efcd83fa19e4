//! The refunds payer, every minute (an EventBridge schedule; `make dev` runs it every
//! `REFUNDS_EVERY_SECONDS`): every REQUESTED refund is sent to the provider, and every PENDING
//! one brought to where the provider has it, found through access pattern 10 (GSI1
//! `REFUNDS#<status>`, oldest first), a page at a time, within the invocation's time.
//!
//! A refund is claimed before each send (REQUESTED or PENDING → PENDING, one attempt more, only
//! if nobody claimed it since it was read), so of two overlapping runs only one sends. It is
//! sent once per attempt, with its own ID as the `Idempotency-Key` and in its metadata. After an
//! attempt whose answer was lost (a timeout, a 5xx, a 429), it is looked for at the provider by
//! that metadata before anything is sent again: a provider that ignores `Idempotency-Key`
//! still refunds once. Any other refusal is FAILED with the provider's reason (metric
//! `RefundsFailed`, with an alarm), and an order's balance gets the amount back. A refund the
//! provider has as under way is asked about again on each run until it settles, and one
//! PENDING longer than [`OVERDUE`] is counted (`RefundsOverdue`, with an alarm). One refund it
//! cannot read or settle is reported, never a stop.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use payment_provider::{Provider, ProviderError};
use serde::Serialize;
use shared::domain::provider_refund::{ProviderRefund, Settled};
use shared::domain::refund::{Refund, RefundStatus};
use shared::dynamo::entities::refund;
use shared::metrics::{self, Metric};
use shared::{AppError, Store};

/// What the payer needs: the store, and the provider the refunds are sent to.
#[derive(Debug, Clone)]
pub struct Payer {
    /// The store.
    pub store: Store,
    /// The payment provider.
    pub provider: Provider,
}

/// What a run did.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    /// Refunds sent to the provider (first sends and sends again after a lost answer).
    pub sent: usize,
    /// Refunds that SUCCEEDED this run.
    pub succeeded: usize,
    /// Refunds that FAILED this run.
    pub failed: usize,
    /// Refunds the provider has as under way.
    pub pending: usize,
    /// Refunds found at the provider after an attempt whose answer was lost: not sent again.
    pub found: usize,
    /// Refunds whose outcome is not known yet (the provider did not answer): the next run
    /// looks for each before it sends it again.
    pub unsettled: Vec<Unsettled>,
    /// PENDING longer than [`OVERDUE`].
    pub overdue: usize,
    /// Whether the run stopped for its deadline with refunds still to look at.
    pub unfinished: bool,
}

/// A refund the run could not settle, and why.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Unsettled {
    /// The refund's record, by key (`ORDER#o1 / REFUND#rf_…`).
    pub key: String,
    /// Why.
    pub reason: String,
}

/// A refund claimed less than this ago is someone's send in flight: left to it.
pub const IN_FLIGHT: Duration = Duration::from_secs(30);
/// A refund PENDING longer than this is overdue.
pub const OVERDUE: Duration = Duration::from_secs(24 * 60 * 60);
/// Refunds read a page at a time.
const PAGE: i32 = 25;
/// Refunds sent at once: the provider's rate limit is far above it.
const AT_ONCE: usize = 8;

/// What became of one refund.
enum Step {
    Settled(RefundStatus),
    Found(RefundStatus),
    /// Someone else claimed it, or it is in flight: nothing done.
    Left,
    Unsettled(String),
}

pub async fn handle(payer: &Payer, budget: Duration) -> Result<Run, AppError> {
    let deadline = Instant::now() + budget;
    let mut run = Run::default();
    for status in [RefundStatus::Requested, RefundStatus::Pending] {
        let mut start = None;
        loop {
            if Instant::now() >= deadline {
                run.unfinished = true;
                break;
            }
            let (page, next) = match payer.store.refunds_in(status, start, PAGE).await {
                Ok(read) => read,
                Err(err) => {
                    // This status's next page cannot be read: the other status still is, and
                    // the next run reads this one again.
                    let key = format!("GSI1 {}", refund::gsi1pk(status));
                    count(&mut run, key, Err(err));
                    break;
                }
            };
            for batch in page.chunks(AT_ONCE) {
                let steps = join_all(batch.iter().map(|(_, listed)| async move {
                    match listed {
                        Ok(refund) => payer.step(refund).await,
                        Err(bad) => Err(AppError::internal(format!("unreadable: {bad}"))),
                    }
                }))
                .await;
                for ((key, listed), step) in batch.iter().zip(steps) {
                    if let Ok(refund) = listed {
                        run.overdue += usize::from(is_overdue(refund));
                    }
                    count(&mut run, key.clone(), step);
                }
            }
            start = next.filter(|key| !key.is_empty());
            if start.is_none() {
                break;
            }
        }
    }
    report(&run);
    Ok(run)
}

fn count(run: &mut Run, key: String, step: Result<Step, AppError>) {
    let status = match step {
        Ok(Step::Settled(status)) => {
            run.sent += 1;
            status
        }
        Ok(Step::Found(status)) => {
            run.found += 1;
            status
        }
        Ok(Step::Left) => return,
        Ok(Step::Unsettled(reason)) => {
            run.unsettled.push(Unsettled { key, reason });
            return;
        }
        Err(err) => {
            run.unsettled.push(Unsettled {
                key,
                reason: err.with_causes(),
            });
            return;
        }
    };
    match status {
        RefundStatus::Succeeded => run.succeeded += 1,
        RefundStatus::Failed => run.failed += 1,
        // The payer settles only what it sent: a reversal is the provider's event's.
        RefundStatus::Pending | RefundStatus::Requested | RefundStatus::Reversed => {
            run.pending += 1
        }
    }
}

fn report(run: &Run) {
    metrics::count(Metric::RefundsSucceeded, run.succeeded as u64);
    metrics::count(Metric::RefundsFailed, run.failed as u64);
    metrics::count(Metric::RefundsUnsettled, run.unsettled.len() as u64);
    metrics::count(Metric::RefundsOverdue, run.overdue as u64);
    if run.failed > 0 {
        tracing::error!(
            ?run,
            "refunds the provider refused: FAILED, with its reasons"
        );
    } else if !run.unsettled.is_empty() || run.unfinished {
        tracing::warn!(?run, "refunds still to settle: the next run goes on");
    } else if run.sent + run.found > 0 {
        tracing::info!(?run, "refunds paid");
    }
}

fn is_overdue(refund: &Refund) -> bool {
    refund.status == RefundStatus::Pending && refund.requested_at.age() > OVERDUE
}

fn in_flight(refund: &Refund) -> bool {
    refund.sent_at.is_some_and(|sent| sent.age() < IN_FLIGHT)
}

impl Payer {
    /// One refund brought forward as far as the provider lets it this run.
    async fn step(&self, refund: &Refund) -> Result<Step, AppError> {
        if refund.status == RefundStatus::Pending {
            if let Some(id) = &refund.provider_refund_id {
                // Under way at the provider: where is it now?
                return match self.provider.retrieve_refund(id).await {
                    Ok(made) => match made.mismatch(refund) {
                        None => {
                            self.record(refund, &made.settled(), None, Step::Found)
                                .await
                        }
                        Some(mismatch) => Ok(Step::Unsettled(mismatch)),
                    },
                    Err(err) => Ok(Step::Unsettled(err.to_string())),
                };
            }
            if in_flight(refund) {
                return Ok(Step::Left);
            }
        }
        let Some(claimed) = self.store.claim_refund(refund).await? else {
            return Ok(Step::Left);
        };
        if refund.status == RefundStatus::Pending {
            // An attempt before this one went unanswered: did the provider make it?
            match self.provider.find_refund(&claimed).await {
                Ok(found) if found.is_empty() => {}
                Ok(found) => return self.found(&claimed, &found).await,
                Err(err) => return Ok(Step::Unsettled(err.to_string())),
            }
        }
        self.send(&claimed).await
    }

    /// `claimed` sent, once; an answer lost on the way back is looked for at once.
    async fn send(&self, claimed: &Refund) -> Result<Step, AppError> {
        match self.provider.create_refund(claimed).await {
            Ok(made) => match made.mismatch(claimed) {
                None => self.recorded(claimed, &made, Step::Settled).await,
                // Not what was sent: never sent again, left for someone to look at.
                Some(mismatch) => Ok(Step::Unsettled(mismatch)),
            },
            Err(ProviderError::Refused { message, code, .. }) => {
                let failure = match code {
                    Some(code) => format!("{message} ({code})"),
                    None => message,
                };
                tracing::error!(refund = %claimed.refund_id, %failure, "the provider refused a refund");
                let settled = Settled {
                    provider_refund_id: None,
                    status: RefundStatus::Failed,
                    failure: Some(failure),
                };
                self.record(claimed, &settled, Some(claimed.attempts), Step::Settled)
                    .await
            }
            Err(lost) => match self.provider.find_refund(claimed).await {
                Ok(found) if !found.is_empty() => self.found(claimed, &found).await,
                // Not made, or not known: the next run looks again before it sends.
                Ok(_) | Err(_) => Ok(Step::Unsettled(lost.to_string())),
            },
        }
    }

    /// What the provider's refunds that carry `claimed`'s metadata make of it: the one that is
    /// its, recorded; none that is, or more than one, left unsettled (never sent again) for
    /// someone to look at.
    async fn found(&self, claimed: &Refund, found: &[ProviderRefund]) -> Result<Step, AppError> {
        let mut ours = found.iter().filter(|made| made.mismatch(claimed).is_none());
        match (ours.next(), ours.next()) {
            (Some(made), None) => self.recorded(claimed, made, Step::Found).await,
            (Some(_), Some(_)) => Ok(Step::Unsettled(format!(
                "the provider has more than one refund of refund {}: it is not sent again",
                claimed.refund_id
            ))),
            (None, _) => Ok(Step::Unsettled(
                found
                    .iter()
                    .filter_map(|made| made.mismatch(claimed))
                    .collect::<Vec<_>>()
                    .join("; "),
            )),
        }
    }

    async fn recorded(
        &self,
        claimed: &Refund,
        made: &ProviderRefund,
        step: fn(RefundStatus) -> Step,
    ) -> Result<Step, AppError> {
        self.record(claimed, &made.settled(), Some(claimed.attempts), step)
            .await
    }

    async fn record(
        &self,
        read: &Refund,
        settled: &Settled,
        claimed: Option<u32>,
        step: fn(RefundStatus) -> Step,
    ) -> Result<Step, AppError> {
        if claimed.is_none() && settled.status == RefundStatus::Pending {
            // Still under way: nothing to record.
            return Ok(Step::Left);
        }
        if self.store.settle_refund(read, settled, claimed).await? {
            Ok(step(settled.status))
        } else {
            // The webhook (or another run) recorded it first: only forward.
            Ok(Step::Left)
        }
    }
}
