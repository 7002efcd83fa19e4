//! `POST /variants/{sku}/stock` `{"delta": n}`: adds to (or, negative, takes from) a variant's
//! stock in one conditional UpdateItem: racing changes are never lost, and the stock never goes
//! below 0 (409). Staff only (the route table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::Store;
use shared::domain::ids::Sku;
use shared::domain::product;
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param};
use shared::http::response::json_response;

const MAX_BODY_BYTES: usize = 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StockBody {
    #[serde(deserialize_with = "shared::http::request::whole_number")]
    delta: i64,
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let sku = path_param(&req, "sku", Sku::parse)?;
    let delta = product::stock_delta(json_body::<StockBody>(&req, MAX_BODY_BYTES)?.delta)?;
    let variant = store.adjust_stock(&sku, delta).await?;
    Ok(json_response(
        StatusCode::OK,
        &variant.seen_by(caller(&req)?),
    ))
}
