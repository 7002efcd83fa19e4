//! `GET /orders/{orderId}/items?limit=&cursor=`: an order's line items (access pattern 3, one
//! Query on the order's partition, which also reads the header that names the owner). The
//! owner's and staff's; anyone else is told the order does not exist.

use lambda_http::Request;
use shared::domain::ids::OrderId;
use shared::http::HttpResult;
use shared::http::request::{caller, page_request, path_param};
use shared::http::response::list_response;
use shared::{AppError, Store};

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let order = path_param(&req, "orderId", OrderId::parse)?;
    let page = page_request(&req)?;
    let lines = store
        .list_order_items(&order, &page, caller(&req)?)
        .await?
        .ok_or_else(|| AppError::not_found(format!("order {order} does not exist")))?;
    Ok(list_response(lines.items, lines.next_cursor))
}
