//! `GET /products/{productId}`: a product with its variants (their prices; stock for staff,
//! `inStock` for others) and its pictures (URLs signed for the private bucket), in ONE Query of GSI3 (access pattern 12), for any signed-in caller, and
//! for callers without a token under `/storefront` (who see what customers see);
//! a product that is not published is a 404 to anyone but staff, as one that does not exist
//! (the route table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::domain::ids::ProductId;
use shared::http::HttpResult;
use shared::http::request::{path_param, viewer};
use shared::http::response::json_response;
use shared::{AppError, Store};

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "productId", ProductId::parse)?;
    let caller = viewer(&req);
    let product = store
        .get_product(&id, caller)
        .await?
        .ok_or_else(|| AppError::not_found(format!("product {id} does not exist")))?;
    Ok(json_response(StatusCode::OK, &product))
}
