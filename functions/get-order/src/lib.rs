//! `GET /orders/{orderId}`: the order's header and line items, in one Query on the order's
//! partition. The owner's and staff's (`Admits::OrderOwner`: the store's read takes the caller);
//! anyone else is told the order does not exist.

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::domain::ids::OrderId;
use shared::http::HttpResult;
use shared::http::request::{caller, path_param};
use shared::http::response::json_response;
use shared::{AppError, Store};

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "orderId", OrderId::parse)?;
    let order = store
        .get_order(&id, caller(&req)?)
        .await?
        .ok_or_else(|| AppError::not_found(format!("order {id} does not exist")))?;
    Ok(json_response(StatusCode::OK, &order))
}
