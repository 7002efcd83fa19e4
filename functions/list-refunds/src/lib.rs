//! `GET /payments/refunds?limit=&cursor=`: access pattern 10, the signed payments that placed
//! nothing and are to be given back (an unknown order, the wrong amount or currency, a hold
//! already ended), oldest first: ONE Query on GSI1 (`REFUNDS_DUE`) per page. Staff only.

use lambda_http::Request;
use shared::Store;
use shared::http::HttpResult;
use shared::http::request::{caller, page_request};
use shared::http::response::list_response;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let caller = caller(&req)?;
    let page = page_request(&req)?;
    let refunds = store.list_refunds_due(&page, caller).await?;
    Ok(list_response(refunds.items, refunds.next_cursor))
}
