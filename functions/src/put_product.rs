//! `PUT /products/{sku}` `{name, price}`: creates (201, stock 0) or replaces (200) a product's
//! name and price, with its catalog entry, in one transaction. Staff only (the route table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::Store;
use shared::domain::ids::Sku;
use shared::domain::product;
use shared::http::HttpResult;
use shared::http::request::{json_body, path_param};
use shared::http::response::{created, json_response};

const MAX_BODY_BYTES: usize = 16 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProductBody {
    name: String,
    /// A decimal string, as every price the API takes.
    price: String,
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let sku = path_param(&req, "sku", Sku::parse)?;
    let body: ProductBody = json_body(&req, MAX_BODY_BYTES)?;
    let name = product::product_name(&body.name)?;
    let price = product::price(&body.price)?;
    let (product, new) = store.put_product(&sku, &name, price).await?;
    if new {
        Ok(created(&format!("/products/{sku}"), &product))
    } else {
        Ok(json_response(StatusCode::OK, &product))
    }
}
