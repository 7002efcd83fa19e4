//! `POST /payments/webhook`: the payment provider's signed events. No JWT: the route has no
//! authorizer, and the provider's signature (`Stripe-Signature`, `shared::http::signature`) is
//! checked before anything is read. A `payment_intent.succeeded` for a live hold of its exact
//! amount in the store's currency places the order (PENDING_PAYMENT → PLACED, one conditional
//! transaction); any other signed payment is recorded to be given back. Either way the event's
//! ID is recorded with it, so a redelivery changes nothing. `refund.updated`, `refund.failed`
//! and `charge.refunded` record a refund's outcome, only forward and only for the provider's
//! refund recorded, of the amount, currency and PaymentIntent sent (a refund paid and then
//! failed after all is REVERSED); `payment_intent.canceled` ends the
//! hold still waiting for that PaymentIntent at once; `charge.dispute.created` flags the order
//! the disputed payment placed, and alarms. Events of other types are
//! acknowledged and ignored; a signed event the store cannot read is kept as signed, for a
//! person to look at. Every signed event gets a 200, so the provider stops retrying and nothing
//! it signed is lost; a call that is not signed, or not fresh, gets a 400 and changes nothing.

pub mod secret;

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Serialize;
use shared::domain::payment::{Dispute, EventOutcome, Payment, ProviderEvent, Reported};
use shared::domain::provider_refund::ProviderRefund;
use shared::domain::refund::{RefundReason, RefundStatus};
use shared::dynamo::disputes::Flagged;
use shared::dynamo::payments::PaymentOutcome;
use shared::dynamo::refunds::ReportedOutcome;
use shared::http::HttpResult;
use shared::http::request::{header_value, raw_body};
use shared::http::response::json_response;
use shared::http::signature::{SIGNATURE_HEADER, WebhookSecrets};
use shared::metrics::{self, Metric};
use shared::{AppError, Store};

/// Far above any provider event (a few kilobytes).
const MAX_BODY_BYTES: usize = 256 * 1024;

/// What the webhook needs: the store and the endpoint secrets.
#[derive(Debug, Clone)]
pub struct Webhook {
    /// The store.
    pub store: Store,
    /// The secrets a call must be signed with.
    pub secrets: WebhookSecrets,
}

/// The 200's body: what the event came to.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Received {
    received: bool,
    outcome: EventOutcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    order_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<RefundReason>,
}

fn received(outcome: EventOutcome) -> Received {
    Received {
        received: true,
        outcome,
        order_id: None,
        reason: None,
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A signed event the store cannot read: a 400 would have the provider retry it for three days
/// and then drop it. It is kept as signed, for a person to look at, and answered 200.
async fn keep_unread(store: &Store, body: &[u8], unreadable: &AppError) -> HttpResult {
    let reason = unreadable.to_string();
    store.keep_unread_event(body, &reason).await?;
    metrics::count(Metric::EventsUnreadable, 1);
    tracing::error!(%reason, "a signed provider event could not be read: kept under GSI1 UNREAD_EVENTS");
    Ok(json_response(
        StatusCode::OK,
        &received(EventOutcome::Unreadable),
    ))
}

/// A succeeded payment applied: the hold it pays for placed, or the payment recorded for
/// refund.
async fn paid(
    store: &Store,
    event: &ProviderEvent,
    payment: &Payment,
) -> Result<Received, AppError> {
    let answer = match store
        .apply_payment(&event.id, payment, store.currency())
        .await?
    {
        PaymentOutcome::Placed(order) => {
            metrics::count(Metric::HoldsPaid, 1);
            Received {
                order_id: Some(order.to_string()),
                ..received(EventOutcome::Placed)
            }
        }
        PaymentOutcome::RefundDue(refund) => {
            let reason = refund.payment_reason();
            let metric = if reason.is_some_and(RefundReason::is_late) {
                Metric::PaymentsLate
            } else {
                Metric::PaymentsUnmatched
            };
            metrics::count(metric, 1);
            tracing::warn!(payment = %refund.payment_id, reason = %refund.reason, event = %event.id, "payment placed nothing; recorded for refund");
            Received {
                order_id: refund.order_id.map(|o| o.to_string()),
                reason,
                ..received(EventOutcome::RefundDue)
            }
        }
        PaymentOutcome::Replayed => {
            metrics::count(Metric::IdempotentReplays, 1);
            received(EventOutcome::Replayed)
        }
    };
    Ok(answer)
}

/// Refunds' outcomes recorded, only forward, each only for the refund it is: `refund-settled`
/// when one moved. A refund paid and then failed after all is REVERSED, and alarms.
async fn refunds_settled(
    store: &Store,
    event: &ProviderEvent,
    refunds: &[ProviderRefund],
) -> Result<EventOutcome, AppError> {
    let mut moved = false;
    for refund in refunds {
        match store.settle_reported_refund(refund).await? {
            ReportedOutcome::Moved(status) => {
                moved = true;
                let metric = match status {
                    RefundStatus::Succeeded => Metric::RefundsSucceeded,
                    RefundStatus::Reversed => {
                        tracing::error!(event = %event.id, refund = %refund.id, failure = ?refund.failure_reason, "a refund the provider paid failed after all: REVERSED, the customer is still owed it");
                        Metric::RefundsReversed
                    }
                    _ => Metric::RefundsFailed,
                };
                metrics::count(metric, 1);
            }
            ReportedOutcome::Left(why) => {
                tracing::info!(event = %event.id, refund = %refund.id, %why, "a refund's event moved nothing");
            }
        }
    }
    if moved {
        tracing::info!(event = %event.id, "a refund's outcome recorded");
        Ok(EventOutcome::RefundSettled)
    } else {
        Ok(EventOutcome::Ignored)
    }
}

/// A payment disputed: the order it placed flagged (the first dispute stands), counted in
/// `DisputesOpened` (alarm): a person must answer it at the provider before its deadline.
async fn disputed(
    store: &Store,
    event: &ProviderEvent,
    dispute: &Dispute,
) -> Result<Received, AppError> {
    let order = match store.flag_dispute(dispute).await? {
        Flagged::Already(order) => {
            return Ok(Received {
                order_id: Some(order.to_string()),
                ..received(EventOutcome::Replayed)
            });
        }
        Flagged::Now(order) => Some(order),
        Flagged::NoOrder => None,
    };
    metrics::count(Metric::DisputesOpened, 1);
    tracing::error!(
        dispute = %dispute.id,
        payment = ?dispute.payment_intent,
        order = ?order,
        amount = dispute.amount,
        reason = %dispute.reason,
        event = %event.id,
        "a payment is disputed: answer it at the provider before its deadline"
    );
    Ok(Received {
        order_id: order.map(|order| order.to_string()),
        ..received(EventOutcome::Disputed)
    })
}

pub async fn handle(webhook: &Webhook, req: Request) -> HttpResult {
    // The signature covers the bytes exactly as sent: they are checked before they are read.
    let body = raw_body(&req, MAX_BODY_BYTES)?;
    let header = header_value(&req, SIGNATURE_HEADER).ok().flatten();
    if let Err(refused) = webhook.secrets.verify(header, body, now()) {
        metrics::count(Metric::WebhookRejected, 1);
        return Err(AppError::invalid(refused.to_string()));
    }
    let read = ProviderEvent::parse(body).and_then(|event| {
        let reported = event.reported()?;
        Ok((event, reported))
    });
    let (event, reported) = match read {
        Ok(read) => read,
        Err(unreadable) => return keep_unread(&webhook.store, body, &unreadable).await,
    };
    let store = &webhook.store;
    let answer = match reported {
        Some(Reported::Succeeded(payment)) => paid(store, &event, &payment).await?,
        Some(Reported::Refunds(refunds)) => {
            received(refunds_settled(store, &event, &refunds).await?)
        }
        Some(Reported::Failed(payment)) => {
            let outcome = if store.record_payment_failure(&payment).await? {
                tracing::info!(payment = %payment.id, event = %event.id, "a payment failed; the hold waits for another");
                EventOutcome::PaymentFailed
            } else {
                EventOutcome::Ignored
            };
            received(outcome)
        }
        Some(Reported::Canceled(payment)) => {
            let outcome = if store.end_canceled_hold(&payment).await? {
                tracing::info!(payment = %payment.id, event = %event.id, "the provider canceled a hold's PaymentIntent: the hold ended");
                EventOutcome::HoldEnded
            } else {
                EventOutcome::Ignored
            };
            received(outcome)
        }
        Some(Reported::Disputed(dispute)) => disputed(store, &event, &dispute).await?,
        None => {
            tracing::info!(event = %event.id, kind = %event.kind, "event acknowledged and ignored");
            received(EventOutcome::Ignored)
        }
    };
    Ok(json_response(StatusCode::OK, &answer))
}
