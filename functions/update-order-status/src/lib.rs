//! `PATCH /orders/{orderId}` `{status}`: moves an order along PLACED→SHIPPED→DELIVERED or
//! PLACED→CANCELLED, header and listing together, so that of racing changes only one wins.

use std::time::Duration;

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::entities::Order;
use shared::http::{HttpResult, json_body, json_response, path_param};
use shared::ids::{OrderId, OrderStatus};
use shared::writes::StatusChangeError;
use shared::{AppError, Store};

const MAX_BODY_BYTES: usize = 1024;
const MAX_ATTEMPTS: u32 = 6;

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
    let next: OrderStatus = json_body::<StatusBody>(&req, MAX_BODY_BYTES)?
        .status
        .parse()?;
    for attempt in 0..MAX_ATTEMPTS {
        let header = store
            .order_header(&id)
            .await?
            .ok_or_else(|| AppError::not_found(format!("order {id} does not exist")))?;
        if !header.status.can_become(next) {
            return Err(not_allowed(header.status, next));
        }
        match store.change_status(&header, next).await {
            Ok(()) => {
                let order = Order {
                    status: next,
                    ..header
                };
                return Ok(json_response(StatusCode::OK, &order));
            }
            Err(StatusChangeError::Stale(Some(current))) => return Err(not_allowed(current, next)),
            Err(StatusChangeError::Stale(None)) => {
                return Err(AppError::not_found(format!("order {id} does not exist")));
            }
            Err(StatusChangeError::Contended) => {
                tokio::time::sleep(Duration::from_millis(10 << attempt)).await;
            }
            Err(StatusChangeError::Failed(err)) => return Err(err),
        }
    }
    Err(AppError::conflict(
        "the order is being changed by concurrent requests; retry",
        None,
    ))
}
