//! The holds' expiry, every minute (an EventBridge schedule; `make dev` runs it every
//! `EXPIRY_EVERY_SECONDS`): each hold whose `holdUntil` has passed ends, its order EXPIRED and
//! its stock given back, found through access pattern 4 (GSI1, PENDING_PAYMENT, oldest first,
//! every shard), a page at a time, within the invocation's time. What it did is its result; a
//! run cut short by its deadline says so, and the next run carries on. Idempotent: each hold's
//! transaction is conditional on the hold still pending, so a run that overlaps another, or a
//! payment, ends nothing twice. One item it cannot read, or a hold whose transaction fails, is
//! reported by key (`failures`, metric `HoldsNotEnded` with its alarm), never a stop: every other
//! hold ends on time. Each hold it ended has its PaymentIntent canceled at the provider, so that
//! the customer can no longer pay it; one that could not be (the provider down) is reported,
//! and a payment of it that still arrives is recorded for refund.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use payment_provider::Provider;
use serde::Serialize;
use shared::domain::ids::PaymentId;
use shared::dynamo::holds::ExpiryRun;
use shared::metrics::{self, Metric};
use shared::{AppError, Store};

/// What the expiry needs: the store, and the payment provider its ended holds' PaymentIntents
/// are canceled at.
#[derive(Debug, Clone)]
pub struct Expiry {
    /// The store.
    pub store: Store,
    /// The payment provider.
    pub provider: Provider,
}

/// What a run did: the holds it ended, and what became of their PaymentIntents.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    /// The holds.
    #[serde(flatten)]
    pub holds: ExpiryRun,
    /// Ended holds whose PaymentIntent the provider canceled: nobody can pay them any more.
    pub intents_canceled: usize,
    /// Those it could not cancel (the provider down, or the run out of time), with why: a
    /// payment of one that still arrives is recorded for refund, as any late payment is.
    pub intents_not_canceled: Vec<NotCanceled>,
}

/// A PaymentIntent the run could not cancel, and why.
#[derive(Debug, Clone, Serialize)]
pub struct NotCanceled {
    /// The PaymentIntent.
    pub intent: PaymentId,
    /// Why.
    pub reason: String,
}

/// PaymentIntents canceled at once: the provider's rate limit is far above it.
const AT_ONCE: usize = 8;

pub async fn handle(expiry: &Expiry, budget: Duration) -> Result<Run, AppError> {
    let deadline = Instant::now() + budget;
    // The holds first, with most of the time: ending them on time is what frees the stock.
    let mut run = expiry.store.end_expired_holds(budget.mul_f64(0.7)).await?;
    let ended = std::mem::take(&mut run.ended_intents);
    let mut answer = Run::default();
    for batch in ended.chunks(AT_ONCE) {
        if Instant::now() >= deadline {
            answer
                .intents_not_canceled
                .extend(batch.iter().map(|intent| NotCanceled {
                    intent: intent.clone(),
                    reason: "the run ran out of time".into(),
                }));
            continue;
        }
        let canceled = join_all(
            batch
                .iter()
                .map(|intent| expiry.provider.cancel_payment_intent(intent)),
        )
        .await;
        for (intent, canceled) in batch.iter().zip(canceled) {
            match canceled {
                Ok(_) => answer.intents_canceled += 1,
                Err(err) => {
                    tracing::warn!(%intent, error = %err, "an ended hold's PaymentIntent was not canceled; a payment of it will be refunded");
                    answer.intents_not_canceled.push(NotCanceled {
                        intent: intent.clone(),
                        reason: err.to_string(),
                    });
                }
            }
        }
    }
    metrics::count(Metric::HoldsExpired, run.expired as u64);
    metrics::count(Metric::HoldsNotEnded, run.failures.len() as u64);
    metrics::count(
        Metric::IntentsNotCanceled,
        answer.intents_not_canceled.len() as u64,
    );
    if !run.failures.is_empty() {
        tracing::error!(failures = ?run.failures, "the expiry went past what it could not end");
    }
    if run.unfinished || run.contended > 0 {
        tracing::warn!(?run, "holds still to end: the next run goes on");
    } else if run.expired > 0 {
        tracing::info!(?run, "holds ended");
    }
    answer.holds = run;
    Ok(answer)
}
