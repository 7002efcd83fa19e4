//! `POST /orders/{orderId}/returns` (the order's customer, or staff): asks to return delivered
//! units of an order, with a reason: the customer within `RETURN_WINDOW_DAYS` of their
//! delivery, staff (recording a return for the customer) whenever they were delivered. Never
//! more of a line than was delivered (within the window), less what is already in returns that
//! were not declined or canceled: the return's own transaction holds the order's lines version, so
//! of two returns of the last units one is a 201 and the other a 409. An `Idempotency-Key` is
//! required and names the return: the same request again answers the same one, the key used for
//! another request is a 422.

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::domain::ids::{OrderId, ReturnId};
use shared::domain::order::{LineQuantity, distinct_lines};
use shared::domain::refund::staff_reason;
use shared::domain::returns::{MAX_RETURN_LINES, OrderReturn};
use shared::domain::time::Timestamp;
use shared::dynamo::orders::ReturnWritten;
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
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let order = path_param(&req, "orderId", OrderId::parse)?;
    let caller = caller(&req)?;
    let key = required_key(&req, "a return must never be asked for twice")?;
    let body = json_body::<Body>(&req, MAX_BODY_BYTES)?;
    let lines = distinct_lines(body.lines, MAX_RETURN_LINES)?;
    let reason = staff_reason(&body.reason)?;
    let id = ReturnId::of_request(&order, &key);
    let window = (!caller.is_staff()).then(|| store.return_window_days());
    let (order, lines, reason, id) = (&order, &lines, &reason, &id);
    let made = while_changed(
        "other changes of this order's lines kept coming first; retry the request",
        |_| async move {
            let details = store.order_for(order, caller).await?;
            if let Some(made) = details.order_return(id) {
                return if made.lines == *lines && made.reason == *reason {
                    metrics::count(Metric::IdempotentReplays, 1);
                    Ok(made.clone().seen_by(caller))
                } else {
                    Err(AppError::IdempotencyKeyReused.into())
                };
            }
            let now = Timestamp::now();
            details.check_return(lines, now, window)?;
            let asked = OrderReturn::requested(id.clone(), lines.clone(), reason.clone(), now);
            match store.request_return(&details, &asked).await? {
                ReturnWritten::Written => {
                    metrics::count(Metric::ReturnsRequested, 1);
                    Ok(asked)
                }
                // Recorded by a concurrent retry of this request, or the order changed: what
                // it says now decides.
                ReturnWritten::Exists | ReturnWritten::Changed => Err(Attempt::Changed),
            }
        },
    )
    .await?;
    Ok(json_response(StatusCode::CREATED, &made))
}
