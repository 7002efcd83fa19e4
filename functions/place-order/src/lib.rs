//! `POST /customers/{customerId}/orders` `{items: [{sku, quantity, price}]}`: places an order in
//! one transaction; with an `Idempotency-Key`, a retried request gets the first one's answer.
//! The customer's own, or staff's.

mod body;

use lambda_http::http::HeaderValue;
use lambda_http::{Body, Request, Response};
use shared::domain::idempotency::{IdempotencyRecord, fingerprint};
use shared::domain::ids::{CustomerId, IdempotencyKey};
use shared::domain::order::{NewOrder, OrderDetails};
use shared::dynamo::orders::PlaceOrderError;
use shared::http::HttpResult;
use shared::http::request::{caller, header_value, json_body, path_param};
use shared::http::response::created;
use shared::retry::{Backoff, retry};
use shared::{AppError, Store};

use crate::body::{MAX_BODY_BYTES, NewOrderBody};

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

/// What an attempt came to.
enum Outcome {
    Placed(OrderDetails),
    /// The key's first request got there first: its answer is this one's.
    Replayed(IdempotencyRecord),
}

/// Worth another attempt: a transaction that collided with a concurrent one, or a key that
/// another request took meanwhile (the next attempt reads its record and replays it).
fn worth_retrying(err: &PlaceOrderError) -> bool {
    matches!(err, PlaceOrderError::Contended | PlaceOrderError::KeyTaken)
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let customer = path_param(&req, "customerId", CustomerId::parse)?;
    caller(&req)?.check_customer(&customer)?;
    let idempotency_key = header_value(&req, "idempotency-key")?
        .map(IdempotencyKey::parse)
        .transpose()?;
    let lines = json_body::<NewOrderBody>(&req, MAX_BODY_BYTES)?.into_lines()?;
    let fingerprint = fingerprint(&customer, &lines);

    let (customer_ref, key_ref) = (&customer, idempotency_key.as_ref());
    let (lines_ref, fingerprint_ref) = (&lines, &fingerprint);
    let outcome = retry(&Backoff::TRANSACTION, worth_retrying, |_| async move {
        if let Some(key) = key_ref
            && let Some(record) = store.idempotency_record(customer_ref, key).await?
        {
            return Ok(Outcome::Replayed(record));
        }
        let order = NewOrder::new(customer_ref.clone(), lines_ref.clone(), chrono::Utc::now())?;
        let details = order.details();
        let record = IdempotencyRecord {
            fingerprint: fingerprint_ref.clone(),
            order_id: order.order_id.clone(),
            response: serde_json::to_string(&details).map_err(AppError::internal)?,
        };
        store
            .place_order(&order, key_ref.map(|key| (key, &record)))
            .await?;
        Ok(Outcome::Placed(details))
    })
    .await;
    match outcome {
        Ok(Outcome::Placed(details)) => Ok(created(&location(&details), &details)),
        Ok(Outcome::Replayed(record)) => replay(&record, &fingerprint),
        Err(PlaceOrderError::CustomerNotFound) => Err(AppError::not_found(format!(
            "customer {customer} does not exist"
        ))),
        Err(PlaceOrderError::Contended | PlaceOrderError::KeyTaken) => Err(AppError::conflict(
            "the order collided with concurrent requests; retry it",
            None,
        )),
        Err(PlaceOrderError::Failed(err)) => Err(err),
    }
}
