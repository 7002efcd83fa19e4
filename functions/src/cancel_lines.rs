//! `POST /orders/{orderId}/cancellations` (staff): cancels unshipped lines of a PLACED or
//! PARTIALLY_SHIPPED order, with a reason. ONE transaction records the cancellation, counts the
//! units on their lines (never to ship), puts their stock back and, for a paid order, requests
//! their refund at the prices ordered (at most what may still go back), drawn on the balance;
//! the order's status follows what is left: SHIPPED when the rest has shipped, CANCELLED when
//! nothing shipped and nothing is left. More than is left to ship is a 409 naming the line, and
//! a shipment racing it cannot ship the same units (the header's lines version). The
//! `Idempotency-Key` is required and names the cancellation: the same request again answers the
//! same one, the key used for another request is a 422.

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::domain::cancellation::{Cancellation, Cancelled, MAX_CANCELLED_LINES};
use shared::domain::ids::{CancellationId, OrderId, RefundId};
use shared::domain::ledger::{RefundCause, RefundPlan};
use shared::domain::order::{LineQuantity, OrderDetails, distinct_lines};
use shared::domain::refund::{Refund, RefundKind, staff_reason};
use shared::domain::text;
use shared::domain::time::Timestamp;
use shared::dynamo::orders::{GiveBack, GivenBack};
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param, required_key};
use shared::http::response::json_response;
use shared::metrics::{self, Metric};
use shared::retry::{Attempt, while_changed};
use shared::{AppError, Store};

const MAX_BODY_BYTES: usize = 16 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    lines: Vec<LineQuantity>,
    reason: String,
    /// Staff's note, for staff: the customer reads `reason`, never this.
    #[serde(default)]
    note: Option<String>,
}

/// What was asked: the lines, the reason and staff's note, under the cancellation's ID.
struct Asked {
    id: CancellationId,
    lines: Vec<LineQuantity>,
    reason: String,
    note: Option<String>,
}

impl Asked {
    /// The answer for `made` (this cancellation, found on the order as it stands): the same
    /// request again, answered as it stands; another request under the same key, a 422.
    fn replay(&self, made: &Cancellation, details: &OrderDetails) -> Result<Cancelled, AppError> {
        if made.lines != self.lines || made.reason != self.reason || made.note != self.note {
            return Err(AppError::IdempotencyKeyReused);
        }
        metrics::count(Metric::IdempotentReplays, 1);
        Ok(answer(made.clone(), details))
    }

    /// The refund `plan` requests of `details`, if it gives anything back.
    fn refund(&self, details: &OrderDetails, plan: &RefundPlan, store: &Store) -> Option<Refund> {
        let cause = RefundCause {
            kind: RefundKind::Cancellation,
            reason: &self.reason,
            cancellation: Some(&self.id),
            order_return: None,
        };
        let id = RefundId::of_lines_cancelled(&self.id);
        (plan.amount > 0)
            .then(|| plan.requested(details, id, cause, store.currency()))
            .flatten()
    }
}

/// The answer of `cancellation` on `details` as it stands: its order's status, its refund.
fn answer(cancellation: Cancellation, details: &OrderDetails) -> Cancelled {
    let refund = cancellation.refund_id.as_ref().and_then(|id| {
        details
            .money
            .refunds
            .iter()
            .find(|refund| refund.refund_id == *id)
            .cloned()
    });
    Cancelled {
        cancellation,
        order_status: details.order.status,
        refund,
    }
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let order = path_param(&req, "orderId", OrderId::parse)?;
    let caller = caller(&req)?;
    let key = required_key(&req, "lines must never be cancelled twice")?;
    let body = json_body::<Body>(&req, MAX_BODY_BYTES)?;
    let asked = Asked {
        id: CancellationId::of_request(&order, &key),
        lines: distinct_lines(body.lines, MAX_CANCELLED_LINES)?,
        reason: staff_reason(&body.reason)?,
        note: text::note(body.note.as_deref())?,
    };
    let (order, asked) = (&order, &asked);
    let cancelled = while_changed(
        "other changes of this order's lines kept coming first; retry the request",
        |_| async move {
            let details = store.order_for(order, caller).await?;
            if let Some(made) = details.cancellation(&asked.id) {
                return Ok(asked.replay(made, &details)?);
            }
            let plan = details.plan_cancellation(&asked.lines, store.currency())?;
            let refund = asked.refund(&details, &plan, store);
            let cancellation = Cancellation {
                cancellation_id: asked.id.clone(),
                lines: asked.lines.clone(),
                reason: asked.reason.clone(),
                note: asked.note.clone(),
                refund_id: refund.as_ref().map(|r| r.refund_id.clone()),
                cancelled_at: Timestamp::now(),
            };
            let back = GiveBack {
                plan: &plan,
                refund: refund.as_ref(),
                cancellation: Some(&cancellation),
                order_return: None,
            };
            match store.give_back(&details, back).await? {
                GivenBack::Written(status) => {
                    if refund.is_some() {
                        metrics::count(Metric::RefundsRequested, 1);
                    }
                    if status != details.order.status {
                        metrics::status_changed(status);
                    }
                    Ok(Cancelled {
                        cancellation,
                        order_status: status,
                        refund,
                    })
                }
                // Recorded by a concurrent retry of this request, or the order changed: what it
                // says now decides.
                GivenBack::Exists | GivenBack::Changed => Err(Attempt::Changed),
            }
        },
    )
    .await?;
    Ok(json_response(StatusCode::CREATED, &cancelled))
}
