//! `GET /customers/{customerId}/orders?limit=&cursor=&from=&to=`: a customer's orders, newest
//! first (access pattern 2, one Query on the customer's partition), for the customer and staff
//! (the route table, `shared::http::routes`).

use lambda_http::Request;
use shared::Store;
use shared::domain::ids::CustomerId;
use shared::domain::order::Order;
use shared::http::HttpResult;
use shared::http::request::{caller, page_request, path_param, placed_window};
use shared::http::response::list_response;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let customer = path_param(&req, "customerId", CustomerId::parse)?;
    let caller = caller(&req)?;
    let window = placed_window(&req)?;
    let page = page_request(&req)?;
    let orders = store
        .list_customer_orders(&customer, window, &page, caller)
        .await?;
    Ok(list_response::<Order>(orders.items, orders.next_cursor))
}
