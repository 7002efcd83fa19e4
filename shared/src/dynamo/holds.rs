//! Holds ended on time: the expiry reads the orders waiting for payment through access pattern
//! 4 (GSI1 `STATUS#PENDING_PAYMENT[#<k>]`, oldest first, every shard: ONE Query per page, never a
//! scan) and ends each hold whose `holdUntil` has passed in a transaction conditioned on the
//! order still being PENDING_PAYMENT: the order becomes EXPIRED, its stock goes back, its place
//! under the cap is released. A payment that got there first wins, and the hold is left alone.
//! TTL plays no part: it deletes up to 48 hours late.
//!
//! One bad item never stops a run: an item the expiry cannot read, a hold whose transaction
//! fails, or a shard's page that DynamoDB refuses is reported by key with its reason
//! ([`ExpiryRun::failures`], metric `HoldsNotEnded`), and every other hold still ends on time.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde::Serialize;

use crate::domain::ids::PaymentId;
use crate::domain::order::Order;
use crate::domain::payment::Payment;
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Item, key_text};
use crate::dynamo::entities::order_listing;
use crate::dynamo::orders::Settle;
use crate::dynamo::orders::StatusChangeError;
use crate::dynamo::query::{Index, KeyQuery};
use crate::retry::{Backoff, retry};
use crate::{AppError, Store};

/// Holds read per Query: each ended one costs a Query and a transaction, so a page is ended
/// well inside a second.
pub const EXPIRY_PAGE: i32 = 100;

/// What one run of the expiry did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpiryRun {
    /// Holds ended: EXPIRED, their stock back.
    pub expired: usize,
    /// Holds found ended already, or paid, by the time their transaction ran.
    pub settled_meanwhile: usize,
    /// Holds whose transaction kept colliding: the next run ends them.
    pub contended: usize,
    /// The run stopped at its deadline with ended holds still to read: the next run goes on.
    pub unfinished: bool,
    /// What the run could not end, each by its key, with why: the rest were ended all the same.
    /// The next run tries each again.
    pub failures: Vec<NotEnded>,
    /// The PaymentIntents of the holds this run ended: canceled at the provider next
    /// (`expire-holds`), so that nobody can pay them any more.
    #[serde(skip)]
    pub ended_intents: Vec<PaymentId>,
}

/// An item or a shard the expiry could not get past, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotEnded {
    /// The item's `PK` and `SK` in the table (a hold), or the GSI1 partition whose page could
    /// not be read.
    pub key: String,
    /// Why, in the error's own words (logged in full as well).
    pub reason: String,
}

impl ExpiryRun {
    fn merge(&mut self, other: ExpiryRun) {
        self.expired += other.expired;
        self.settled_meanwhile += other.settled_meanwhile;
        self.contended += other.contended;
        self.unfinished |= other.unfinished;
        self.failures.extend(other.failures);
        self.ended_intents.extend(other.ended_intents);
    }

    fn failed(&mut self, key: String, err: &AppError) {
        let reason = err.with_causes();
        tracing::error!(%key, %reason, "the expiry could not end this; it goes on with the rest");
        self.failures.push(NotEnded { key, reason });
    }
}

/// What ending one hold came to.
enum Ended {
    /// Ended, with the PaymentIntent that can no longer pay for it, if it had one.
    Expired(Option<PaymentId>),
    SettledMeanwhile,
    Contended,
}

impl Store {
    /// Ends every hold whose end has passed by now, shard by shard, oldest first, a page at a
    /// time, until `budget` is spent (then `unfinished`). Safe to run twice at once: each hold's
    /// transaction is conditional, so a hold is ended once.
    pub async fn end_expired_holds(&self, budget: Duration) -> Result<ExpiryRun, AppError> {
        let deadline = Instant::now() + budget;
        let now = Timestamp::now();
        let mut run = ExpiryRun::default();
        for shard in 0..self.status_shards.count() {
            run.merge(self.end_shards_holds(shard, now, deadline).await);
        }
        Ok(run)
    }

    /// One shard's ended holds, page after page. Every live hold is read (once a run): holds are
    /// listed by when they were made, and a hold made under a longer `HoldMinutes` may end after
    /// one made later under a shorter one, so no hold still running is taken to mean that none
    /// after it has ended. The cost is the live holds' size in read units, once a minute.
    async fn end_shards_holds(&self, shard: u32, now: Timestamp, deadline: Instant) -> ExpiryRun {
        let partition = order_listing::gsi1pk(OrderStatus::PendingPayment, shard);
        let query = KeyQuery::on(Index::Gsi1, partition.clone());
        let mut run = ExpiryRun::default();
        let mut start: Option<Item> = None;
        loop {
            if Instant::now() >= deadline {
                run.unfinished = true;
                return run;
            }
            let out = match query
                .request(self)
                .limit(EXPIRY_PAGE)
                .set_exclusive_start_key(start)
                .send()
                .await
            {
                Ok(out) => out,
                Err(err) => {
                    // The shard's next page cannot be read: the other shards still are.
                    run.failed(format!("GSI1 {partition}"), &AppError::from(err));
                    return run;
                }
            };
            let mut holds = Vec::new();
            for item in out.items.unwrap_or_default() {
                let key = key_text(&item);
                match order_listing::from_item(item) {
                    Ok(hold) => holds.push((key, hold)),
                    Err(err) => run.failed(key, &AppError::from(err)),
                }
            }
            let ended: Vec<&(String, Order)> = holds
                .iter()
                .filter(|(_, hold)| hold.hold_until.is_none_or(|until| until < now))
                .collect();
            let outcomes = join_all(ended.iter().map(|(_, hold)| self.end_hold(hold))).await;
            for ((key, _), outcome) in ended.into_iter().zip(outcomes) {
                match outcome {
                    Ok(Ended::Expired(intent)) => {
                        run.expired += 1;
                        run.ended_intents.extend(intent);
                    }
                    Ok(Ended::SettledMeanwhile) => run.settled_meanwhile += 1,
                    Ok(Ended::Contended) => run.contended += 1,
                    Err(err) => run.failed(key.clone(), &err),
                }
            }
            start = out.last_evaluated_key.filter(|key| !key.is_empty());
            if start.is_none() {
                return run;
            }
        }
    }

    /// Ends one hold: EXPIRED, each line's stock given back, the place released; retried on
    /// collisions. The order is read whole first (its lines say what stock to give back).
    async fn end_hold(&self, hold: &Order) -> Result<Ended, AppError> {
        let Some(details) = self.read_order(&hold.order_id).await? else {
            return Ok(Ended::SettledMeanwhile);
        };
        let ended = retry(
            &Backoff::TRANSACTION,
            |err| matches!(err, StatusChangeError::Contended),
            |_| self.change_status(&details, OrderStatus::Expired),
        )
        .await;
        match ended {
            Ok(()) => {
                tracing::info!(order = %hold.order_id, "hold ended unpaid; stock given back");
                Ok(Ended::Expired(details.order.payment_intent_id.clone()))
            }
            Err(StatusChangeError::Stale { .. }) => Ok(Ended::SettledMeanwhile),
            Err(StatusChangeError::Contended) => Ok(Ended::Contended),
            Err(StatusChangeError::Failed(err)) => Err(err),
        }
    }

    /// A hold whose PaymentIntent the provider canceled (`payment_intent.canceled`) ended now:
    /// EXPIRED, its stock back, its place freed, while it still waits for that PaymentIntent
    /// (ONE conditional transaction, as an expiry's; retried on collisions). Whether it ended:
    /// a hold paid or ended already, or another PaymentIntent's, is left as it is.
    pub async fn end_canceled_hold(&self, payment: &Payment) -> Result<bool, AppError> {
        let Some(order) = payment.order_id() else {
            return Ok(false);
        };
        let Some(details) = self.read_order(&order).await? else {
            return Ok(false);
        };
        let waiting = details.order.status == OrderStatus::PendingPayment
            && details.order.payment_intent_id.as_ref() == Some(&payment.id);
        if !waiting {
            return Ok(false);
        }
        let ended = retry(
            &Backoff::TRANSACTION,
            |err| matches!(err, StatusChangeError::Contended),
            |_| {
                self.change_status_as(
                    &details,
                    OrderStatus::Expired,
                    Settle::IntentCanceled(&payment.id),
                )
            },
        )
        .await;
        match ended {
            Ok(()) => Ok(true),
            Err(StatusChangeError::Stale { .. }) => Ok(false),
            Err(err) => Err(err.into()),
        }
    }
}
