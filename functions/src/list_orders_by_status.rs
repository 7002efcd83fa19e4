//! `GET /orders?status=PLACED&limit=&cursor=`: the orders with a status, oldest first (access
//! pattern 4, one Query on GSI1). Staff only (the route table, `shared::http::routes`): every
//! row names a customer.

use lambda_http::Request;
use shared::domain::status::OrderStatus;
use shared::http::HttpResult;
use shared::http::request::{caller, page_request, query_param};
use shared::http::response::list_response;
use shared::{AppError, Store};

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let caller = caller(&req)?;
    let status: OrderStatus = query_param(&req, "status")?
        .ok_or_else(|| {
            AppError::invalid("status is required, one of PLACED, SHIPPED, DELIVERED, CANCELLED")
        })?
        .parse()?;
    let page = page_request(&req)?;
    let orders = store.list_orders_by_status(status, &page, caller).await?;
    Ok(list_response(orders.items, orders.next_cursor))
}
