//! `GET /shipping-options?country=&region=`: the ways to ship to an address (ISO 3166-1
//! alpha-2, and ISO 3166-2 where the option serves only some regions), by name; every one
//! without a country. One Query of the shipping partition. For any signed-in caller, and for
//! callers without a token under `/storefront` (the route table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde_json::json;
use shared::Store;
use shared::domain::address::Country;
use shared::http::HttpResult;
use shared::http::request::query_param;
use shared::http::response::json_response;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let country = query_param(&req, "country")?
        .map(Country::parse)
        .transpose()?;
    let region = match (&country, query_param(&req, "region")?) {
        (Some(country), Some(region)) => Some(country.region(region)?),
        (None, Some(_)) => {
            return Err(shared::AppError::invalid("region needs its country"));
        }
        (_, None) => None,
    };
    let place = country.as_ref().map(|c| (c, region.as_ref()));
    let options = store.list_shipping_options(place).await?;
    Ok(json_response(StatusCode::OK, &json!({ "items": options })))
}
