//! `GET /customers/{customerId}/orders?limit=&cursor=&from=&to=`: a customer's orders, newest
//! first (access pattern 2, one Query on the customer's partition), for the customer and staff.

use lambda_http::Request;
use serde::Serialize;
use shared::domain::ids::{CustomerId, OrderId};
use shared::domain::money::Money;
use shared::domain::order::Order;
use shared::domain::page::PlacedWindow;
use shared::domain::status::OrderStatus;
use shared::domain::time::Timestamp;
use shared::http::HttpResult;
use shared::http::request::{caller, page_request, path_param, query_param};
use shared::http::response::list_response;
use shared::{AppError, Store};

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

fn timestamp_param(req: &Request, name: &str) -> Result<Option<Timestamp>, AppError> {
    query_param(req, name)?
        .map(|raw| {
            Timestamp::parse_query_value(raw)
                .map_err(|err| AppError::invalid(format!("{name}: {err}")))
        })
        .transpose()
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let customer = path_param(&req, "customerId", CustomerId::parse)?;
    let caller = caller(&req)?;
    caller.check_customer(&customer)?;
    let window = PlacedWindow::new(timestamp_param(&req, "from")?, timestamp_param(&req, "to")?)?;
    let page = page_request(&req)?;
    let orders = store
        .list_customer_orders(&customer, window, &page, caller)
        .await?;
    let items = orders.items.into_iter().map(OrderView::from).collect();
    Ok(list_response::<OrderView>(items, orders.next_cursor))
}
