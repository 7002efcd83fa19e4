//! Disputes (`charge.dispute.created`): the payer's bank contests a payment, and the order it
//! placed is flagged. The event names only the PaymentIntent, so the order is found by the
//! payment: `PAYMENT#<paymentId>` / `ORDER`, written when the payment placed it; or, for a
//! payment that placed nothing, its refund's record under `REFUND#<paymentId>`.

use crate::domain::ids::{OrderId, PaymentId};
use crate::domain::payment::Dispute;
use crate::domain::time::Timestamp;
use crate::dynamo::entities::{order_header, payment_order, refund, refund_due};
use crate::dynamo::errors::unless_condition_failed;
use crate::{AppError, Store};

/// What a dispute came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flagged {
    /// The order it names is flagged with it now.
    Now(OrderId),
    /// The order was flagged already (this dispute redelivered, or an earlier one stands).
    Already(OrderId),
    /// The store knows no order of its payment (placed before payments were kept by their
    /// order, or a charge made without a PaymentIntent): logged and counted only.
    NoOrder,
}

impl Store {
    /// Flags the order `dispute`'s payment placed (one GetItem or two to find it, one
    /// conditional UpdateItem of its header): only the first dispute is kept.
    pub async fn flag_dispute(&self, dispute: &Dispute) -> Result<Flagged, AppError> {
        let Some(payment) = &dispute.payment_intent else {
            return Ok(Flagged::NoOrder);
        };
        let Some(order) = self.order_of_payment(payment).await? else {
            return Ok(Flagged::NoOrder);
        };
        let sent = order_header::counting_event(
            order_header::DISPUTE.on(&self.table, order_header::key(&order)),
        )
        .set(&order_header::DISPUTE_ID, &dispute.id)
        .set(&order_header::DISPUTE_REASON, &dispute.reason)
        .set(&order_header::DISPUTE_AMOUNT, &dispute.amount)
        .set(&order_header::DISPUTED_AT, &Timestamp::now())
        .condition("attribute_exists(#PK) AND attribute_not_exists(#disputeId)")
        .request(&self.client)?
        .send()
        .await;
        Ok(match unless_condition_failed(sent)? {
            Some(_) => Flagged::Now(order),
            None => Flagged::Already(order),
        })
    }

    /// The order `payment` placed, or the one its refund names.
    async fn order_of_payment(&self, payment: &PaymentId) -> Result<Option<OrderId>, AppError> {
        if let Some(item) = self.get_consistent(payment_order::key(payment)).await? {
            return Ok(payment_order::ORDER_ID.get(&item));
        }
        let refunded = self.get_consistent(refund_due::key(payment)).await?;
        Ok(refunded.and_then(|item| refund::ORDER_ID.get(&item)))
    }
}
