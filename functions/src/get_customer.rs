//! `GET /customers/{customerId}`: a customer's profile (access pattern 1, one GetItem), for the
//! customer and staff (the route table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::domain::ids::CustomerId;
use shared::http::HttpResult;
use shared::http::request::path_param;
use shared::http::response::json_response;
use shared::{AppError, Store};

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "customerId", CustomerId::parse)?;
    let customer = store
        .get_customer(&id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("customer {id} does not exist")))?;
    Ok(json_response(StatusCode::OK, &customer))
}
