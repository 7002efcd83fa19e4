//! `GET /variants/{sku}`: a variant, its price and whether it is in stock (staff: its stock,
//! its count of stock shards and its product's status), one GetItem (access pattern 5; a SKU
//! whose stock is split over shards adds one BatchGetItem of them), for any signed-in caller, and
//! for callers without a token under `/storefront` (who see what customers see); a variant
//! of a product that is not published is a 404 to anyone but staff (the route table,
//! `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::domain::ids::Sku;
use shared::http::HttpResult;
use shared::http::request::{path_param, viewer};
use shared::http::response::json_response;
use shared::{AppError, Store};

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let sku = path_param(&req, "sku", Sku::parse)?;
    let caller = viewer(&req);
    let variant = store
        .variant_whole(&sku, false)
        .await?
        .and_then(|variant| variant.seen_by(caller))
        .ok_or_else(|| AppError::not_found(format!("variant {sku} does not exist")))?;
    Ok(json_response(StatusCode::OK, &variant))
}
