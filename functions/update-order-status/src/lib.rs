//! `PATCH /orders/{orderId}` `{status}`: moves an order along PLACED→SHIPPED→DELIVERED or
//! PLACED→CANCELLED, header and listing together, so that of racing changes only one wins.
//! Staff move any order; its owner may cancel it while it is PLACED. Cancelling gives the lines'
//! stock back in the same transaction.

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

fn not_allowed(from: OrderStatus, to: OrderStatus) -> AppError {
    AppError::conflict(
        format!("order is {from} and cannot become {to}"),
        Some(from),
    )
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
    let changed = retry(
        &Backoff::TRANSACTION,
        |err| matches!(err, StatusChangeError::Contended),
        |_| async {
            // The header and the lines (a cancellation gives their stock back): one Query.
            let order = store
                .get_order(&id)
                .await?
                .filter(|order| caller.may_see_order(Some(&order.customer_id)))
                .ok_or_else(|| AppError::not_found(format!("order {id} does not exist")))?;
            caller.check_status_change(next)?;
            let header = Order {
                order_id: order.order_id,
                customer_id: order.customer_id,
                placed_at: order.placed_at,
                status: order.status,
                total: order.total,
            };
            if !header.status.can_become(next) {
                return Err(not_allowed(header.status, next).into());
            }
            store.change_status(&header, next, &order.items).await?;
            Ok(Order {
                status: next,
                ..header
            })
        },
    )
    .await;
    match changed {
        Ok(order) => {
            metrics::status_changed(order.status);
            Ok(json_response(StatusCode::OK, &order))
        }
        Err(StatusChangeError::Stale(Some(current))) => Err(not_allowed(current, next)),
        Err(StatusChangeError::Stale(None)) => {
            Err(AppError::not_found(format!("order {id} does not exist")))
        }
        // Every retry collided with another transaction: nothing was written; later will do.
        Err(StatusChangeError::Contended) => Err(AppError::unavailable(
            "status transaction kept colliding with concurrent transactions",
        )),
        Err(StatusChangeError::Failed(err)) => Err(err),
    }
}
