//! `GET /customers/{customerId}/orders?limit=&cursor=&from=&to=`: a customer's orders, newest
//! first (access pattern 2, one Query on the customer's partition), for the customer and staff
//! (the route table, `shared::http::routes`).

use lambda_http::Request;
use serde::Serialize;
use shared::Store;
use shared::domain::ids::{CustomerId, OrderId};
use shared::domain::money::Money;
use shared::domain::order::Order;
use shared::domain::status::OrderStatus;
use shared::domain::time::Timestamp;
use shared::http::HttpResult;
use shared::http::request::{caller, page_request, path_param, placed_window};
use shared::http::response::list_response;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OrderView {
    order_id: OrderId,
    placed_at: Timestamp,
    status: OrderStatus,
    total: Money,
}

impl From<Order> for OrderView {
    fn from(order: Order) -> Self {
        Self {
            order_id: order.order_id,
            placed_at: order.placed_at,
            status: order.status,
            total: order.total,
        }
    }
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let customer = path_param(&req, "customerId", CustomerId::parse)?;
    let caller = caller(&req)?;
    let window = placed_window(&req)?;
    let page = page_request(&req)?;
    let orders = store
        .list_customer_orders(&customer, window, &page, caller)
        .await?;
    let items = orders.items.into_iter().map(OrderView::from).collect();
    Ok(list_response::<OrderView>(items, orders.next_cursor))
}
