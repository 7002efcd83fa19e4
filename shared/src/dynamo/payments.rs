//! A signed payment applied to its hold: the order moved PENDING_PAYMENT → PLACED in ONE
//! conditional transaction with the provider event's record, or the payment recorded to be given
//! back (with the event's record, in one transaction too); and access pattern 10, the refunds due,
//! oldest first (ONE Query on GSI1 per page).
//!
//! The header's condition (still PENDING_PAYMENT, the hold not yet ended) is what a racing
//! expiry conditions on too: of a payment and an expiry, exactly one moves the order; the other
//! finds it moved, and a payment that lost is recorded for refund. The event's record is put
//! only where none is, so a redelivery (even a concurrent one) changes nothing.

use aws_sdk_dynamodb::types::builders::PutBuilder;

use crate::domain::access::Caller;
use crate::domain::currency::Currency;
use crate::domain::ids::{OrderId, PaymentEventId, PaymentId, RefundId};
use crate::domain::order::Order;
use crate::domain::page::{Page, PageRequest};
use crate::domain::payment::{EVENT_TTL_SECONDS, EventOutcome, Payment};
use crate::domain::refund::RefundReason;
use crate::domain::refund::{Refund, RefundKind, RefundStatus};
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::text;
use crate::dynamo::entities::{
    order_header, payment_event, payment_order, refund, refund_due, unread_event,
};
use crate::dynamo::errors::unless_condition_failed;
use crate::dynamo::keys::{Entity, GSI1PK, GSI1SK, PK, SK};
use crate::dynamo::orders::Settle;
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::epoch_seconds;
use crate::dynamo::transaction::{Outcome, Transaction};
use crate::retry::{Backoff, retry};
use crate::{AppError, Store};

/// What a signed payment came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentOutcome {
    /// It paid for its hold: the order is PLACED.
    Placed(OrderId),
    /// It placed nothing and is recorded to be given back.
    RefundDue(Box<Refund>),
    /// Its event was applied already: nothing changed.
    Replayed,
}

/// What each action of a payment's transaction is for.
enum PaymentAction {
    Header,
    Listing,
    Event,
    Refund,
    /// The order the payment placed, kept under the payment (unconditionally: the same each
    /// time).
    PaymentOrder,
}

/// Why an attempt did not apply the payment.
enum Failed {
    /// It collided with a concurrent transaction: worth another try.
    Contended,
    /// Anything else: what the provider is told.
    Error(AppError),
}

/// What one attempt came to.
enum Attempt {
    Done(PaymentOutcome),
    /// It collided with a concurrent transaction: worth another try.
    Contended,
}

/// What the store makes of a payment for `order` (none: the order is unknown), `now`.
fn judge(
    order: Option<&Order>,
    payment: &Payment,
    currency: &Currency,
    now: Timestamp,
) -> Result<Option<RefundReason>, AppError> {
    let Some(order) = order else {
        return Ok(Some(RefundReason::UnknownOrder));
    };
    let reason = if payment.currency != currency.as_str() {
        Some(RefundReason::WrongCurrency)
    } else if payment.amount != currency.minor_units(order.total)?
        || payment.received() != Some(payment.amount)
    {
        // Its amount, and what it collected: a payment for the total that collected a cent
        // places nothing.
        Some(RefundReason::WrongAmount)
    } else if order.payment_intent_id.as_ref() != Some(&payment.id) {
        // Matched by the PaymentIntent the order stores, never by metadata alone: one
        // PaymentIntent naming another hold of the same amount places nothing.
        Some(RefundReason::UnknownPayment)
    } else {
        hold_refusal(order, now)
    };
    Ok(reason)
}

/// Why a hold cannot be paid for `now`: it ended (or is ending), or it is no hold.
fn hold_refusal(order: &Order, now: Timestamp) -> Option<RefundReason> {
    match order.status {
        OrderStatus::PendingPayment if order.hold_until.is_some_and(|until| until < now) => {
            Some(RefundReason::HoldEnded)
        }
        OrderStatus::PendingPayment => None,
        OrderStatus::Expired => Some(RefundReason::HoldEnded),
        _ => Some(RefundReason::NotPending),
    }
}

impl Store {
    /// Applies the signed `payment` of provider event `event`: the hold it pays for placed, or the
    /// payment recorded for refund; a redelivered event changes nothing. Retried on collisions
    /// with concurrent transactions (another delivery, the expiry, a status change).
    pub async fn apply_payment(
        &self,
        event: &PaymentEventId,
        payment: &Payment,
        currency: &Currency,
    ) -> Result<PaymentOutcome, AppError> {
        let applied = retry(
            &Backoff::TRANSACTION,
            |failed: &Failed| matches!(failed, Failed::Contended),
            |_| async {
                match self.payment_attempt(event, payment, currency).await {
                    Ok(Attempt::Done(outcome)) => Ok(outcome),
                    Ok(Attempt::Contended) => Err(Failed::Contended),
                    Err(err) => Err(Failed::Error(err)),
                }
            },
        )
        .await;
        applied.map_err(|failed| match failed {
            Failed::Contended => {
                AppError::unavailable("the payment kept colliding with concurrent transactions")
            }
            Failed::Error(err) => err,
        })
    }

    async fn payment_attempt(
        &self,
        event: &PaymentEventId,
        payment: &Payment,
        currency: &Currency,
    ) -> Result<Attempt, AppError> {
        let order = match payment.order_id() {
            Some(id) => self.read_header(&id).await?,
            None => None,
        };
        if order
            .as_ref()
            .is_some_and(|order| order.payment_id.as_ref() == Some(&payment.id))
        {
            // The payment that placed the order, reported again under another event (a resend
            // from the provider's dashboard, an event whose record's week has passed): it is
            // the order's, never a refund.
            return Ok(Attempt::Done(PaymentOutcome::Replayed));
        }
        let known = order.as_ref().map(|order| order.order_id.clone());
        let reason = match judge(order.as_ref(), payment, currency, Timestamp::now())? {
            Some(reason) => reason,
            None => {
                let order = order.ok_or_else(|| AppError::internal("a payable hold vanished"))?;
                match self.pay_hold(event, payment, &order).await? {
                    Err(reason) => reason,
                    Ok(attempt) => return Ok(attempt),
                }
            }
        };
        // Kept in the order's partition when the order exists (its ledger shows it), else
        // under the payment. One refund per payment: its ID is the payment's.
        let refund = Refund {
            event_id: Some(event.clone()),
            ..Refund::requested(
                RefundId::of_payment(&payment.id),
                known,
                payment.id.clone(),
                // What it collected is what goes back.
                payment.received().unwrap_or(payment.amount),
                &payment.currency,
                RefundKind::Payment,
                reason.to_string(),
            )
        };
        self.record_refund(event, refund).await
    }

    /// The event's record, put only where none is (or an expired one).
    fn event_record(
        &self,
        event: &PaymentEventId,
        outcome: EventOutcome,
        order: Option<&OrderId>,
    ) -> Result<PutBuilder, AppError> {
        let now = epoch_seconds();
        let item = payment_event::to_item(event, outcome, order, now + EVENT_TTL_SECONDS);
        (payment_event::PUT.put(&self.table, item))
            .new_or_expired(&payment_event::EXPIRES_AT, now)
            .build()
    }

    /// The hold placed: header and listing PENDING_PAYMENT → PLACED (the header only while its
    /// hold lasts, [`Store::status_updates`], and with the payment), the payment's order kept
    /// under the payment (for a dispute, which names only the payment), the event recorded.
    /// `Err(reason)` when the header had moved on.
    async fn pay_hold(
        &self,
        event: &PaymentEventId,
        payment: &Payment,
        order: &Order,
    ) -> Result<Result<Attempt, RefundReason>, AppError> {
        // The status change's own update, with the payment: whatever a status change writes,
        // a payment writes too.
        let (header, listing) = self.status_updates(order, OrderStatus::Placed, Settle::OnTime);
        let header = header
            .and(&order_header::PAYMENT)
            .set(&order_header::PAYMENT_ID, &payment.id)
            .set(&order_header::PAID_AMOUNT, &payment.amount)
            .set(&order_header::REFUNDABLE, &payment.amount)
            .remove(&order_header::PAYMENT_ERROR);
        let mut transaction = Transaction::with_capacity(4);
        transaction.update(PaymentAction::Header, header.build()?)?;
        transaction.update(PaymentAction::Listing, listing.build()?)?;
        let placed_by = payment_order::to_item(&payment.id, &order.order_id);
        let placed_by = payment_order::PUT.put(&self.table, placed_by);
        transaction.put(PaymentAction::PaymentOrder, placed_by.build()?)?;
        transaction.put(
            PaymentAction::Event,
            self.event_record(event, EventOutcome::Placed, Some(&order.order_id))?,
        )?;
        let cancelled = match self.send(transaction).await? {
            Outcome::Committed => {
                return Ok(Ok(Attempt::Done(PaymentOutcome::Placed(
                    order.order_id.clone(),
                ))));
            }
            Outcome::Cancelled(cancelled) => cancelled,
        };
        if cancelled.condition_failed(|a| matches!(a, PaymentAction::Event)) {
            return Ok(Ok(Attempt::Done(PaymentOutcome::Replayed)));
        }
        if let Some((_, stored)) = cancelled
            .failed_conditions()
            .find(|(a, _)| matches!(a, PaymentAction::Header))
        {
            // The hold ended, or was paid, meanwhile: what the header says now decides.
            let now = stored
                .cloned()
                .map(order_header::from_item)
                .transpose()?
                .ok_or_else(|| AppError::internal("a hold's header vanished"))?;
            return Ok(Err(
                hold_refusal(&now, Timestamp::now()).unwrap_or(RefundReason::HoldEnded)
            ));
        }
        if cancelled.conflicted() {
            return Ok(Ok(Attempt::Contended));
        }
        Err(cancelled.unexplained("payment"))
    }

    /// `refund` recorded, with the event's record; a payment already due for refund (the same
    /// payment reported again, under another event) keeps its first record, so that it is
    /// neither overwritten nor moved in the oldest-first list, and is given back once.
    async fn record_refund(
        &self,
        event: &PaymentEventId,
        refund: Refund,
    ) -> Result<Attempt, AppError> {
        let mut transaction = Transaction::with_capacity(3);
        if let Some(pointer) = refund_due::pointer(&refund) {
            // One refund per payment, whichever order its events name.
            let pointer = refund_due::POINTER.put(&self.table, pointer).only_new();
            transaction.put(PaymentAction::Refund, pointer.build()?)?;
        }
        let spec = match refund::entity(&refund) {
            Entity::RefundDue => &refund_due::PUT,
            _ => &refund::PUT,
        };
        let record = spec.put(&self.table, refund::to_item(&refund)).only_new();
        transaction.put(PaymentAction::Refund, record.build()?)?;
        transaction.put(
            PaymentAction::Event,
            self.event_record(event, EventOutcome::RefundDue, refund.order_id.as_ref())?,
        )?;
        match self.send(transaction).await? {
            Outcome::Committed => Ok(Attempt::Done(PaymentOutcome::RefundDue(Box::new(refund)))),
            Outcome::Cancelled(c)
                if c.condition_failed(|a| {
                    matches!(a, PaymentAction::Event | PaymentAction::Refund)
                }) =>
            {
                Ok(Attempt::Done(PaymentOutcome::Replayed))
            }
            Outcome::Cancelled(c) if c.conflicted() => Ok(Attempt::Contended),
            Outcome::Cancelled(c) => Err(c.unexplained("refund")),
        }
    }

    /// Records on `order`'s header the PaymentIntent the provider made for it (one UpdateItem,
    /// only on a header that exists): from then on, only a payment of it places the order.
    pub async fn record_payment_intent(
        &self,
        order: &OrderId,
        intent: &PaymentId,
    ) -> Result<(), AppError> {
        order_header::PAYMENT_INTENT
            .on(&self.table, order_header::key(order))
            .set(&order_header::PAYMENT_INTENT_ID, intent)
            .condition("attribute_exists(#PK)")
            .request(&self.client)?
            .send()
            .await?;
        Ok(())
    }

    /// A failed attempt to pay: the provider's reason recorded on the order the payment names
    /// (`paymentError`), while that order still waits for payment by this PaymentIntent. The
    /// hold stays, so the customer may try another card; a failure that arrives after the
    /// order moved on, or for another PaymentIntent, changes nothing. Whether it was recorded.
    pub async fn record_payment_failure(&self, payment: &Payment) -> Result<bool, AppError> {
        let Some(order) = payment.order_id() else {
            return Ok(false);
        };
        let sent = order_header::counting_event(
            order_header::PAYMENT_FAILED.on(&self.table, order_header::key(&order)),
        )
        .set(&order_header::PAYMENT_ERROR, &payment.failure())
        .condition("#status = :pending AND #paymentIntentId = :intent")
        .value(
            ":pending",
            &order_header::STATUS,
            &OrderStatus::PendingPayment,
        )
        .value(":intent", &order_header::PAYMENT_INTENT_ID, &payment.id)
        .request(&self.client)?
        .send()
        .await;
        Ok(unless_condition_failed(sent)?.is_some())
    }

    /// Keeps `body`, a signed provider event the store could not read (for `reason`), for a
    /// person to look at ([`unread_event`]): put once per body, so a redelivery finds it kept
    /// and the first `receivedAt` stands.
    pub async fn keep_unread_event(&self, body: &[u8], reason: &str) -> Result<(), AppError> {
        let item = unread_event::to_item(body, reason, Timestamp::now());
        let sent = (unread_event::PUT.put(&self.table, item))
            .only_new()
            .request(&self.client)?
            .send()
            .await;
        unless_condition_failed(sent)?;
        Ok(())
    }

    /// Access pattern 10: the refunds in `status`, oldest first (ONE Query on GSI1 per page).
    pub async fn list_refunds(
        &self,
        status: RefundStatus,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Page<Refund>, AppError> {
        let query = KeyQuery::on(Index::Gsi1, refund::gsi1pk(status));
        let start = query.open(caller, page.cursor.as_deref(), |key| {
            is_refund_position(key, status)
        })?;
        query
            .read_page(self, caller, page, start, refund::from_item)
            .await
    }
}

/// Whether `key` (a GSI1 position in the partition of refunds in `status`) is byte for byte one
/// the store writes: a refund's keys (an order's, or a payment's naming no order), and a
/// timestamp as the store spells it.
fn is_refund_position(key: &Item, status: RefundStatus) -> bool {
    let (Some(pk), Some(sk), Some(gsi1sk)) = (text(key, PK), text(key, SK), text(key, GSI1SK))
    else {
        return false;
    };
    let refund_keys = matches!(
        Entity::of(pk, sk),
        Some(Entity::OrderRefund | Entity::RefundDue)
    );
    text(key, GSI1PK) == Some(refund::gsi1pk(status).as_str())
        && refund_keys
        && Timestamp::parse(gsi1sk).is_ok_and(|at| at.to_string() == gsi1sk)
}
