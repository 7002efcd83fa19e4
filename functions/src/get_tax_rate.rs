//! `GET /tax-rates/{country}`: a country's tax as staff set it, one GetItem; a country without
//! one is a 404 (no tax is charged there). Staff only (the route table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::Store;
use shared::domain::address::Country;
use shared::http::HttpResult;
use shared::http::request::path_param;
use shared::http::response::json_response;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let country = path_param(&req, "country", Country::parse)?;
    match store.tax_rate(&country).await? {
        Some(rate) => Ok(json_response(StatusCode::OK, &rate)),
        None => Err(shared::AppError::not_found(format!(
            "no tax rate is set for {country}: none is charged there"
        ))),
    }
}
