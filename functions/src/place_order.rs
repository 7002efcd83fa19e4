//! `POST /customers/{customerId}/orders` `{items: [{sku, quantity}]}`: reads the customer, the
//! products and any earlier answer under the same `Idempotency-Key` (one BatchGetItem), prices
//! the order from the catalog and places it, taking the stock, in one transaction; a retried
//! request gets the first one's answer and takes nothing twice. The customer's own, or staff's
//! (the route table, `shared::http::routes`).
//!
//! The first read is eventually consistent (half the read units). It can be stale only for
//! a moment after a write, and never decides alone: a refusal it would lead to (no customer, an
//! unknown product, not enough stock, a price other than the client expected) is read again
//! strongly consistent first, a stale price or stock fails the transaction's own conditions,
//! and every retry reads strongly consistent.

mod body;

use lambda_http::Request;
use shared::domain::idempotency::{IdempotencyRecord, fingerprint};

use shared::domain::ids::{CustomerId, IdempotencyKey};
use shared::domain::order::OrderDetails;
use shared::dynamo::orders::{Checked, InputsRead, OrderInputs, PlaceOrderError};
use shared::http::HttpResult;
use shared::http::request::{header_value, json_body, path_param};
use shared::http::response::{created, replayed};
use shared::metrics::{self, Metric};
use shared::retry::retry_when;
use shared::{AppError, Store};

use crate::place_order::body::{MAX_BODY_BYTES, NewOrderBody};

fn location(placed: &OrderDetails) -> String {
    format!("/orders/{}", placed.order.order_id)
}

/// What an attempt came to.
enum Outcome {
    Placed(Box<OrderDetails>),
    /// The key's first request got there first: its answer is this one's.
    Replayed(IdempotencyRecord),
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let customer = path_param(&req, "customerId", CustomerId::parse)?;
    let idempotency_key = header_value(&req, "idempotency-key")?
        .map(IdempotencyKey::parse)
        .transpose()?;
    let lines = json_body::<NewOrderBody>(&req, MAX_BODY_BYTES)?.into_lines()?;
    let fingerprint = fingerprint(&customer, &lines);

    let (customer_ref, key_ref) = (&customer, idempotency_key.as_ref());
    let (requested, fingerprint_ref) = (&lines, &fingerprint);
    let outcome = retry_when(
        store.transaction_backoff(),
        PlaceOrderError::again,
        |attempt| async move {
            let read = |consistent| {
                let read = if consistent {
                    InputsRead::Consistent
                } else {
                    InputsRead::Eventual
                };
                store.read_order_inputs(customer_ref, key_ref, requested, (read, false, attempt))
            };
            let checked = |inputs: OrderInputs| inputs.checked(customer_ref, requested);
            // A refusal on the first, eventually consistent read is read again consistently.
            let lines = match checked(read(attempt > 0).await?) {
                Err(_) if attempt == 0 => checked(read(true).await?),
                first => first,
            }?;
            let (lines, levels) = match lines {
                Checked::Lines(lines, levels) => (lines, levels),
                Checked::Replay(record) => return Ok(Outcome::Replayed(record)),
            };
            let placed = OrderDetails::place(customer_ref.clone(), lines, chrono::Utc::now())?;
            let record = IdempotencyRecord {
                fingerprint: fingerprint_ref.clone(),
                order_id: placed.order.order_id.clone(),
                response: serde_json::to_string(&placed).map_err(AppError::internal)?,
            };
            store
                .place_order(&placed, key_ref.map(|key| (key, &record)), None, &levels)
                .await?;
            Ok(Outcome::Placed(Box::new(placed)))
        },
    )
    .await;
    match outcome.map_err(AppError::from)? {
        Outcome::Placed(placed) => {
            metrics::order_placed(&placed.order.total);
            Ok(created(&location(&placed), &placed))
        }
        Outcome::Replayed(record) => {
            let response = replayed(&record, &fingerprint)?;
            metrics::count(Metric::IdempotentReplays, 1);
            Ok(response)
        }
    }
}
