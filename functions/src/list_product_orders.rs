//! `GET /variants/{sku}/orders?limit=&cursor=&from=&to=`: the orders that contain a variant,
//! newest first (access pattern 8, one Query on GSI2 per page), for staff (the route table,
//! `shared::http::routes`): a recall, a
//! customer-service lookup, a stock reconciliation.

use lambda_http::Request;
use shared::Store;
use shared::domain::ids::Sku;
use shared::domain::order::ProductOrderLine;
use shared::http::HttpResult;
use shared::http::request::{caller, page_request, path_param, placed_window};
use shared::http::response::list_response;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let sku = path_param(&req, "sku", Sku::parse)?;
    let caller = caller(&req)?;
    let window = placed_window(&req)?;
    let page = page_request(&req)?;
    let lines = store
        .list_product_orders(&sku, window, &page, caller)
        .await?;
    Ok(list_response::<ProductOrderLine>(
        lines.items,
        lines.next_cursor,
    ))
}
