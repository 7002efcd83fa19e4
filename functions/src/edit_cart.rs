//! A customer's cart, edited, for the customer and staff (the route table,
//! `shared::http::routes`):
//! - `PUT /customers/{customerId}/cart/items/{sku}` `{"quantity": n}` holds `n` of a product the
//!   catalog knows (422 otherwise), 0 removes the line; 200 with the cart.
//! - `DELETE /customers/{customerId}/cart/items/{sku}` removes a line (204, whether or not it
//!   was there).
//! - `DELETE /customers/{customerId}/cart` empties the cart (204).
//!
//! Every change moves the line's expiry to `CartTtlDays` from now. Prices are not kept: checkout
//! reads them from the catalog.

use lambda_http::http::{Method, StatusCode};
use lambda_http::{Body, Request, RequestExt, Response};
use serde::Deserialize;
use shared::Store;
use shared::domain::cart::LineChange;
use shared::domain::ids::{CustomerId, Sku};
use shared::http::HttpResult;
use shared::http::request::{json_body, path_param};
use shared::http::response::json_response;

const MAX_BODY_BYTES: usize = 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineBody {
    #[serde(deserialize_with = "shared::http::request::whole_number")]
    quantity: u32,
}

fn no_content() -> Response<Body> {
    let mut response = Response::new(Body::Empty);
    *response.status_mut() = StatusCode::NO_CONTENT;
    response
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let customer = path_param(&req, "customerId", CustomerId::parse)?;
    let names_a_line = req
        .path_parameters_ref()
        .and_then(|params| params.first("sku"))
        .is_some();
    if !names_a_line {
        store.clear_cart(&customer).await?;
        return Ok(no_content());
    }
    let sku = path_param(&req, "sku", Sku::parse)?;
    if req.method() == Method::DELETE {
        store.remove_cart_line(&customer, &sku).await?;
        return Ok(no_content());
    }
    let body: LineBody = json_body(&req, MAX_BODY_BYTES)?;
    let change = LineChange::of(body.quantity)?;
    let cart = store.change_cart_line(&customer, &sku, change).await?;
    Ok(json_response(StatusCode::OK, &cart))
}
