//! Refunds in the table: the header's balance drawn on (for a staff refund or a cancellation's,
//! recorded by `orders::give_back`); a refund claimed for sending and settled with what the
//! provider made of it, only forward; and the refunds in one status, for the payer (access
//! pattern 10, a page at a time).

use crate::domain::order::OrderDetails;
use crate::domain::provider_refund::{OnReport, ProviderRefund, Settled};
use crate::domain::refund::{Refund, RefundStatus, kept_failure};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Item, key_text};
use crate::dynamo::entities::{line_item, order_header, refund, refund_due};
use crate::dynamo::errors::unless_condition_failed;
use crate::dynamo::keys::Entity;
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::transaction::{Outcome, Transaction};
use crate::dynamo::update::{Change, UpdateSpec};
use crate::{AppError, Store};

/// One refund of a page of the payer's: its record's key as a report names it (`PK / SK`), and
/// the refund, or why it could not be read.
pub type Listed = (String, Result<Refund, String>);

impl Store {
    /// The header's balance less `amount`, one refund more, on the condition that no refund
    /// drew on it since `details` was read and that it covers `amount`.
    pub(crate) fn draw_on_balance(&self, details: &OrderDetails, amount: i64) -> Change {
        let balance = details.money.balance;
        order_header::REFUND
            .on(&self.table, order_header::key(&details.order.order_id))
            .add(&order_header::REFUNDABLE, &-amount)
            .add(&order_header::REFUNDED, &amount)
            .add(&order_header::REFUND_COUNT, &1)
            .condition(if balance.refund_count == 0 {
                "attribute_not_exists(#refundCount) OR #refundCount = :count"
            } else {
                "#refundCount = :count"
            })
            .condition("#refundable >= :amount")
            .value(":count", &order_header::REFUND_COUNT, &balance.refund_count)
            .value(":amount", &order_header::REFUNDABLE, &amount)
    }

    /// A page of the refunds in `status`, oldest first, from `start` (ONE Query on GSI1): each
    /// one read, or the key of one that could not be and why (one bad item never stops the
    /// payer), and where the next page starts.
    pub async fn refunds_in(
        &self,
        status: RefundStatus,
        start: Option<Item>,
        limit: i32,
    ) -> Result<(Vec<Listed>, Option<Item>), AppError> {
        let out = KeyQuery::on(Index::Gsi1, refund::gsi1pk(status))
            .request(self)
            .set_exclusive_start_key(start)
            .limit(limit)
            .send()
            .await?;
        let listed = out
            .items
            .unwrap_or_default()
            .into_iter()
            .map(|item| {
                let key = key_text(&item);
                (key, refund::from_item(item).map_err(|bad| bad.to_string()))
            })
            .collect();
        Ok((listed, out.last_evaluated_key))
    }

    /// `refund` claimed for sending (REQUESTED or PENDING as read → PENDING, one attempt
    /// more), on the condition that nobody claimed or settled it since it was read: the claimed
    /// refund, or `None` when someone did.
    pub async fn claim_refund(&self, read: &Refund) -> Result<Option<Refund>, AppError> {
        let now = Timestamp::now();
        let attempts = read.attempts + 1;
        let spec = specs(read).0;
        let sent = spec
            .on(&self.table, refund::key(read))
            .set(&refund::STATUS, &RefundStatus::Pending)
            .set(&refund::ATTEMPTS, &attempts)
            .set(&refund::SENT_AT, &now)
            .set(&refund::GSI1PK, &refund::gsi1pk(RefundStatus::Pending))
            .condition("#status = :read AND #attempts = :tried")
            .value(":read", &refund::STATUS, &read.status)
            .value(":tried", &refund::ATTEMPTS, &read.attempts)
            .request(&self.client)?
            .send()
            .await;
        Ok(unless_condition_failed(sent)?.map(|_| Refund {
            status: RefundStatus::Pending,
            attempts,
            sent_at: Some(now),
            ..read.clone()
        }))
    }

    /// What the provider made of `read`, recorded only forward: on the condition that it is
    /// not settled yet and (`claimed`, from the payer) that nobody claimed it since. A refund
    /// that FAILED gives its amount back to its order's balance, and its lines to the order's
    /// lines, in the same transaction. Whether it was recorded.
    pub async fn settle_refund(
        &self,
        read: &Refund,
        settled: &Settled,
        claimed: Option<u32>,
    ) -> Result<bool, AppError> {
        let spec = specs(read).1;
        let mut change = spec
            .on(&self.table, refund::key(read))
            .set(&refund::STATUS, &settled.status)
            .set(&refund::GSI1PK, &refund::gsi1pk(settled.status))
            .condition("#status IN (:requested, :pending)")
            .value(":requested", &refund::STATUS, &RefundStatus::Requested)
            .value(":pending", &refund::STATUS, &RefundStatus::Pending);
        if let Some(id) = &settled.provider_refund_id {
            change = change.set(&refund::PROVIDER_REFUND_ID, id);
        }
        if let Some(failure) = &settled.failure {
            change = change.set(&refund::FAILURE, &kept_failure(failure));
        }
        if settled.status.is_settled() {
            // Its end is an event of the refund's (a provider's answer that it is still under
            // way is none).
            change = refund::counting_event(change);
        }
        if let Some(attempts) = claimed {
            change = change.condition("#attempts = :claimed").value(
                ":claimed",
                &refund::ATTEMPTS,
                &attempts,
            );
        }
        self.settle_giving_back(read, change, settled.status).await
    }

    /// A refund the provider paid (SUCCEEDED, as `read`) and then reported failed after all
    /// (`failure`, its reason) recorded as REVERSED, only if it is still SUCCEEDED under the
    /// same provider's refund: its amount back to its order's balance and its lines to the
    /// order's lines, as for a refund that FAILED. Whether it was recorded.
    pub async fn reverse_refund(&self, read: &Refund, failure: &str) -> Result<bool, AppError> {
        let Some(made) = &read.provider_refund_id else {
            return Ok(false);
        };
        let change = refund::counting_event(specs(read).1.on(&self.table, refund::key(read)))
            .set(&refund::STATUS, &RefundStatus::Reversed)
            .set(&refund::GSI1PK, &refund::gsi1pk(RefundStatus::Reversed))
            .set(&refund::FAILURE, &kept_failure(failure))
            .condition("#status = :succeeded AND #providerRefundId = :made")
            .value(":succeeded", &refund::STATUS, &RefundStatus::Succeeded)
            .value(":made", &refund::PROVIDER_REFUND_ID, made);
        self.settle_giving_back(read, change, RefundStatus::Reversed)
            .await
    }

    /// `change` (a refund's settlement, to `to`) sent; when it gave nothing back (FAILED,
    /// REVERSED) and the refund drew on its order's balance, in ONE transaction with the balance given its amount back (one
    /// refund more on its count, so that nothing drawing on the balance as read commits) and
    /// its lines their refunded units. Whether the refund's condition held.
    async fn settle_giving_back(
        &self,
        read: &Refund,
        change: Change,
        to: RefundStatus,
    ) -> Result<bool, AppError> {
        let Some(order) = read
            .order_id
            .as_ref()
            .filter(|_| to.gave_nothing_back() && read.kind.draws_on_balance())
        else {
            let sent = change.request(&self.client)?.send().await;
            return Ok(unless_condition_failed(sent)?.is_some());
        };
        let back = order_header::REFUND
            .on(&self.table, order_header::key(order))
            .add(&order_header::REFUNDABLE, &read.amount)
            .add(&order_header::REFUNDED, &-read.amount)
            .add(&order_header::REFUND_COUNT, &1);
        let mut transaction = Transaction::with_capacity(2 + read.lines.len());
        transaction.update(true, change.build()?)?;
        transaction.update(false, back.build()?)?;
        for line in &read.lines {
            let line_back = line_item::BACK
                .on(&self.table, line_item::key(order, &line.sku))
                .add(&line_item::REFUNDED_CHANGE, &-i64::from(line.quantity));
            transaction.update(false, line_back.build()?)?;
        }
        match self.send(transaction).await? {
            Outcome::Committed => Ok(true),
            Outcome::Cancelled(c) if c.condition_failed(|refund| *refund) => Ok(false),
            Outcome::Cancelled(c) if c.conflicted() => Err(AppError::unavailable(
                "the refund's settlement collided with a concurrent transaction",
            )),
            Outcome::Cancelled(c) => Err(c.unexplained("refund settlement")),
        }
    }

    /// The refund whose record is at `key` (one strongly consistent GetItem).
    pub async fn read_refund(&self, key: Item) -> Result<Option<Refund>, AppError> {
        let item = self.get_consistent(key).await?;
        Ok(item.map(refund::from_item).transpose()?)
    }
}

/// The claim's and the settlement's specs of `refund`'s entity.
fn specs(refund: &Refund) -> (&'static UpdateSpec, &'static UpdateSpec) {
    match refund::entity(refund) {
        Entity::RefundDue => (&refund_due::CLAIM, &refund_due::SETTLE),
        _ => (&refund::CLAIM, &refund::SETTLE),
    }
}

/// What a provider's event did to the store's refund it named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportedOutcome {
    /// Settled: SUCCEEDED, FAILED or (a refund paid, then failed) REVERSED.
    Moved(RefundStatus),
    /// Nothing moved, and why: no refund of the store's, one not sent yet, another refund
    /// than the one recorded, or nothing new.
    Left(String),
}

impl Store {
    /// A refund's outcome as a provider event reports it, recorded only forward, and only for
    /// the refund it is: the refund its metadata names, read, then settled only if its
    /// provider's refund is the one recorded, with the amount, currency and PaymentIntent the
    /// store sent. A refund not sent yet, or whose send's answer is not recorded yet, is the
    /// payer's to settle (it looks the provider's refund up by ID); a SUCCEEDED one reported
    /// failed is REVERSED.
    pub async fn settle_reported_refund(
        &self,
        reported: &ProviderRefund,
    ) -> Result<ReportedOutcome, AppError> {
        let left = |why: String| Ok(ReportedOutcome::Left(why));
        let Some(key) = refund::key_of_metadata(&reported.metadata) else {
            return left(format!("{} names no refund of the store's", reported.id));
        };
        let Some(read) = self.read_refund(key).await? else {
            return left(format!(
                "{} names a refund the store does not have",
                reported.id
            ));
        };
        if read.provider_refund_id.is_none() {
            return left(format!(
                "refund {} is {} with no provider's refund recorded: the payer settles it",
                read.refund_id, read.status
            ));
        }
        if let Some(mismatch) = reported.mismatch(&read) {
            return left(mismatch);
        }
        let (moved, now) = match read.status.on_report(reported.provider_status()) {
            OnReport::Settle(now) => (
                self.settle_refund(&read, &reported.settled(), None).await?,
                now,
            ),
            OnReport::Reverse => {
                let failure = reported.failure().unwrap_or_default();
                let reversed = self.reverse_refund(&read, &failure).await?;
                (reversed, RefundStatus::Reversed)
            }
            OnReport::Leave => (false, read.status),
        };
        if !moved {
            return left(format!(
                "refund {} is {}: the provider's {} changes nothing",
                read.refund_id, read.status, reported.status
            ));
        }
        Ok(ReportedOutcome::Moved(now))
    }
}
