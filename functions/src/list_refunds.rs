//! `GET /payments/refunds?status=&limit=&cursor=`: access pattern 10, the refunds in one status
//! (REQUESTED unless `status` says otherwise: REQUESTED, PENDING, SUCCEEDED or FAILED), oldest
//! first: ONE Query on GSI1 (`REFUNDS#<status>`) per page. Every refund is there: staff's, a
//! paid order's cancellation's, and each signed payment that placed nothing (an unknown order,
//! the wrong amount or currency, a hold already ended). Staff only.

use lambda_http::Request;
use shared::Store;
use shared::domain::refund::RefundStatus;
use shared::http::HttpResult;
use shared::http::request::{caller, page_request, query_param};
use shared::http::response::list_response;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let caller = caller(&req)?;
    let status = query_param(&req, "status")?
        .map(str::parse)
        .transpose()?
        .unwrap_or(RefundStatus::Requested);
    let page = page_request(&req)?;
    let refunds = store.list_refunds(status, &page, caller).await?;
    Ok(list_response(refunds.items, refunds.next_cursor))
}
