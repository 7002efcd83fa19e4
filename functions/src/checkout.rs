//! `POST /customers/{customerId}/checkout`: the customer's cart made into an order that holds
//! its stock while they pay. Reads the cart (one Query) and, at once, the customer and any
//! earlier answer under the same `Idempotency-Key` (one BatchGetItem), then the products (another,
//! unless the process read them a moment ago: `shared::dynamo::recent`), prices the lines from the
//! catalog, then in ONE transaction takes the stock, writes the order as PENDING_PAYMENT with
//! all its copies and empties the cart (each line deleted only if it is still as read). Then it
//! asks the payment provider for a PaymentIntent of the amount it computed (an
//! `Idempotency-Key` derived from the order) and records it on the order: only a payment of it
//! places the order. The answer says what to pay and with what (`payment`), and when the hold
//! ends; a provider that is down or slow is a 503, and the hold gets its PaymentIntent on the
//! retry or ends at `holdUntil`. A retried request (same `Idempotency-Key`, the cart it
//! emptied) gets the first one's order as it is now, paid since or not, with its PaymentIntent;
//! the same key with a cart of other lines is a 422. The customer's own, or staff's
//! (`shared::http::routes`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use lambda_http::Request;
use payment_provider::Provider;
use shared::domain::access::Caller;
use shared::domain::address::Address;
use shared::domain::checkout::{CheckedOut, CheckoutAsk, CheckoutBody, PaymentDue};
use shared::domain::idempotency::{IdempotencyRecord, checkout_fingerprint, with_body};
use shared::domain::ids::{CustomerId, IdempotencyKey, Sku};
use shared::domain::order::LineItem;
use shared::domain::order::{Order, OrderDetails};
use shared::domain::pricing::quote::Quote;
use shared::domain::variant::Variant;
use shared::dynamo::orders::{Checked, CheckoutParts, InputsRead, PlaceOrderError};
use shared::http::HttpResult;
use shared::http::request::{caller, header_value, json_body, path_param, raw_body};
use shared::http::response::{created, replayed_as_now};
use shared::metrics::{self, Metric};
use shared::retry::retry_when;
use shared::{AppError, Store};

/// What checkout needs: the store, and the payment provider it asks for each payment.
#[derive(Debug, Clone)]
pub struct Checkout {
    /// The store.
    pub store: Store,
    /// The payment provider.
    pub provider: Provider,
}

/// What an attempt came to.
enum Outcome {
    /// The order holds its stock; its PaymentIntent is asked for next.
    Held(Box<OrderDetails>),
    /// The key's first request got there first.
    Replayed {
        record: IdempotencyRecord,
        /// This request's cart, as its fingerprint.
        fingerprint: String,
        /// Whether the cart was empty, as the first checkout left it.
        cart_empty: bool,
    },
}

/// One attempt: the cart and the order's inputs read, the order held. The cart and the
/// customer's own items are read strongly consistent: a checkout decides on them, and a replay
/// comes before any refusal. The first attempt reads the variants eventually: in a flash sale
/// every buyer reads the same one, and the transaction checks its price and stock itself (a
/// sold-out answer may miss a unit given back in the last moment; a retry finds it). A retry
/// after a stale read reads them consistently, as one after a price change must; one after a
/// conflict with another buyer's transaction reads as the first did (in a flash sale, every
/// consistent read is a full read unit on the partition all its buyers read).
async fn attempt(
    store: &Store,
    customer: &CustomerId,
    key: Option<&IdempotencyKey>,
    (ask, body): (&CheckoutAsk, &[u8]),
    (first, number): (bool, u32),
) -> Result<Outcome, PlaceOrderError> {
    let read = (variants_read(first), number);
    let (cart, requested, inputs) = store.read_checkout_inputs(customer, key, read).await?;
    let fingerprint = checkout_fingerprint(
        customer,
        &cart
            .iter()
            .map(|stored| (stored.line.sku.clone(), stored.line.quantity))
            .collect::<Vec<_>>(),
    );
    let fingerprint = with_body(&fingerprint, body);
    let counts_held = inputs.counts_held;
    let (variants, kept) = (inputs.products.clone(), inputs.address.clone());
    let checked = inputs.checked(customer, &requested);
    // Variants read eventually: a refusal is read again consistently, but for a sold-out one.
    if first && matches!(&checked, Err(err) if !matches!(err, AppError::OutOfStock(_))) {
        return Err(PlaceOrderError::ReadAgain);
    }
    // A replay before the cart: the first checkout emptied it.
    let (lines, levels) = match checked? {
        Checked::Replay(record) => {
            return Ok(Outcome::Replayed {
                record,
                fingerprint,
                cart_empty: cart.is_empty(),
            });
        }
        Checked::Lines(lines, _) if lines.is_empty() => return Err(AppError::CartEmpty.into()),
        Checked::Lines(lines, levels) => (lines, levels),
    };
    // Boxed: pricing reads several things at once, and its future is deep.
    let quote = match Box::pin(price(store, customer, ask, kept, &variants, &lines)).await {
        // The total the customer saw, priced on a variant read before its last price change.
        Err(AppError::QuoteChanged { .. }) if first => return Err(PlaceOrderError::ReadAgain),
        quote => quote?,
    };
    let held = OrderDetails::hold(
        customer.clone(),
        lines,
        chrono::Utc::now(),
        store.hold().duration(),
    )?
    .charged(&quote.0, quote.1);
    // Refused before anything is held: a total no card payment can be.
    store.currency().chargeable(held.order.total)?;
    let record = IdempotencyRecord {
        fingerprint,
        order_id: held.order.order_id.clone(),
        // What was held; a replay answers the order as it is then, with its PaymentIntent.
        response: serde_json::to_string(&held).map_err(AppError::internal)?,
    };
    store
        .place_order(
            &held,
            key.map(|key| (key, &record)),
            Some(CheckoutParts {
                cart: &cart,
                counts_held,
            }),
            &levels,
        )
        .await?;
    Ok(Outcome::Held(Box::new(held)))
}

/// How an attempt reads the variants ([`attempt`]).
fn variants_read(first: bool) -> InputsRead {
    if first {
        InputsRead::VariantsEventual
    } else {
        InputsRead::Consistent
    }
}

/// The cart's price as a quote would give it, on the lines as read: shipped to the address
/// given, or else to the one on the profile (`kept`); and the address it ships to. A total other
/// than the one the customer saw is a 409.
async fn price(
    store: &Store,
    customer: &CustomerId,
    ask: &CheckoutAsk,
    kept: Option<Address>,
    variants: &HashMap<Sku, Variant>,
    lines: &[LineItem],
) -> Result<(Quote, Option<Address>), AppError> {
    let address = ask.address.clone().or(kept);
    let mut request = ask.request.clone();
    request.place = address
        .as_ref()
        .map(|a| (a.country.clone(), a.region.clone()));
    let read: Vec<(&Variant, u32)> = lines
        .iter()
        .filter_map(|line| variants.get(&line.sku).map(|v| (v, line.quantity)))
        .collect();
    let quote = store.checkout_price(customer, &read, &request).await?;
    if let Some(expected) = ask.expected_total
        && expected != quote.total
    {
        return Err(AppError::QuoteChanged {
            expected,
            now: quote.total,
        });
    }
    Ok((quote, address))
}

/// Checkout's body: none at all, or the JSON of [`CheckoutBody`].
const MAX_BODY_BYTES: usize = 8 * 1024;

pub async fn handle(checkout: &Checkout, req: Request) -> HttpResult {
    let store = &checkout.store;
    let customer = path_param(&req, "customerId", CustomerId::parse)?;
    let key = header_value(&req, "idempotency-key")?
        .map(IdempotencyKey::parse)
        .transpose()?;
    let body = raw_body(&req, MAX_BODY_BYTES)?;
    let ask = if body.is_empty() {
        CheckoutAsk::default()
    } else {
        json_body::<CheckoutBody>(&req, MAX_BODY_BYTES)?.check()?
    };
    let (customer_ref, key_ref, asked) = (&customer, key.as_ref(), (&ask, body));
    // An attempt after a conflict reads as the first did: what it read was not wrong, another
    // buyer's transaction was on the same item at once. Only one after a stale read (a failed
    // condition, a refusal on an eventual read) reads consistently.
    let fresh = AtomicBool::new(true);
    let outcome = retry_when(
        store.transaction_backoff(),
        PlaceOrderError::again,
        |number| {
            let (fresh, first) = (&fresh, fresh.swap(false, Ordering::Relaxed));
            async move {
                let tried = attempt(store, customer_ref, key_ref, asked, (first, number)).await;
                let contended = tried.as_ref().is_err_and(PlaceOrderError::collided);
                fresh.store(contended, Ordering::Relaxed);
                tried
            }
        },
    )
    .await;
    match outcome.map_err(AppError::from)? {
        Outcome::Held(held) => {
            metrics::count(Metric::HoldsMade, 1);
            let mut order = *held;
            let payment = payment_for(checkout, &order.order).await?;
            order.order.payment_intent_id = Some(payment.payment_intent_id.clone());
            let location = format!("/orders/{}", order.order.order_id);
            Ok(created(&location, &CheckedOut { order, payment }))
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
            let response = replay(checkout, &record, caller(&req)?).await?;
            metrics::count(Metric::IdempotentReplays, 1);
            Ok(response)
        }
    }
}

/// The PaymentIntent that pays for `order`: the one it stores, as the provider holds it now,
/// or (the first time, or after the provider failed the first time) one made now, for the
/// amount the store computed, and recorded on the order.
async fn payment_for(checkout: &Checkout, order: &Order) -> Result<PaymentDue, AppError> {
    let (store, provider) = (&checkout.store, &checkout.provider);
    let amount = store.currency().chargeable(order.total)?;
    let intent = match &order.payment_intent_id {
        Some(id) => provider.retrieve_payment_intent(id).await?,
        None => {
            let intent = provider
                .create_payment_intent(
                    &order.order_id,
                    &order.customer_id,
                    amount,
                    store.currency(),
                )
                .await?;
            store
                .record_payment_intent(&order.order_id, &intent.id)
                .await?;
            intent
        }
    };
    if intent.amount != amount || intent.currency != store.currency().as_str() {
        return Err(AppError::internal(format!(
            "PaymentIntent {} is for {} {}, the order for {amount} {}",
            intent.id,
            intent.amount,
            intent.currency,
            store.currency()
        )));
    }
    Ok(PaymentDue {
        payment_intent_id: intent.id,
        client_secret: intent.client_secret,
        amount,
        currency: store.currency().clone(),
    })
}

/// The first checkout's order as it is now, with its PaymentIntent: a retry after the payment
/// sees it PLACED, never the hold it was (which would invite a second payment).
async fn replay(
    checkout: &Checkout,
    record: &IdempotencyRecord,
    caller: &Caller,
) -> Result<lambda_http::Response<lambda_http::Body>, AppError> {
    let Some(mut order) = checkout.store.get_order(&record.order_id, caller).await? else {
        return Err(AppError::internal(format!(
            "the order {} of a replayed checkout is gone",
            record.order_id
        )));
    };
    let payment = payment_for(checkout, &order.order).await?;
    order.order.payment_intent_id = Some(payment.payment_intent_id.clone());
    Ok(replayed_as_now(record, &CheckedOut { order, payment }))
}
