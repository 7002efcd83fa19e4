//! `GET /returns?status=&limit=&cursor=`: access pattern 11, staff's work list of returns in one
//! status (REQUESTED unless `status` says otherwise), oldest first: ONE Query on GSI1
//! (`RETURNS#<status>`) per page, each return with its order and customer. Staff only.

use lambda_http::Request;
use shared::Store;
use shared::domain::returns::ReturnStatus;
use shared::http::HttpResult;
use shared::http::request::{caller, page_request, query_param};
use shared::http::response::list_response;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let caller = caller(&req)?;
    let status = query_param(&req, "status")?
        .map(str::parse)
        .transpose()?
        .unwrap_or(ReturnStatus::Requested);
    let page = page_request(&req)?;
    let returns = store.list_returns(status, &page, caller).await?;
    Ok(list_response(returns.items, returns.next_cursor))
}
