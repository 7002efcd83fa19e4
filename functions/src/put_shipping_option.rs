//! `PUT /shipping-options/{optionId}` `{"name", "zones", "rate", "freeAbove"}`: creates (201) or
//! replaces (200) a way to ship: the countries (or regions, ISO 3166) it serves, a flat rate or
//! one by the cart's weight in bands, and the subtotal above which it is free
//! (`shared::domain::shipping`). Staff only (the route table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::Store;
use shared::domain::ids::ShippingOptionId;
use shared::domain::shipping::ShippingOptionBody;
use shared::http::HttpResult;
use shared::http::request::{json_body, path_param};
use shared::http::response::{created, json_response};

/// 50 zones of 100 regions each fit.
const MAX_BODY_BYTES: usize = 64 * 1024;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "optionId", ShippingOptionId::parse)?;
    let body: ShippingOptionBody = json_body(&req, MAX_BODY_BYTES)?;
    let option = body.check(id.clone())?;
    if store.put_shipping_option(&option).await? {
        Ok(created(&format!("/shipping-options/{id}"), &option))
    } else {
        Ok(json_response(StatusCode::OK, &option))
    }
}
