//! `POST /orders/{orderId}/returns/{returnId}/receipt` (staff): records what arrived of an
//! APPROVED return, `{"lines": [{"sku", "received", "damaged"}], "refund": true|false}`. In ONE
//! transaction (`Store::give_back`): the return moved to RECEIVED (or REFUNDED), only if it is
//! still as read, so a second receipt is a 409; each line's units counted back, those received
//! and not damaged back into stock; what the customer no longer keeps (`withdrawn`) grown by
//! what arrived; and, asked and paid, the refund of what arrived at the prices ordered (at most
//! what of each line and of the balance may still go back), paid through the provider once.
//! The same receipt again (a retry whose answer was lost) answers as the first did; another
//! receipt of a return received already is a 409.

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::domain::ids::{OrderId, RefundId, ReturnId};
use shared::domain::ledger::{RefundCause, RefundPlan};
use shared::domain::order::OrderDetails;
use shared::domain::refund::{Refund, RefundKind};
use shared::domain::returns::{OrderReturn, Receipt, Received, ReceivedLine, received_lines};
use shared::domain::text;
use shared::domain::time::Timestamp;
use shared::dynamo::orders::{GiveBack, GivenBack};
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param};
use shared::http::response::json_response;
use shared::metrics::{self, Metric};
use shared::retry::{Attempt, while_changed};
use shared::{AppError, Store};

const MAX_BODY_BYTES: usize = 16 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    lines: Vec<ReceivedLine>,
    refund: bool,
    /// Staff's note on what arrived, for staff (it replaces the return's).
    #[serde(default)]
    note: Option<String>,
}

/// The refund `plan` requests for `read` of `details`, if it gives anything back.
fn refund_of(
    details: &OrderDetails,
    read: &OrderReturn,
    plan: &RefundPlan,
    store: &Store,
) -> Option<Refund> {
    let cause = RefundCause {
        kind: RefundKind::Return,
        reason: &read.reason,
        cancellation: None,
        order_return: Some(&read.return_id),
    };
    let id = RefundId::of_return(&read.return_id);
    (plan.amount > 0)
        .then(|| plan.requested(details, id, cause, store.currency()))
        .flatten()
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let order = path_param(&req, "orderId", OrderId::parse)?;
    let id = path_param(&req, "returnId", ReturnId::parse)?;
    let caller = caller(&req)?;
    let body = json_body::<Body>(&req, MAX_BODY_BYTES)?;
    let receipt = Receipt {
        lines: received_lines(body.lines)?,
        refund: body.refund,
    };
    let note = text::note(body.note.as_deref())?;
    let note = &note;
    let (order, id, receipt) = (&order, &id, &receipt);
    let received = while_changed(
        "other changes of this order kept coming first; retry the request",
        |_| async move {
            let details = store.order_for(order, caller).await?;
            let read = details
                .order_return(id)
                .ok_or_else(|| AppError::not_found(format!("order {order} has no return {id}")))?;
            if let Some(received) = details.receipt_replayed(read, receipt) {
                // Received by this same receipt already (a retry whose answer was lost).
                metrics::count(Metric::IdempotentReplays, 1);
                return Ok(received);
            }
            let plan = details.plan_receipt(read, receipt, store.currency())?;
            let refund = refund_of(&details, read, &plan, store);
            let next = read
                .receipt(
                    receipt.lines.clone(),
                    refund.as_ref().map(|r| r.refund_id.clone()),
                    Timestamp::now(),
                )
                .noted(note);
            let back = GiveBack {
                plan: &plan,
                refund: refund.as_ref(),
                cancellation: None,
                order_return: Some((read, &next)),
            };
            match store.give_back(&details, back).await? {
                GivenBack::Written(_) => {
                    metrics::count(Metric::ReturnsReceived, 1);
                    if refund.is_some() {
                        metrics::count(Metric::RefundsRequested, 1);
                    }
                    Ok(Received {
                        order_return: next,
                        refund,
                    })
                }
                // Received meanwhile (its status now says so), or the order changed.
                GivenBack::Exists | GivenBack::Changed => Err(Attempt::Changed),
            }
        },
    )
    .await?;
    Ok(json_response(StatusCode::CREATED, &received))
}
