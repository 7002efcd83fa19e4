//! `PUT /customers/{customerId}` `{name, email, address}`: creates (201) or replaces (200) a
//! customer's profile (the address, ISO 3166-checked, kept for their orders; absent: none), in one UpdateItem that keeps the order statistics the profile also holds. The
//! customer's own, or staff's (the route table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::Store;
use shared::domain::address::AddressBody;
use shared::domain::customer::Customer;
use shared::domain::ids::CustomerId;
use shared::http::HttpResult;
use shared::http::request::{json_body, path_param};
use shared::http::response::{created, json_response};

const MAX_BODY_BYTES: usize = 16 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CustomerBody {
    name: String,
    email: String,
    /// Where their orders go unless checkout says otherwise; absent: none kept.
    #[serde(default, deserialize_with = "shared::domain::present::present")]
    address: Option<AddressBody>,
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "customerId", CustomerId::parse)?;
    let body: CustomerBody = json_body(&req, MAX_BODY_BYTES)?;
    let address = body.address.map(AddressBody::check).transpose()?;
    let customer = Customer::new(id, &body.name, &body.email)?.with_address(address);
    if store.put_customer(&customer).await? {
        Ok(created(
            &format!("/customers/{}", customer.customer_id),
            &customer,
        ))
    } else {
        Ok(json_response(StatusCode::OK, &customer))
    }
}
