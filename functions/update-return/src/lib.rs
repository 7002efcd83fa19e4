//! `PATCH /orders/{orderId}/returns/{returnId}` `{"status": …}`: staff approve or decline a
//! REQUESTED return (`APPROVED`, `DECLINED`); the order's customer cancels one not yet received
//! (`CANCELED`). A move for the other side is a 403; one its status cannot make (a decided
//! return decided again, a received one canceled) a 409. The move is made only if the return
//! is still as read. The same move again, once made, answers the return as it stands.

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::domain::ids::{OrderId, ReturnId};
use shared::domain::returns::{ReturnActor, ReturnStatus};
use shared::domain::time::Timestamp;
use shared::dynamo::orders::ReturnWritten;
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param};
use shared::http::response::json_response;
use shared::retry::{Attempt, while_changed};
use shared::{AppError, Store};

const MAX_BODY_BYTES: usize = 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    status: String,
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let order = path_param(&req, "orderId", OrderId::parse)?;
    let id = path_param(&req, "returnId", ReturnId::parse)?;
    let caller = caller(&req)?;
    let body = json_body::<Body>(&req, MAX_BODY_BYTES)?;
    let next: ReturnStatus = body.status.parse()?;
    let actor = if caller.is_staff() {
        ReturnActor::Staff
    } else {
        ReturnActor::Customer
    };
    let (order, id) = (&order, &id);
    let moved = while_changed(
        "other changes of this return kept coming first; retry the request",
        |_| async move {
            let details = store
                .get_order(order, caller)
                .await?
                .ok_or_else(|| AppError::not_found(format!("order {order} does not exist")))?;
            let read = details
                .order_return(id)
                .ok_or_else(|| AppError::not_found(format!("order {order} has no return {id}")))?;
            if read.status == next && ReturnStatus::ALL.iter().any(|s| s.may_become(next, actor)) {
                // Moved so by this request's earlier try, or by another: as it stands.
                return Ok(read.clone());
            }
            let moved = read.moved(next, actor, Timestamp::now())?;
            match store.move_return(&details, read, &moved).await? {
                ReturnWritten::Written => Ok(moved),
                ReturnWritten::Exists | ReturnWritten::Changed => Err(Attempt::Changed),
            }
        },
    )
    .await?;
    Ok(json_response(StatusCode::OK, &moved))
}
