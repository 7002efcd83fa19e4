//! `POST /customers/{customerId}/checkout`: the customer's cart made into an order that holds
//! its stock while they pay. Reads the cart (one Query) and the customer, the products and any
//! earlier answer under the same `Idempotency-Key` (one BatchGetItem), prices the lines from the
//! catalog, then in ONE transaction takes the stock, writes the order as PENDING_PAYMENT with
//! all its copies and empties the cart (each line deleted only if it is still as read). The
//! answer says what to pay, in the currency's smallest unit, and when the hold ends. A retried
//! request (same `Idempotency-Key`, the cart it emptied) gets the first one's order as it is
//! now, paid since or not; the same key with a cart of other lines is a 422. The customer's own,
//! or staff's (`shared::http::routes`).

use lambda_http::Request;
use shared::domain::access::Caller;
use shared::domain::cart::MAX_CART_LINES;
use shared::domain::checkout::{AmountDue, CheckedOut};
use shared::domain::idempotency::{IdempotencyRecord, checkout_fingerprint};
use shared::domain::ids::{CustomerId, IdempotencyKey, Sku};
use shared::domain::order::{OrderDetails, RequestedLine};
use shared::dynamo::orders::{Checked, PlaceOrderError};
use shared::http::HttpResult;
use shared::http::request::{caller, header_value, path_param};
use shared::http::response::{created, replayed, replayed_as_now};
use shared::metrics::{self, Metric};
use shared::retry::{Backoff, retry};
use shared::{AppError, Store};

/// What an attempt came to.
enum Outcome {
    Held(Box<CheckedOut>),
    /// The key's first request got there first.
    Replayed {
        record: IdempotencyRecord,
        /// This request's cart, as its fingerprint.
        fingerprint: String,
        /// Whether the cart was empty, as the first checkout left it.
        cart_empty: bool,
    },
}

/// One attempt: the cart and the order's inputs read (strongly consistent: a checkout decides
/// on them), the order held.
async fn attempt(
    store: &Store,
    customer: &CustomerId,
    key: Option<&IdempotencyKey>,
) -> Result<Outcome, PlaceOrderError> {
    let cart = store.live_cart(customer).await?;
    let fingerprint = checkout_fingerprint(
        customer,
        &cart
            .iter()
            .map(|stored| (stored.line.sku.clone(), stored.line.quantity))
            .collect::<Vec<_>>(),
    );
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
        Checked::Replay(record) => {
            return Ok(Outcome::Replayed {
                record,
                fingerprint,
                cart_empty: cart.is_empty(),
            });
        }
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
        amount: store.currency().chargeable(held.order.total)?,
        currency: store.currency().clone(),
    };
    let checked_out = CheckedOut {
        order: held,
        payment,
    };
    let record = IdempotencyRecord {
        fingerprint,
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
    let (customer_ref, key_ref) = (&customer, key.as_ref());
    let outcome = retry(
        &Backoff::TRANSACTION,
        PlaceOrderError::worth_retrying,
        |_| attempt(store, customer_ref, key_ref),
    )
    .await;
    match outcome.map_err(AppError::from)? {
        Outcome::Held(checked_out) => {
            metrics::count(Metric::HoldsMade, 1);
            let location = format!("/orders/{}", checked_out.order.order.order_id);
            Ok(created(&location, &*checked_out))
        }
        Outcome::Replayed {
            record,
            fingerprint,
            cart_empty,
        } => {
            // The first checkout emptied the cart, so its retry finds it empty (or, racing it,
            // as it was); a cart of other lines under the same key is another request.
            if !cart_empty && record.fingerprint != fingerprint {
                return Err(AppError::IdempotencyKeyReused);
            }
            let response = replay(store, &record, caller(&req)?).await?;
            metrics::count(Metric::IdempotentReplays, 1);
            Ok(response)
        }
    }
}

/// The first checkout's order as it is now: a retry after the payment sees it PLACED, never
/// the hold it was (which would invite a second payment). The stored answer, should the order
/// be gone.
async fn replay(
    store: &Store,
    record: &IdempotencyRecord,
    caller: &Caller,
) -> Result<lambda_http::Response<lambda_http::Body>, AppError> {
    let Some(order) = store.get_order(&record.order_id, caller).await? else {
        return replayed(record, &record.fingerprint);
    };
    let payment = AmountDue {
        amount: store.currency().minor_units(order.order.total)?,
        currency: store.currency().clone(),
    };
    Ok(replayed_as_now(record, &CheckedOut { order, payment }))
}
