//! `GET /orders/{orderId}`: the order's header and line items; `GET /orders/{orderId}/payments`:
//! its ledger (what was paid, what went back, what may still go back, each payment and each
//! refund with its status). Both are the same ONE Query on the order's partition (access
//! pattern 7: the header, the lines, the refunds). The owner's and staff's
//! (`Admits::OrderOwner`: the store's read takes the caller); anyone else is told the order
//! does not exist.

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::Store;
use shared::domain::ids::OrderId;
use shared::domain::ledger::Ledger;
use shared::http::HttpResult;
use shared::http::request::{caller, path_param};
use shared::http::response::json_response;
use shared::http::routes::RouteKey;

/// The ledger's route; the other is the order's.
pub const LEDGER_ROUTE: &str = "GET /orders/{orderId}/payments";

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "orderId", OrderId::parse)?;
    let caller = caller(&req)?;
    let order = store.order_for(&id, caller).await?.seen_by(caller);
    let route = req.extensions().get::<RouteKey>().map(|key| key.0.as_str());
    if route == Some(LEDGER_ROUTE) {
        return Ok(json_response(
            StatusCode::OK,
            &Ledger::of(&order, store.currency()),
        ));
    }
    Ok(json_response(StatusCode::OK, &order))
}
