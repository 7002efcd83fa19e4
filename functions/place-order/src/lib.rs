//! `POST /customers/{customerId}/orders` `{items: [{sku, quantity, price}]}`: places an order in
//! one transaction; with an `Idempotency-Key`, a retried request gets the first one's answer.

use std::time::Duration;

use lambda_http::http::HeaderValue;
use lambda_http::{Body, Request, Response};
use shared::http::{HttpResult, created, header_value, json_body, path_param};
use shared::ids::{CustomerId, IdempotencyKey};
use shared::orders::{self, MAX_BODY_BYTES, NewOrder, NewOrderBody, OrderDetails};
use shared::writes::{IdempotencyRecord, PlaceOrderError};
use shared::{AppError, Store};

/// Tries before giving up on transactions that keep colliding with concurrent ones.
const MAX_ATTEMPTS: u32 = 6;

fn location(order: &OrderDetails) -> String {
    format!("/orders/{}", order.order_id)
}

/// The first request's 201, again.
fn replay(record: &IdempotencyRecord, fingerprint: &str) -> HttpResult {
    if record.fingerprint != fingerprint {
        return Err(AppError::Unprocessable(
            "this Idempotency-Key was used for a different request".into(),
        ));
    }
    let order: OrderDetails = serde_json::from_str(&record.response).map_err(AppError::internal)?;
    let mut response: Response<Body> = created(&location(&order), &order);
    response
        .headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
    Ok(response)
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let customer = path_param(&req, "customerId", CustomerId::parse)?;
    let idempotency_key = header_value(&req, "idempotency-key")?
        .map(IdempotencyKey::parse)
        .transpose()?;
    let lines = json_body::<NewOrderBody>(&req, MAX_BODY_BYTES)?.into_lines()?;
    let fingerprint = orders::fingerprint(&customer, &lines);

    for attempt in 0..MAX_ATTEMPTS {
        if let Some(key) = &idempotency_key
            && let Some(record) = store.idempotency_record(&customer, key).await?
        {
            return replay(&record, &fingerprint);
        }
        let order = NewOrder::new(customer.clone(), lines.clone(), chrono::Utc::now())?;
        let details = order.details();
        let record = IdempotencyRecord {
            fingerprint: fingerprint.clone(),
            order_id: order.order_id.clone(),
            response: serde_json::to_string(&details).map_err(AppError::internal)?,
        };
        match store
            .place_order(&order, idempotency_key.as_ref().map(|key| (key, &record)))
            .await
        {
            Ok(()) => return Ok(created(&location(&details), &details)),
            Err(PlaceOrderError::CustomerNotFound) => {
                return Err(AppError::not_found(format!(
                    "customer {customer} does not exist"
                )));
            }
            // Another request with this key won: the next round reads its record.
            Err(PlaceOrderError::KeyTaken) => continue,
            Err(PlaceOrderError::Contended) => {
                tokio::time::sleep(Duration::from_millis(10 << attempt)).await;
            }
            Err(PlaceOrderError::Failed(err)) => return Err(err),
        }
    }
    Err(AppError::conflict(
        "the order collided with concurrent requests; retry it",
        None,
    ))
}
