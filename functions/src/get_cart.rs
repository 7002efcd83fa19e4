//! `GET /customers/{customerId}/cart`: a customer's cart (access pattern 9, one Query on the
//! customer's partition), its lines not yet expired, for the customer and staff (the route
//! table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::Store;
use shared::domain::ids::CustomerId;
use shared::http::HttpResult;
use shared::http::request::path_param;
use shared::http::response::json_response;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let customer = path_param(&req, "customerId", CustomerId::parse)?;
    let cart = store.get_cart(&customer).await?;
    Ok(json_response(StatusCode::OK, &cart))
}
