//! `POST /customers/{customerId}/checkout`: the customer's cart made into an order that holds
//! its stock while they pay. Reads the cart (one Query) and the customer, the products and any
//! earlier answer under the same `Idempotency-Key` (one BatchGetItem), prices the lines from the
//! catalog, then in ONE transaction takes the stock, writes the order as PENDING_PAYMENT with
//! all its copies and empties the cart (each line deleted only if it is still as read). The
//! answer says what to pay, in the currency's smallest unit, and when the hold ends. A retried
//! request gets the first one's answer. The customer's own, or staff's (`shared::http::routes`).

use lambda_http::Request;
use shared::domain::cart::MAX_CART_LINES;
use shared::domain::checkout::{AmountDue, CheckedOut};
use shared::domain::idempotency::{IdempotencyRecord, checkout_fingerprint};
use shared::domain::ids::{CustomerId, IdempotencyKey, Sku};
use shared::domain::order::{OrderDetails, RequestedLine};
use shared::dynamo::orders::{Checked, PlaceOrderError};
use shared::http::HttpResult;
use shared::http::request::{header_value, path_param};
use shared::http::response::{created, replayed};
use shared::metrics::{self, Metric};
use shared::retry::{Backoff, retry};
use shared::{AppError, Store};

/// What an attempt came to.
enum Outcome {
    Held(Box<CheckedOut>),
    /// The key's first request got there first: its answer is this one's.
    Replayed(IdempotencyRecord),
}

/// One attempt: the cart and the order's inputs read (strongly consistent: a checkout decides
/// on them), the order held.
async fn attempt(
    store: &Store,
    customer: &CustomerId,
    key: Option<&IdempotencyKey>,
    fingerprint: &str,
) -> Result<Outcome, PlaceOrderError> {
    let cart = store.live_cart(customer).await?;
    // Two edits at once can each see room for one more line; a checkout never carries more than
    // its transaction can (a 409 the customer resolves by removing lines, never a 500).
    if cart.len() > MAX_CART_LINES {
        return Err(AppError::CartFull(MAX_CART_LINES).into());
    }
    let requested: Vec<RequestedLine> = cart
        .iter()
        .map(|stored| RequestedLine {
            sku: stored.line.sku.clone(),
            quantity: stored.line.quantity,
            expected_price: None,
        })
        .collect();
    let skus: Vec<Sku> = requested.iter().map(|line| line.sku.clone()).collect();
    let inputs = store.read_order_inputs(customer, key, &skus, true).await?;
    // A replay before the cart: the first checkout emptied it.
    let lines = match inputs.checked(customer, &requested)? {
        Checked::Replay(record) => return Ok(Outcome::Replayed(record)),
        Checked::Lines(lines) if lines.is_empty() => return Err(AppError::CartEmpty.into()),
        Checked::Lines(lines) => lines,
    };
    let held = OrderDetails::hold(
        customer.clone(),
        lines,
        chrono::Utc::now(),
        store.hold().duration(),
    )?;
    let payment = AmountDue {
        amount: store.currency().minor_units(held.order.total)?,
        currency: store.currency().clone(),
    };
    let checked_out = CheckedOut {
        order: held,
        payment,
    };
    let record = IdempotencyRecord {
        fingerprint: fingerprint.to_owned(),
        order_id: checked_out.order.order.order_id.clone(),
        response: serde_json::to_string(&checked_out).map_err(AppError::internal)?,
    };
    store
        .place_order(&checked_out.order, key.map(|key| (key, &record)), &cart)
        .await?;
    Ok(Outcome::Held(Box::new(checked_out)))
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let customer = path_param(&req, "customerId", CustomerId::parse)?;
    let key = header_value(&req, "idempotency-key")?
        .map(IdempotencyKey::parse)
        .transpose()?;
    let fingerprint = checkout_fingerprint(&customer);
    let (customer_ref, key_ref, fingerprint_ref) = (&customer, key.as_ref(), &fingerprint);
    let outcome = retry(
        &Backoff::TRANSACTION,
        PlaceOrderError::worth_retrying,
        |_| attempt(store, customer_ref, key_ref, fingerprint_ref),
    )
    .await;
    match outcome.map_err(AppError::from)? {
        Outcome::Held(checked_out) => {
            metrics::count(Metric::HoldsMade, 1);
            let location = format!("/orders/{}", checked_out.order.order.order_id);
            Ok(created(&location, &*checked_out))
        }
        Outcome::Replayed(record) => {
            let response = replayed(&record, &fingerprint)?;
            metrics::count(Metric::IdempotentReplays, 1);
            Ok(response)
        }
    }
}
