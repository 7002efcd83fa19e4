//! Round four of the money review, each finding as its user saw it: stock given back once per
//! unit whichever of a cancellation, a lines refund and a failed refund comes first; a FAILED
//! refund's lines refundable again; a provider event settling only the refund it is; a ledger
//! that keeps each currency apart; and a refund the provider paid and then failed after all,
//! REVERSED with its money back on the balance.

use local_engine::declared::as_function;
use local_engine::testing::payments::{succeeded, webhook};
use serde_json::{Value, json};
use shared::domain::access::Caller;
use shared::domain::ids::OrderId;
use shared::domain::status::OrderStatus;

use super::faults::{Fault, Proxy};
use super::*;

/// A paid order of `customer`'s: 2 of `sku`. The order, its amount and its PaymentIntent.
pub(super) async fn paid(
    store: &Store,
    customer: &str,
    sku: &str,
    event: &str,
) -> (String, i64, String) {
    let (order, amount, intent) = held(store, customer, &[(sku, 2)]).await;
    pay_at_provider(&intent);
    let placed = succeeded_event(store, event, &intent, amount, &order).await;
    assert_eq!(placed["outcome"], "placed", "{placed}");
    (order, amount, intent)
}

async fn cancel(store: &Store, order: &str) {
    let (status, _, body) = parts(
        dispatch(
            store,
            change_status(Who::Staff, order, "CANCELLED"),
            functions::update_order_status::handle,
        )
        .await,
    );
    assert_eq!(status, 200, "{body}");
}

/// One payer run whose every send the provider refuses (a 400): each refund FAILED.
async fn refused_run(store: &Store, refunds: usize) {
    let proxy = Proxy::start().await;
    for _ in 0..refunds {
        proxy
            .faults
            .lock()
            .expect("lock")
            .push_back(Fault::Status(400));
    }
    let run = as_function(
        "pay-refunds",
        functions::pay_refunds::handle(&proxy.payer(store), BUDGET),
    )
    .await
    .expect("run");
    assert_eq!((run.sent, run.failed), (refunds, refunds), "{run:?}");
}

/// The provider's event `kind` for `refund` (its object as the provider holds it, with the
/// fields given in `with` changed), signed and delivered: its outcome.
pub(super) async fn refund_event(
    store: &Store,
    event: &str,
    kind: &str,
    refund: &Value,
    with: Value,
) -> Value {
    let mut object = refund.clone();
    for (field, value) in with.as_object().expect("fields") {
        object[field] = value.clone();
    }
    let hook = crate::flows::webhook_with(store);
    let body = json!({"id": event, "object": "event", "type": kind, "data": {"object": object}});
    let (code, _, answer) = parts(
        dispatch(
            &hook,
            webhook(&body.to_string()),
            functions::payment_webhook::handle,
        )
        .await,
    );
    assert_eq!(code, 200, "{answer}");
    answer
}

/// `order`'s refund `id` as the store has it while the provider's `made` is under way: PENDING,
/// its provider's refund recorded.
async fn as_if_under_way(store: &Store, order: &str, id: &str, made: &str) {
    let recorded = [("providerRefundId", AttributeValue::S(made.into()))];
    pending_with(store, order, id, &recorded).await;
}

pub(super) fn only_refund(ledger: &Value) -> &Value {
    let refunds = ledger["refunds"].as_array().expect("refunds");
    assert_eq!(refunds.len(), 1, "{ledger}");
    &refunds[0]
}

pub(super) fn lines_refund(sku: &str, quantity: u32, restock: bool) -> String {
    json!({
        "lines": [{"sku": sku, "quantity": quantity}],
        "reason": "returned",
        "restock": restock,
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_whose_refund_failed_then_refunded_by_lines_restocks_once() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let before = app.stock("sku-3").await;
    let (order, amount, _) = paid(store, "c1", "sku-3", "evt_r4_1").await;
    assert_eq!(app.stock("sku-3").await, before - 2);
    cancel(store, &order).await;
    assert_eq!(
        app.stock("sku-3").await,
        before,
        "the cancellation's stock back"
    );
    refused_run(store, 1).await;
    let failed = ledger(store, &order).await;
    assert_eq!(
        (&only_refund(&failed)["status"], &failed["refundable"]),
        (&Value::from("FAILED"), &Value::from(amount)),
        "the cancellation's refund failed, and its amount is back: {failed}"
    );

    let (status, answer) = refund(store, &order, "r4-1", &lines_refund("sku-3", 2, true)).await;
    assert_eq!(status, 202, "the money may still go back: {answer}");
    assert_eq!(
        app.stock("sku-3").await,
        before,
        "the units are in stock once, not twice"
    );
    let run = pay(store).await;
    assert_eq!(run.succeeded, 1, "{run:?}");
    assert_eq!(ledger(store, &order).await["refunded"], amount);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_with_nothing_left_to_refund_still_counts_its_restock() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let before = app.stock("sku-4").await;
    let (order, amount, _) = paid(store, "c2", "sku-4", "evt_r4_2").await;
    let whole = format!(r#"{{"amount":{amount},"reason":"goodwill"}}"#);
    let (status, answer) = refund(store, &order, "r4-2a", &whole).await;
    assert_eq!(status, 202, "{answer}");
    // The whole balance is REQUESTED: the cancellation has nothing to refund.
    cancel(store, &order).await;
    assert_eq!(app.stock("sku-4").await, before);
    refused_run(store, 1).await;
    assert_eq!(ledger(store, &order).await["refundable"], amount);

    let (status, answer) = refund(store, &order, "r4-2b", &lines_refund("sku-4", 2, true)).await;
    assert_eq!(status, 202, "{answer}");
    assert_eq!(
        app.stock("sku-4").await,
        before,
        "never more than was put in"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_read_before_a_lines_restock_puts_nothing_back_twice() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let before = app.stock("sku-5").await;
    let (order, amount, _) = paid(store, "c3", "sku-5", "evt_r4_3").await;
    let whole = format!(r#"{{"amount":{amount},"reason":"goodwill"}}"#);
    assert_eq!(refund(store, &order, "r4-3a", &whole).await.0, 202);
    // A cancellation reads the order while its balance is 0 (nothing to refund)...
    let id = OrderId::parse(&order).expect("id");
    let staff = Caller::new("u-1", ["staff"], [], false);
    let read = store
        .get_order(&id, &staff)
        .await
        .expect("read")
        .expect("the order");
    // ...the whole refund fails, and staff refund the lines with restock...
    refused_run(store, 1).await;
    let (status, answer) = refund(store, &order, "r4-3b", &lines_refund("sku-5", 2, true)).await;
    assert_eq!(status, 202, "{answer}");
    assert_eq!(app.stock("sku-5").await, before);
    // ...then the cancellation, as read, is sent: it must not restock again. The refund took
    // every unit that was to ship, so it cancelled the order itself (nothing was left to ship
    // and nothing had shipped): the stale cancellation finds it CANCELLED.
    let sent = store.change_status(&read, OrderStatus::Cancelled).await;
    assert!(
        matches!(
            sent,
            Err(shared::dynamo::orders::StatusChangeError::Stale {
                now: Some(OrderStatus::Cancelled),
                ..
            }) | Err(shared::dynamo::orders::StatusChangeError::Contended)
        ),
        "{sent:?}"
    );
    assert_eq!(app.status_of(&order).await, "CANCELLED");
    assert_eq!(app.stock("sku-5").await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_lines_refund_gives_its_lines_back_to_be_refunded_again() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, amount, _) = paid(store, "c4", "sku-6", "evt_r4_4").await;
    let (status, answer) = refund(store, &order, "r4-4a", &lines_refund("sku-6", 2, false)).await;
    assert_eq!(status, 202, "{answer}");
    refused_run(store, 1).await;
    assert_eq!(ledger(store, &order).await["refundable"], amount);
    let (status, again) = refund(store, &order, "r4-4b", &lines_refund("sku-6", 2, false)).await;
    assert_eq!(
        status, 202,
        "the failed refund's lines may go back again: {again}"
    );
    let run = pay(store).await;
    assert_eq!(run.succeeded, 1, "{run:?}");
    let (status, past) = refund(store, &order, "r4-4c", &lines_refund("sku-6", 1, false)).await;
    assert_eq!(status, 409, "all of the line went back: {past}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_for_another_providers_refund_settles_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, amount, intent) = paid(store, "c5", "sku-8", "evt_r4_5").await;
    let id = requested(store, &order, "r4-5", r#"{"amount":1500,"reason":"late"}"#).await;
    let ours = made_at_provider(&intent, 1500, &id, &order);
    as_if_under_way(store, &order, &id, ours["id"].as_str().expect("id")).await;
    // Another refund at the provider, carrying the same metadata.
    let other = made_at_provider(&intent, 1500, &id, &order);
    let failed = json!({"status": "failed", "failure_reason": "unknown"});
    let answer = refund_event(store, "evt_r4_5a", "refund.updated", &other, failed).await;
    assert_eq!(answer["outcome"], "ignored", "{answer}");
    // Our own refund's ID, but not what the store sent.
    let smaller = json!({"status": "failed", "amount": 1});
    let answer = refund_event(store, "evt_r4_5b", "refund.updated", &ours, smaller).await;
    assert_eq!(answer["outcome"], "ignored", "{answer}");
    let now = ledger(store, &order).await;
    assert_eq!(
        (
            &only_refund(&now)["status"],
            &only_refund(&now)["providerRefundId"],
            &now["refundable"]
        ),
        (
            &Value::from("PENDING"),
            &ours["id"],
            &Value::from(amount - 1500)
        ),
        "{now}"
    );
    // Its own success is still recorded.
    let answer = refund_event(store, "evt_r4_5c", "refund.updated", &ours, json!({})).await;
    assert_eq!(answer["outcome"], "refund-settled", "{answer}");
    assert_eq!(
        only_refund(&ledger(store, &order).await)["status"],
        "SUCCEEDED"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_for_a_refund_never_sent_settles_nothing_and_it_is_still_paid() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, _, intent) = paid(store, "c6", "sku-4", "evt_r4_6").await;
    let (elsewhere, _, other_intent) = paid(store, "c1", "sku-1", "evt_r4_6b").await;
    let id = requested(store, &order, "r4-6", r#"{"amount":1500,"reason":"late"}"#).await;
    // One cent of another PaymentIntent, carrying the REQUESTED refund's metadata.
    let cent = made_at_provider(&other_intent, 1, &id, &order);
    let answer = refund_event(store, "evt_r4_6c", "refund.updated", &cent, json!({})).await;
    assert_eq!(answer["outcome"], "ignored", "{answer}");
    assert_eq!(
        only_refund(&ledger(store, &order).await)["status"],
        "REQUESTED"
    );
    let run = pay(store).await;
    assert_eq!((run.sent, run.succeeded), (1, 1), "{run:?}");
    let at_provider = refunds_at_provider(&intent);
    assert_eq!(
        at_provider.iter().map(|r| &r["amount"]).collect::<Vec<_>>(),
        [&Value::from(1500)],
        "the customer got the 1500: {at_provider:?}"
    );
    assert_eq!(ledger(store, &elsewhere).await["refunded"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_keeps_each_currency_apart() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, amount, _) = paid(store, "c2", "sku-2", "evt_r4_7").await;
    let hook = crate::flows::webhook_with(store);
    let body = succeeded("evt_r4_7b", "pi_r4_eur", 5000, "eur", &order);
    let (status, _, answer) =
        parts(dispatch(&hook, webhook(&body), functions::payment_webhook::handle).await);
    assert_eq!(
        (status, answer["reason"].as_str()),
        (200, Some("wrong-currency")),
        "{answer}"
    );
    let ledger = ledger(store, &order).await;
    assert_eq!(
        (&ledger["currency"], &ledger["paid"], &ledger["refunded"]),
        (&Value::from("usd"), &Value::from(amount), &Value::from(0)),
        "{ledger}"
    );
    assert_eq!(
        ledger["otherCurrencies"],
        json!([{"currency": "eur", "paid": 5000, "refunded": 5000}]),
        "{ledger}"
    );
    let currencies: Vec<&Value> = ledger["payments"]
        .as_array()
        .expect("payments")
        .iter()
        .map(|p| &p["currency"])
        .collect();
    assert_eq!(currencies, [&Value::from("usd"), &Value::from("eur")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refund_paid_then_failed_after_all_is_reversed_with_its_money_and_lines_back() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, amount, intent) = paid(store, "c3", "sku-7", "evt_r4_8").await;
    let (status, asked) = refund(store, &order, "r4-8a", &lines_refund("sku-7", 1, false)).await;
    assert_eq!(status, 202, "{asked}");
    let run = pay(store).await;
    assert_eq!(run.succeeded, 1, "{run:?}");
    let made = refunds_at_provider(&intent).remove(0);
    let paid_back = ledger(store, &order).await["refunded"]
        .as_i64()
        .expect("refunded");
    assert!(paid_back > 0);

    let late = json!({"status": "failed", "failure_reason": "expired_or_canceled_card"});
    let answer = refund_event(store, "evt_r4_8b", "refund.failed", &made, late.clone()).await;
    assert_eq!(answer["outcome"], "refund-settled", "{answer}");
    let reversed = ledger(store, &order).await;
    let refund_now = only_refund(&reversed);
    assert_eq!(
        (
            &refund_now["status"],
            &refund_now["failure"],
            &reversed["refunded"],
            &reversed["refundable"]
        ),
        (
            &Value::from("REVERSED"),
            &Value::from("expired_or_canceled_card"),
            &Value::from(0),
            &Value::from(amount)
        ),
        "{reversed}"
    );
    // Redelivered, or said again: nothing moves twice.
    let again = refund_event(store, "evt_r4_8c", "refund.updated", &made, late).await;
    assert_eq!(again["outcome"], "ignored", "{again}");
    assert_eq!(ledger(store, &order).await["refundable"], amount);
    // Staff may give the same line back again.
    let (status, again) = refund(store, &order, "r4-8b", &lines_refund("sku-7", 2, false)).await;
    assert_eq!(status, 202, "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_refund_carrying_our_metadata_is_not_taken_for_ours_unless_it_matches() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, _, intent) = paid(store, "c4", "sku-1", "evt_r4_9").await;
    let id = requested(store, &order, "r4-9", r#"{"amount":100,"reason":"late"}"#).await;
    // A send whose answer was lost, and at the provider one cent carrying its metadata.
    made_at_provider(&intent, 1, &id, &order);
    as_if_unanswered(store, &order, &id).await;
    let run = pay(store).await;
    assert_eq!(
        (run.found, run.sent, run.unsettled.len()),
        (0, 0, 1),
        "neither taken for ours nor sent again: {run:?}"
    );
    assert!(run.unsettled[0].reason.contains("is of 1 usd"), "{run:?}");
    assert_eq!(
        only_refund(&ledger(store, &order).await)["status"],
        "PENDING"
    );
    assert_eq!(refunds_at_provider(&intent).len(), 1);
}
