//! `GET /customers/{customerId}/cart/quote?shippingOptionId=&country=&region=&code=`: what the
//! customer's cart costs before they pay — subtotal, each line's discount and tax, shipping,
//! tax, total — priced by the one computation checkout uses (`shared::domain::pricing`). Where
//! it goes is `country` (and `region`), or the address on the profile; `code` gives up to five
//! codes, comma-separated. The customer's own, or staff's (the route table,
//! `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::domain::address::Country;
use shared::domain::ids::{CustomerId, ShippingOptionId};
use shared::domain::pricing::quote::QuoteRequest;
use shared::domain::promotions::PromotionCode;
use shared::http::HttpResult;
use shared::http::request::{path_param, query_param};
use shared::http::response::json_response;
use shared::{AppError, Store};

/// The most codes one cart takes.
const MAX_CODES: usize = 5;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let customer = path_param(&req, "customerId", CustomerId::parse)?;
    let request = QuoteRequest {
        shipping_option: query_param(&req, "shippingOptionId")?
            .map(ShippingOptionId::parse)
            .transpose()?,
        place: match (query_param(&req, "country")?, query_param(&req, "region")?) {
            (Some(country), region) => {
                let country = Country::parse(country)?;
                let region = region.map(|r| country.region(r)).transpose()?;
                Some((country, region))
            }
            (None, Some(_)) => return Err(AppError::invalid("region needs its country")),
            (None, None) => None,
        },
        codes: codes(query_param(&req, "code")?)?,
    };
    let quote = store.quote(&customer, &request).await?;
    Ok(json_response(StatusCode::OK, &quote))
}

/// The codes `raw` lists, comma-separated, each once.
fn codes(raw: Option<&str>) -> Result<Vec<PromotionCode>, AppError> {
    let Some(raw) = raw else {
        return Ok(Vec::new());
    };
    let mut codes = raw
        .split(',')
        .map(PromotionCode::parse)
        .collect::<Result<Vec<_>, _>>()?;
    codes.sort();
    codes.dedup();
    if codes.len() > MAX_CODES {
        return Err(AppError::invalid(format!(
            "a cart takes at most {MAX_CODES} codes"
        )));
    }
    Ok(codes)
}
