//! `GET /products/{sku}`: a product, its price and its stock (one GetItem), for any signed-in
//! caller (the route table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::domain::ids::Sku;
use shared::http::HttpResult;
use shared::http::request::path_param;
use shared::http::response::json_response;
use shared::{AppError, Store};

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let sku = path_param(&req, "sku", Sku::parse)?;
    let product = store
        .get_product(&sku)
        .await?
        .ok_or_else(|| AppError::not_found(format!("product {sku} does not exist")))?;
    Ok(json_response(StatusCode::OK, &product))
}
