//! `PATCH /orders/{orderId}` `{status}`: moves an order along PLACED→SHIPPED→DELIVERED or
//! PLACED→CANCELLED, header and listing together, so that of racing changes only one wins.
//! Staff move any order; its owner may cancel it while it is PLACED. Cancelling gives the lines'
//! stock back in the same transaction, and a paid order's cancellation requests the refund of
//! all that may still go back of it in that transaction too (the payer sends it).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::domain::ids::OrderId;
use shared::domain::order::Order;
use shared::domain::status::OrderStatus;
use shared::dynamo::orders::StatusChangeError;
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param};
use shared::http::response::json_response;
use shared::metrics;
use shared::retry::{Backoff, retry};
use shared::{AppError, Store};

const MAX_BODY_BYTES: usize = 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusBody {
    status: String,
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "orderId", OrderId::parse)?;
    // Who is asking before what they ask: no validation feedback without a caller.
    let caller = caller(&req)?;
    let next: OrderStatus = json_body::<StatusBody>(&req, MAX_BODY_BYTES)?
        .status
        .parse()?;
    // Read the status, then change it only if it is still the one read; a collision with a
    // concurrent transaction is tried again from the read.
    let order = retry(
        &Backoff::TRANSACTION,
        |err| matches!(err, StatusChangeError::Contended),
        |_| async {
            // The header and the lines (a cancellation gives their stock back): one Query.
            let details = store
                .get_order(&id, caller)
                .await?
                .ok_or_else(|| AppError::not_found(format!("order {id} does not exist")))?;
            caller.check_status_change(next)?;
            details.order.status.check_move(next)?;
            store.change_status(&details, next).await?;
            Ok(Order {
                status: next,
                ..details.order
            })
        },
    )
    .await
    .map_err(AppError::from)?;
    metrics::status_changed(order.status);
    Ok(json_response(StatusCode::OK, &order))
}
