//! `PUT /tax-rates/{country}` `{"rate", "regions", "shippingTaxed"}`: creates (201) or replaces
//! (200) a country's tax (ISO 3166-1 alpha-2): its rate, the regions (ISO 3166-2) with one of
//! their own, and whether its shipping is taxed (`shared::domain::tax`). Staff only (the route
//! table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::Store;
use shared::domain::address::Country;
use shared::domain::tax::TaxRateBody;
use shared::http::HttpResult;
use shared::http::request::{json_body, path_param};
use shared::http::response::{created, json_response};

/// 100 regions with their rates fit.
const MAX_BODY_BYTES: usize = 16 * 1024;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let country = path_param(&req, "country", Country::parse)?;
    let body: TaxRateBody = json_body(&req, MAX_BODY_BYTES)?;
    let rate = body.check(country.clone())?;
    if store.put_tax_rate(&rate).await? {
        Ok(created(&format!("/tax-rates/{country}"), &rate))
    } else {
        Ok(json_response(StatusCode::OK, &rate))
    }
}
