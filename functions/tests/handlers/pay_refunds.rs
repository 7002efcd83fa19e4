//! Refunds paid at a provider the store did not write (localstripe, one per test binary): a
//! paid order's staff refunds (two lines with restock, one more line, then one over the
//! balance), a paid order cancelled, a payment that came too late; each refund once at the
//! provider, and the order's ledger to the cent.

mod faults;
mod round_five;
mod round_four;

use crate::flows::{held, ledger, pay_refunds as pay, payer, succeeded_event};
use local_engine::declared::as_function;
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::provider::{LOCAL_API_KEY, form_post};
use local_engine::testing::dispatch;
use local_engine::testing::payments::{briefly_held, pay_at_provider, webhook};
use local_engine::testing::{TestApp, Who, change_status, get, parts, send_json, webhook_secrets};
use serde_json::Value;
use shared::Store;

const BUDGET: Duration = Duration::from_secs(5);

/// `intent`'s refunds as the provider holds them.
fn refunds_at_provider(intent: &str) -> Vec<Value> {
    local_engine::testing::at_provider(&format!("/v1/refunds?payment_intent={intent}"))["data"]
        .as_array()
        .expect("a list")
        .clone()
}

async fn refund(store: &Store, order: &str, key: &str, body: &str) -> (u16, Value) {
    let req = send_json(
        Who::Staff,
        "POST /orders/{orderId}/refunds",
        &format!("/orders/{order}/refunds"),
        &[("idempotency-key", key)],
        body,
    );
    let (status, _, answer) = parts(dispatch(store, req, functions::refund_order::handle).await);
    (status, answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_refunds_are_paid_once_each_and_the_ledger_adds_up_to_the_cent() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (before_1, before_2) = (app.stock("sku-1").await, app.stock("sku-2").await);
    let (order, amount, intent) = held(store, "c1", &[("sku-1", 3), ("sku-2", 1)]).await;
    pay_at_provider(&intent);
    let placed = succeeded_event(store, "evt_staff_1", &intent, amount, &order).await;
    assert_eq!(placed["outcome"], "placed", "{placed}");

    // Two lines with restock, then one more line.
    let two = r#"{"lines":[{"sku":"sku-1","quantity":2},{"sku":"sku-2","quantity":1}],"reason":"arrived damaged","restock":true}"#;
    let (status, first) = refund(store, &order, "refund-1", two).await;
    assert_eq!(status, 202, "{first}");
    assert_eq!(first["status"], "REQUESTED");
    let (status, again) = refund(store, &order, "refund-1", two).await;
    assert_eq!(
        (status, &again["refundId"]),
        (202, &first["refundId"]),
        "a retry is the same refund"
    );
    let (status, reused) = refund(store, &order, "refund-1", r#"{"amount":1,"reason":"x"}"#).await;
    assert_eq!(status, 422, "{reused}");
    let one = r#"{"lines":[{"sku":"sku-1","quantity":1}],"reason":"lost in transit"}"#;
    let (status, second) = refund(store, &order, "refund-2", one).await;
    assert_eq!(status, 202, "{second}");
    // Over the balance: nothing may go back now.
    let (status, over) = refund(
        store,
        &order,
        "refund-3",
        r#"{"amount":1,"reason":"goodwill"}"#,
    )
    .await;
    assert_eq!(
        (status, over["type"].as_str()),
        (409, Some("/problems/refund-refused")),
        "{over}"
    );
    let (status, past) = refund(store, &order, "refund-4", one).await;
    assert_eq!(status, 409, "{past}");
    assert_eq!(
        app.stock("sku-1").await,
        before_1 - 1,
        "two of three back in stock"
    );
    assert_eq!(app.stock("sku-2").await, before_2);

    let run = pay(store).await;
    assert_eq!((run.sent, run.succeeded, run.failed), (2, 2, 0), "{run:?}");
    let again = pay(store).await;
    assert_eq!(again.sent + again.found, 0, "nothing sent twice: {again:?}");

    let at_provider = refunds_at_provider(&intent);
    let sent: i64 = at_provider
        .iter()
        .map(|r| r["amount"].as_i64().expect("amount"))
        .sum();
    assert_eq!((at_provider.len(), sent), (2, amount), "{at_provider:?}");
    let ledger = ledger(store, &order).await;
    assert_eq!(
        (&ledger["paid"], &ledger["refunded"], &ledger["refundable"]),
        (&Value::from(amount), &Value::from(amount), &Value::from(0)),
        "{ledger}"
    );
    for refund in ledger["refunds"].as_array().expect("refunds") {
        assert_eq!(refund["status"], "SUCCEEDED", "{refund}");
        let id = refund["providerRefundId"]
            .as_str()
            .expect("the provider's ID");
        assert!(
            at_provider.iter().any(|r| r["id"] == id),
            "{id} at the provider"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paid_order_cancelled_is_refunded_whole_and_an_unpaid_one_has_nothing_to_refund() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, amount, intent) = held(store, "c2", &[("sku-3", 2)]).await;
    pay_at_provider(&intent);
    succeeded_event(store, "evt_cancel_1", &intent, amount, &order).await;
    let (status, _, body) = parts(
        dispatch(
            store,
            change_status(Who::Customer("c2"), &order, "CANCELLED"),
            functions::update_order_status::handle,
        )
        .await,
    );
    assert_eq!(status, 200, "{body}");
    let ledger_now = ledger(store, &order).await;
    assert_eq!(
        ledger_now["refunds"][0]["kind"], "cancellation",
        "{ledger_now}"
    );
    assert_eq!(ledger_now["refunds"][0]["amount"], amount, "{ledger_now}");
    assert_eq!(ledger_now["refundable"], 0, "{ledger_now}");
    let run = pay(store).await;
    assert_eq!(run.succeeded, 1, "{run:?}");
    let at_provider = refunds_at_provider(&intent);
    assert_eq!(at_provider.len(), 1, "{at_provider:?}");
    assert_eq!(at_provider[0]["amount"], amount);
    assert_eq!(
        ledger(store, &order).await["refunds"][0]["status"],
        "SUCCEEDED"
    );

    // o100 was placed without payment: its cancellation refunds nothing.
    let (status, _, body) = parts(
        dispatch(
            store,
            change_status(Who::Staff, "o100", "CANCELLED"),
            functions::update_order_status::handle,
        )
        .await,
    );
    assert_eq!(status, 200, "{body}");
    let unpaid = ledger(store, "o100").await;
    assert_eq!(
        (&unpaid["paid"], unpaid["refunds"].as_array().map(Vec::len)),
        (&Value::from(0), Some(0)),
        "{unpaid}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payment_that_came_after_its_hold_ended_is_refunded_at_the_provider() {
    let app = TestApp::seeded().await.expect("app");
    let store = briefly_held(&app.store);
    let (order, amount, intent) = held(&store, "c3", &[("sku-4", 1)]).await;
    // Paid at the provider, but the provider's event arrives after the hold ended.
    pay_at_provider(&intent);
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let run = crate::flows::expire_holds(&store).await;
    assert_eq!(run.holds.expired, 1, "{run:?}");
    let late = succeeded_event(&store, "evt_late_1", &intent, amount, &order).await;
    assert_eq!(
        (late["outcome"].as_str(), late["reason"].as_str()),
        (Some("refund-due"), Some("hold-ended")),
        "{late}"
    );
    let run = pay(&store).await;
    assert_eq!(run.succeeded, 1, "{run:?}");
    let at_provider = refunds_at_provider(&intent);
    assert_eq!(at_provider.len(), 1, "{at_provider:?}");
    let ledger = ledger(&store, &order).await;
    assert_eq!(ledger["payments"][0]["status"], "returned", "{ledger}");
    assert_eq!(ledger["refunds"][0]["status"], "SUCCEEDED", "{ledger}");
    assert_eq!(
        (&ledger["paid"], &ledger["refunded"]),
        (&Value::from(amount), &Value::from(amount)),
        "{ledger}"
    );
}

/// The refunds staff's work list shows in `status`.
async fn refunds_listed(store: &Store, status: &str) -> Vec<Value> {
    let req = get(
        Who::Staff,
        "GET /payments/refunds",
        "/payments/refunds",
        &format!("status={status}"),
    );
    let (code, _, body) = parts(dispatch(store, req, functions::list_refunds::handle).await);
    assert_eq!(code, 200, "{body}");
    body["items"].as_array().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payment_naming_no_order_is_refunded_once_and_reversed_when_the_provider_says_so() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    // A PaymentIntent the store never made, paid, whose metadata names no order of the store.
    let base = local_engine::testing::provider().base().to_owned();
    let (status, made) = form_post(
        &base,
        "/v1/payment_intents",
        Some(LOCAL_API_KEY),
        &[
            ("amount", "1500"),
            ("currency", "usd"),
            ("metadata[orderId]", "o-nowhere"),
        ],
    )
    .expect("provider");
    assert_eq!(status, 200, "{made}");
    let intent = made["id"].as_str().expect("id").to_owned();
    pay_at_provider(&intent);
    let due = succeeded_event(store, "evt_nowhere", &intent, 1500, "o-nowhere").await;
    assert_eq!(due["outcome"], "refund-due", "{due}");
    let run = pay(store).await;
    assert_eq!((run.sent, run.succeeded), (1, 1), "{run:?}");
    assert_eq!(pay(store).await.sent, 0, "paid once");
    let at_provider = refunds_at_provider(&intent);
    assert_eq!(at_provider.len(), 1, "{at_provider:?}");
    assert_eq!(at_provider[0]["amount"], 1500, "{at_provider:?}");
    let succeeded = refunds_listed(store, "SUCCEEDED").await;
    assert_eq!(succeeded.len(), 1, "{succeeded:?}");
    // The provider then reports the refund failed after all.
    let reversed = refund_updated(store, "evt_nowhere_failed", &at_provider[0], "failed").await;
    assert_eq!(reversed["outcome"], "refund-settled", "{reversed}");
    let listed = refunds_listed(store, "REVERSED").await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        (&listed[0]["paymentId"], &listed[0]["amount"]),
        (&Value::from(intent.as_str()), &Value::from(1500)),
        "{listed:?}"
    );
    assert!(refunds_listed(store, "SUCCEEDED").await.is_empty());
}

/// `order`'s refund `refund` set PENDING (on GSI1 too), with `more` attributes, as a send
/// leaves it.
async fn pending_with(store: &Store, order: &str, refund: &str, more: &[(&str, AttributeValue)]) {
    use aws_sdk_dynamodb::types::AttributeValue::S;
    let mut update = store
        .client()
        .update_item()
        .table_name(store.table())
        .key("PK", S(format!("ORDER#{order}")))
        .key("SK", S(format!("REFUND#{refund}")))
        .expression_attribute_names("#s", "status")
        .expression_attribute_values(":p", S("PENDING".into()))
        .expression_attribute_values(":g", S("REFUNDS#PENDING".into()));
    let mut expression = "SET #s = :p, GSI1PK = :g".to_owned();
    for (n, (name, value)) in more.iter().enumerate() {
        expression.push_str(&format!(", {name} = :v{n}"));
        update = update.expression_attribute_values(format!(":v{n}"), value.clone());
    }
    update
        .update_expression(expression)
        .send()
        .await
        .expect("update");
}

/// `order`'s refund `refund` as a send whose answer was lost leaves it: PENDING, claimed long
/// ago, with no provider refund.
async fn as_if_unanswered(store: &Store, order: &str, refund: &str) {
    use aws_sdk_dynamodb::types::AttributeValue::{N, S};
    let claimed = [
        ("attempts", N("1".into())),
        ("sentAt", S("2026-01-01T00:00:00Z".into())),
    ];
    pending_with(store, order, refund, &claimed).await;
}

/// Staff's refund of `order` under `key` (`body`), recorded: its ID.
async fn requested(store: &Store, order: &str, key: &str, body: &str) -> String {
    let (status, asked) = refund(store, order, key, body).await;
    assert_eq!(status, 202, "{asked}");
    asked["refundId"].as_str().expect("id").to_owned()
}

/// A refund made at the provider by hand, of `intent`, carrying the metadata of the store's
/// refund `id` of `order`: the provider's refund.
fn made_at_provider(intent: &str, amount: i64, id: &str, order: &str) -> Value {
    let base = local_engine::testing::provider().base().to_owned();
    let amount = amount.to_string();
    let (status, made) = form_post(
        &base,
        "/v1/refunds",
        Some(LOCAL_API_KEY),
        &[
            ("payment_intent", intent),
            ("amount", amount.as_str()),
            ("metadata[refundId]", id),
            ("metadata[orderId]", order),
            ("metadata[paymentId]", intent),
        ],
    )
    .expect("provider");
    assert_eq!(status, 200, "{made}");
    made
}

/// A paid order of `customer`'s (`sku`) and staff's refund of 100 cents of it (under `key`),
/// sent, made at the provider, and its answer lost: the store has it PENDING. The order, its
/// amount, its PaymentIntent, the refund's ID and the provider's refund.
async fn unanswered_refund(
    store: &Store,
    (customer, sku): (&str, &str),
    key: &str,
) -> (String, i64, String, String, Value) {
    let (order, amount, intent) = held(store, customer, &[(sku, 2)]).await;
    pay_at_provider(&intent);
    succeeded_event(store, &format!("evt_{key}"), &intent, amount, &order).await;
    let id = requested(
        store,
        &order,
        key,
        r#"{"amount":100,"reason":"late delivery"}"#,
    )
    .await;
    let made = made_at_provider(&intent, 100, &id, &order);
    as_if_unanswered(store, &order, &id).await;
    (order, amount, intent, id, made)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_lost_on_the_way_back_is_looked_for_and_never_refunded_twice() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, amount, intent, _, _) = unanswered_refund(store, ("c4", "sku-5"), "lost").await;
    let run = pay(store).await;
    assert_eq!((run.found, run.sent, run.succeeded), (1, 0, 1), "{run:?}");
    assert_eq!(
        refunds_at_provider(&intent).len(),
        1,
        "found, not sent again"
    );

    // The provider down: the refund is claimed, unanswered, and reported; once it is back, the
    // next run looks, finds nothing, and sends it once.
    let (status, made) = refund(
        store,
        &order,
        "lost-2",
        r#"{"amount":50,"reason":"late delivery"}"#,
    )
    .await;
    assert_eq!(status, 202, "{made}");
    let down = functions::pay_refunds::Payer {
        store: store.clone(),
        provider: payment_provider::Provider::new("http://127.0.0.1:9", LOCAL_API_KEY),
    };
    let run = as_function("pay-refunds", functions::pay_refunds::handle(&down, BUDGET))
        .await
        .expect("run");
    assert_eq!((run.sent, run.unsettled.len()), (0, 1), "{run:?}");
    let id = made["refundId"].as_str().expect("id").to_owned();
    as_if_unanswered(store, &order, &id).await;
    let run = pay(store).await;
    assert_eq!((run.found, run.sent, run.succeeded), (0, 1, 1), "{run:?}");
    let at_provider = refunds_at_provider(&intent);
    let sent: i64 = at_provider
        .iter()
        .map(|r| r["amount"].as_i64().expect("amount"))
        .sum();
    assert_eq!((at_provider.len(), sent), (2, 150), "{at_provider:?}");
    let ledger = ledger(store, &order).await;
    assert_eq!(
        (&ledger["refunded"], &ledger["refundable"]),
        (&Value::from(150), &Value::from(amount - 150)),
        "{ledger}"
    );
}

/// The sum of the amounts of `order`'s refunds that have not FAILED, as its ledger lists them.
fn refunds_sum(ledger: &Value) -> i64 {
    ledger["refunds"]
        .as_array()
        .expect("refunds")
        .iter()
        .filter(|r| r["status"] != "FAILED")
        .map(|r| r["amount"].as_i64().expect("amount"))
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_refunds_of_the_last_balance_at_once_refund_it_once() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, amount, intent) = held(store, "c5", &[("sku-6", 1)]).await;
    pay_at_provider(&intent);
    succeeded_event(store, "evt_race_1", &intent, amount, &order).await;
    let body = format!(r#"{{"amount":{amount},"reason":"duplicate charge"}}"#);
    let (first, second) = tokio::join!(
        refund(store, &order, "race-a", &body),
        refund(store, &order, "race-b", &body)
    );
    let mut statuses = [first.0, second.0];
    statuses.sort_unstable();
    assert_eq!(statuses, [202, 409], "{first:?} {second:?}");
    let run = pay(store).await;
    assert_eq!(run.succeeded, 1, "{run:?}");
    assert_eq!(refunds_at_provider(&intent).len(), 1);
    let ledger = ledger(store, &order).await;
    assert_eq!(
        (refunds_sum(&ledger), &ledger["refundable"]),
        (amount, &Value::from(0)),
        "{ledger}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_refund_racing_a_cancellation_never_goes_past_what_was_paid() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, amount, intent) = held(store, "c6", &[("sku-7", 2)]).await;
    pay_at_provider(&intent);
    succeeded_event(store, "evt_race_2", &intent, amount, &order).await;
    let half = format!(r#"{{"amount":{},"reason":"goodwill"}}"#, amount / 2);
    let cancel = async {
        parts(
            dispatch(
                store,
                change_status(Who::Staff, &order, "CANCELLED"),
                functions::update_order_status::handle,
            )
            .await,
        )
    };
    let ((refunded, answer), (cancelled, _, body)) =
        tokio::join!(refund(store, &order, "race-c", &half), cancel);
    assert_eq!(cancelled, 200, "{body}");
    // Refund first: half, then the cancellation the rest. Cancellation first: all, and the
    // refund refused.
    assert!([202, 409].contains(&refunded), "{answer}");
    let run = pay(store).await;
    assert_eq!(run.failed, 0, "{run:?}");
    let at_provider = refunds_at_provider(&intent);
    let sent: i64 = at_provider
        .iter()
        .map(|r| r["amount"].as_i64().expect("amount"))
        .sum();
    assert_eq!(sent, amount, "{at_provider:?}");
    assert_eq!(at_provider.len(), if refunded == 202 { 2 } else { 1 });
    let ledger = ledger(store, &order).await;
    assert_eq!(refunds_sum(&ledger), amount, "{ledger}");
}

/// The provider's `refund.updated` for its refund `made`, with `status`, delivered: its outcome.
async fn refund_updated(store: &Store, event: &str, made: &Value, status: &str) -> Value {
    let hook = functions::payment_webhook::Webhook {
        store: store.clone(),
        secrets: webhook_secrets(),
    };
    let body = serde_json::json!({
        "id": event,
        "object": "event",
        "type": "refund.updated",
        "data": {"object": {
            "id": made["id"], "object": "refund", "amount": made["amount"],
            "currency": made["currency"], "payment_intent": made["payment_intent"],
            "status": status, "metadata": made["metadata"],
        }},
    })
    .to_string();
    let (code, _, answer) =
        parts(dispatch(&hook, webhook(&body), functions::payment_webhook::handle).await);
    assert_eq!(code, 200, "{answer}");
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_providers_event_racing_the_payers_own_look_settles_the_refund_once_and_only_forward() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, _, intent, _, made) = unanswered_refund(store, ("c1", "sku-8"), "race-d").await;
    let racing = payer(store);
    let (run, event) = tokio::join!(
        as_function(
            "pay-refunds",
            functions::pay_refunds::handle(&racing, BUDGET)
        ),
        refund_updated(store, "evt_refund_1", &made, "succeeded")
    );
    let run = run.expect("run");
    // Whichever came second found it settled and changed nothing.
    assert_eq!(run.sent, 0, "{run:?}");
    assert!(
        run.found + usize::from(event["outcome"] == "refund-settled") >= 1,
        "{run:?} {event}"
    );
    assert_eq!(refunds_at_provider(&intent).len(), 1, "never sent again");
    // A late event saying less changes nothing: only forward.
    let stale = refund_updated(store, "evt_refund_2", &made, "pending").await;
    assert_eq!(stale["outcome"], "ignored", "{stale}");
    let ledger = ledger(store, &order).await;
    let refund = &ledger["refunds"][0];
    assert_eq!(
        (&refund["status"], &refund["providerRefundId"]),
        (&Value::from("SUCCEEDED"), &made["id"]),
        "{ledger}"
    );
}

/// One bad page never stops the payer: DynamoDB refusing the page of REQUESTED refunds
/// (through every retry) is reported by its GSI1 partition, and the PENDING ones are still
/// looked at and settled. Before, the whole run ended with an error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_dynamodb_refuses_is_reported_and_the_other_refunds_are_still_paid() {
    use local_engine::faults::Fault;
    let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
    let store = &app.store;
    let (_, _, intent, _, _) = unanswered_refund(store, ("c5", "sku-6"), "refused").await;
    // Every attempt at the first Query (REQUESTED) fails: the SDK makes 4.
    faults.inject("Query", Fault::InternalServerError, 4);
    let run = as_function(
        "pay-refunds",
        functions::pay_refunds::handle(&payer(store), BUDGET),
    )
    .await
    .expect("the run goes on");
    assert_eq!(
        run.unsettled
            .iter()
            .map(|u| u.key.as_str())
            .collect::<Vec<_>>(),
        ["GSI1 REFUNDS#REQUESTED"],
        "{run:?}"
    );
    assert_eq!((run.found, run.succeeded), (1, 1), "{run:?}");
    assert_eq!(refunds_at_provider(&intent).len(), 1);
}
