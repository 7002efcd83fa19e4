//! An order taken to the state a test needs through the routes' own handlers, as a customer,
//! staff and the payment provider (the test binary's localstripe) would take it: held at
//! checkout, paid, shipped, delivered, a return approved, refunds paid; and read back as staff
//! read it. Every module reaches its state through these rather than a copy of its own.

use std::time::Duration;

use local_engine::declared::as_function;
use local_engine::testing::payments::{checkout, hold_line, pay_at_provider, succeeded, webhook};
use local_engine::testing::returns::{request, set};
use local_engine::testing::{
    Who, dispatch, get, parts, provider, ship, update_fulfilment, webhook_secrets,
};
use serde_json::Value;
use shared::Store;

/// The lines of an order: a SKU and how many.
pub(crate) type Lines<'a> = &'a [(&'a str, u32)];

/// Half off the lines of the kitchen category (the sample mug, sku-1, is in it; the candles,
/// sku-3, are not), with the code `KITCHEN`.
pub(crate) const KITCHEN_HALF: &str = r#"{"code": "KITCHEN", "type": "percentage", "value": "50", "conditions": {"categories": ["kitchen"]}}"#;

/// `PUT /promotions/{id}` with `body`, from staff: a new promotion.
pub(crate) async fn put_promotion(store: &Store, id: &str, body: &str) {
    let req = local_engine::testing::catalog::put_promotion(id, body);
    let (status, _, answer) = parts(dispatch(store, req, functions::put_promotion::handle).await);
    assert_eq!(status, 201, "{answer}");
}

/// Checkout's handler with the test binary's provider.
pub(crate) fn checkout_with(store: &Store) -> functions::checkout::Checkout {
    functions::checkout::Checkout {
        store: store.clone(),
        provider: provider(),
    }
}

/// The webhook's handler with the tests' endpoint secret.
pub(crate) fn webhook_with(store: &Store) -> functions::payment_webhook::Webhook {
    functions::payment_webhook::Webhook {
        store: store.clone(),
        secrets: webhook_secrets(),
    }
}

/// The refunds payer with the test binary's provider.
pub(crate) fn payer(store: &Store) -> functions::pay_refunds::Payer {
    functions::pay_refunds::Payer {
        store: store.clone(),
        provider: provider(),
    }
}

/// `customer` puts `lines` in their cart and checks out: the held order, its amount in cents
/// and its PaymentIntent.
pub(crate) async fn held(store: &Store, customer: &str, lines: Lines<'_>) -> (String, i64, String) {
    for (sku, quantity) in lines {
        let req = hold_line(customer, sku, *quantity);
        let (status, _, body) = parts(dispatch(store, req, functions::edit_cart::handle).await);
        assert_eq!(status, 200, "{body}");
    }
    let with = checkout_with(store);
    let (status, _, body) =
        parts(dispatch(&with, checkout(customer, None), functions::checkout::handle).await);
    assert_eq!(status, 201, "{body}");
    local_engine::testing::payments::held(&body)
}

/// A signed event of the provider's (`body`), delivered to the webhook: its answer (a 200).
pub(crate) async fn provider_event(store: &Store, body: &str) -> Value {
    let with = webhook_with(store);
    let (status, _, answer) =
        parts(dispatch(&with, webhook(body), functions::payment_webhook::handle).await);
    assert_eq!(status, 200, "{answer}");
    answer
}

/// The provider's `payment_intent.succeeded` (`event`) for `order`, delivered to the webhook:
/// its answer (a 200).
pub(crate) async fn succeeded_event(
    store: &Store,
    event: &str,
    intent: &str,
    amount: i64,
    order: &str,
) -> Value {
    provider_event(store, &succeeded(event, intent, amount, "usd", order)).await
}

/// [`held`], then paid at the provider, whose event places the order: the order, its amount
/// and its PaymentIntent.
pub(crate) async fn paid(store: &Store, customer: &str, lines: Lines<'_>) -> (String, i64, String) {
    let (order, amount, intent) = held(store, customer, lines).await;
    pay_at_provider(&intent);
    let answer = succeeded_event(store, &format!("evt_{order}"), &intent, amount, &order).await;
    assert_eq!(answer["outcome"], "placed", "{answer}");
    (order, amount, intent)
}

/// Staff ship `lines` of `order` in one fulfilment: its status and answer.
pub(crate) async fn ship_lines(store: &Store, order: &str, lines: Lines<'_>) -> (u16, Value) {
    let req = ship(Who::Staff, order, lines, "");
    let (status, _, body) = parts(dispatch(store, req, functions::ship_order::handle).await);
    (status, body)
}

/// Staff mark `fulfilment` of `order` delivered: the fulfilment as answered.
pub(crate) async fn deliver(store: &Store, order: &str, fulfilment: &str) -> Value {
    let req = update_fulfilment(Who::Staff, order, fulfilment, r#"{"status":"DELIVERED"}"#);
    let (status, _, body) = parts(dispatch(store, req, functions::update_fulfilment::handle).await);
    assert_eq!(status, 200, "{body}");
    body
}

/// [`paid`], then shipped whole in one fulfilment and delivered now: the order's ID.
pub(crate) async fn delivered(store: &Store, customer: &str, lines: Lines<'_>) -> String {
    let (order, ..) = paid(store, customer, lines).await;
    let (status, shipped) = ship_lines(store, &order, lines).await;
    assert_eq!(status, 201, "{shipped}");
    deliver(store, &order, shipped["fulfilmentId"].as_str().expect("id")).await;
    order
}

/// `customer` asks to return `lines` of `order`, and staff approve it: the return's ID.
pub(crate) async fn approved_return(
    store: &Store,
    customer: &str,
    order: &str,
    lines: Lines<'_>,
) -> String {
    let req = request(Who::Customer(customer), order, "", lines);
    let (status, _, asked) = parts(dispatch(store, req, functions::request_return::handle).await);
    assert_eq!(status, 201, "{asked}");
    let id = asked["returnId"].as_str().expect("id").to_owned();
    let req = set(Who::Staff, order, &id, "APPROVED");
    let (status, _, body) = parts(dispatch(store, req, functions::update_return::handle).await);
    assert_eq!(status, 200, "{body}");
    id
}

async fn read_as_staff(store: &Store, route: &str, path: &str) -> Value {
    let req = get(Who::Staff, route, path, "");
    let (status, _, body) = parts(dispatch(store, req, functions::get_order::handle).await);
    assert_eq!(status, 200, "{body}");
    body
}

/// `order` as staff read it (`GET /orders/{orderId}`).
pub(crate) async fn order_of(store: &Store, order: &str) -> Value {
    read_as_staff(store, "GET /orders/{orderId}", &format!("/orders/{order}")).await
}

/// `order`'s ledger as staff read it (`GET /orders/{orderId}/payments`).
pub(crate) async fn ledger(store: &Store, order: &str) -> Value {
    read_as_staff(
        store,
        "GET /orders/{orderId}/payments",
        &format!("/orders/{order}/payments"),
    )
    .await
}

/// One run of the refunds payer, as its schedule starts it.
pub(crate) async fn pay_refunds(store: &Store) -> functions::pay_refunds::Run {
    as_function(
        "pay-refunds",
        functions::pay_refunds::handle(&payer(store), Duration::from_secs(5)),
    )
    .await
    .expect("the payer's run")
}

/// One run of the holds' expiry, as its schedule starts it.
pub(crate) async fn expire_holds(store: &Store) -> functions::expire_holds::Run {
    let expiry = functions::expire_holds::Expiry {
        store: store.clone(),
        provider: provider(),
    };
    as_function(
        "expire-holds",
        functions::expire_holds::handle(&expiry, Duration::from_secs(5)),
    )
    .await
    .expect("the expiry's run")
}
