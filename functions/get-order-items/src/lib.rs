//! `GET /orders/{orderId}/items?limit=&cursor=`: an order's line items (access pattern 3, one
//! Query on the order's partition).

use lambda_http::Request;
use shared::Store;
use shared::domain::ids::OrderId;
use shared::http::HttpResult;
use shared::http::request::{page_request, path_param};
use shared::http::response::list_response;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let order = path_param(&req, "orderId", OrderId::parse)?;
    let page = page_request(&req)?;
    let lines = store.list_order_items(&order, &page).await?;
    Ok(list_response(lines.items, lines.next_cursor))
}
