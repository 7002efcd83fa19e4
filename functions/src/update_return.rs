//! `PATCH /orders/{orderId}/returns/{returnId}` `{"status": …}`: staff approve or decline a
//! REQUESTED return (`APPROVED`, `DECLINED`); the order's customer cancels one not yet received
//! (`CANCELED`). A move for the other side is a 403; one its status cannot make (a decided
//! return decided again, a received one canceled) a 409. The move is made only if the return
//! is still as read. The same move again, once made, answers the return as it stands. Staff may
//! give a `note` with their decision: staff's alone, no answer to the customer carries it.

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::domain::ids::{OrderId, ReturnId};
use shared::domain::returns::{ReturnActor, ReturnStatus};
use shared::domain::text;
use shared::domain::time::Timestamp;
use shared::dynamo::orders::ReturnWritten;
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param};
use shared::http::response::json_response;
use shared::retry::{Attempt, while_changed};
use shared::{AppError, Store};

const MAX_BODY_BYTES: usize = 2048;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    status: String,
    /// Staff's note on their decision, for staff (it replaces the return's).
    #[serde(default)]
    note: Option<String>,
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let order = path_param(&req, "orderId", OrderId::parse)?;
    let id = path_param(&req, "returnId", ReturnId::parse)?;
    let caller = caller(&req)?;
    let body = json_body::<Body>(&req, MAX_BODY_BYTES)?;
    let next: ReturnStatus = body.status.parse()?;
    let note = text::note(body.note.as_deref())?;
    let actor = if caller.is_staff() {
        ReturnActor::Staff
    } else {
        ReturnActor::Customer
    };
    if note.is_some() && actor == ReturnActor::Customer {
        return Err(AppError::Forbidden(
            "only staff write a return's note".into(),
        ));
    }
    let (order, id, note) = (&order, &id, &note);
    let moved = while_changed(
        "other changes of this return kept coming first; retry the request",
        |_| async move {
            let details = store.order_for(order, caller).await?;
            let read = details
                .order_return(id)
                .ok_or_else(|| AppError::not_found(format!("order {order} has no return {id}")))?;
            if read.status == next && ReturnStatus::ALL.iter().any(|s| s.may_become(next, actor)) {
                // Moved so by this request's earlier try, or by another: as it stands.
                return Ok(read.clone().seen_by(caller));
            }
            let moved = read.moved(next, actor, Timestamp::now())?.noted(note);
            match store.move_return(&details, read, &moved).await? {
                ReturnWritten::Written => Ok(moved.seen_by(caller)),
                ReturnWritten::Exists | ReturnWritten::Changed => Err(Attempt::Changed),
            }
        },
    )
    .await?;
    Ok(json_response(StatusCode::OK, &moved))
}
