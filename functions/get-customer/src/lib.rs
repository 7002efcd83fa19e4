//! `GET /customers/{customerId}`: a customer's profile (access pattern 1, one GetItem).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::http::{HttpResult, json_response, path_param};
use shared::ids::CustomerId;
use shared::{AppError, Store};

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "customerId", CustomerId::parse)?;
    let customer = store
        .get_customer(&id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("customer {id} does not exist")))?;
    Ok(json_response(StatusCode::OK, &customer))
}
