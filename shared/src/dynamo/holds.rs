//! Holds ended on time: the expiry reads the orders waiting for payment through access pattern
//! 4 (GSI1 `STATUS#PENDING_PAYMENT[#<k>]`, oldest first, every shard: ONE Query per page, never a
//! scan) and ends each hold whose `holdUntil` has passed in a transaction conditioned on the
//! order still being PENDING_PAYMENT: the order becomes EXPIRED, its stock goes back, its place
//! under the cap is released. A payment that got there first wins, and the hold is left alone.
//! TTL plays no part: it deletes up to 48 hours late.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde::Serialize;

use crate::domain::order::{Order, OrderDetails};
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;
use crate::dynamo::codec::Item;
use crate::dynamo::entities::order_listing;
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
}

impl ExpiryRun {
    fn merge(&mut self, other: ExpiryRun) {
        self.expired += other.expired;
        self.settled_meanwhile += other.settled_meanwhile;
        self.contended += other.contended;
        self.unfinished |= other.unfinished;
    }
}

/// What ending one hold came to.
enum Ended {
    Expired,
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
            run.merge(self.end_shards_holds(shard, now, deadline).await?);
        }
        Ok(run)
    }

    /// One shard's ended holds, page after page. Every live hold is read (once a run): holds are
    /// listed by when they were made, and a hold made under a longer `HoldMinutes` may end after
    /// one made later under a shorter one, so no hold still running is taken to mean that none
    /// after it has ended. The cost is the live holds' size in read units, once a minute.
    async fn end_shards_holds(
        &self,
        shard: u32,
        now: Timestamp,
        deadline: Instant,
    ) -> Result<ExpiryRun, AppError> {
        let query = KeyQuery::on(
            Index::Gsi1,
            order_listing::gsi1pk(OrderStatus::PendingPayment, shard),
        );
        let mut run = ExpiryRun::default();
        let mut start: Option<Item> = None;
        loop {
            if Instant::now() >= deadline {
                run.unfinished = true;
                return Ok(run);
            }
            let out = query
                .request(self)
                .limit(EXPIRY_PAGE)
                .set_exclusive_start_key(start)
                .send()
                .await?;
            let holds: Vec<Order> = out
                .items
                .unwrap_or_default()
                .into_iter()
                .map(order_listing::from_item)
                .collect::<Result<_, _>>()?;
            let ended: Vec<&Order> = holds
                .iter()
                .filter(|hold| hold.hold_until.is_none_or(|until| until < now))
                .collect();
            for outcome in join_all(ended.into_iter().map(|hold| self.end_hold(hold))).await {
                match outcome? {
                    Ended::Expired => run.expired += 1,
                    Ended::SettledMeanwhile => run.settled_meanwhile += 1,
                    Ended::Contended => run.contended += 1,
                }
            }
            start = out.last_evaluated_key.filter(|key| !key.is_empty());
            if start.is_none() {
                return Ok(run);
            }
        }
    }

    /// Ends one hold: EXPIRED, each line's stock given back, the place released; retried on
    /// collisions. The order is read whole first (its lines say what stock to give back).
    async fn end_hold(&self, hold: &Order) -> Result<Ended, AppError> {
        let Some(OrderDetails { order, items }) = self.read_order(&hold.order_id).await? else {
            return Ok(Ended::SettledMeanwhile);
        };
        let ended = retry(
            &Backoff::TRANSACTION,
            |err| matches!(err, StatusChangeError::Contended),
            |_| self.change_status(&order, OrderStatus::Expired, &items),
        )
        .await;
        match ended {
            Ok(()) => {
                tracing::info!(order = %hold.order_id, "hold ended unpaid; stock given back");
                Ok(Ended::Expired)
            }
            Err(StatusChangeError::Stale { .. }) => Ok(Ended::SettledMeanwhile),
            Err(StatusChangeError::Contended) => Ok(Ended::Contended),
            Err(StatusChangeError::Failed(err)) => Err(err),
        }
    }
}
