//! The payment webhook through API Gateway events, against its own engine: only a fresh
//! signature under the endpoint secret is heard; a payment of a live hold's exact amount
//! places it once; every other signed payment is recorded for refund and places nothing.

use std::time::Duration;

use functions::payment_webhook::Webhook;
use local_engine::testing::dispatch;
use local_engine::testing::payments::{
    briefly_held, checkout, now, succeeded, webhook, webhook_with,
};
use local_engine::testing::{
    TEST_WEBHOOK_SECRET, TestApp, from_event_file, parts, webhook_secrets,
};
use serde_json::Value;
use shared::http::signature::{WebhookSecrets, sign};

fn hooked(app: &TestApp) -> Webhook {
    Webhook {
        store: app.store.clone(),
        secrets: webhook_secrets(),
    }
}

async fn post(webhook: &Webhook, req: lambda_http::Request) -> (u16, Value) {
    let (status, _, body) = parts(dispatch(webhook, req, functions::payment_webhook::handle).await);
    (status, body)
}

/// c2's sample cart checked out: the order's ID, its amount in cents and its PaymentIntent.
async fn held(app: &TestApp) -> (String, i64, String) {
    let (status, _, body) = parts(
        dispatch(
            &crate::flows::checkout_with(&app.store),
            checkout("c2", None),
            functions::checkout::handle,
        )
        .await,
    );
    assert_eq!(status, 201, "{body}");
    local_engine::testing::payments::held(&body)
}

/// `GET /orders/{order}` as staff see it.
async fn order_as_staff_see_it(app: &TestApp, order: &str) -> Value {
    let req = local_engine::testing::get(
        local_engine::testing::Who::Staff,
        "GET /orders/{orderId}",
        &format!("/orders/{order}"),
        "",
    );
    parts(dispatch(&app.store, req, functions::get_order::handle).await).2
}

async fn refunds(app: &TestApp) -> Vec<Value> {
    let req = local_engine::testing::get(
        local_engine::testing::Who::Staff,
        "GET /payments/refunds",
        "/payments/refunds",
        "",
    );
    let (status, _, body) = parts(dispatch(&app.store, req, functions::list_refunds::handle).await);
    assert_eq!(status, 200, "{body}");
    body["items"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_fresh_signed_payment_of_the_exact_amount_places_the_hold_once() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let (order, amount, intent) = held(&app).await;
    let body = succeeded("evt_ok", &intent, amount, "usd", &order);
    let (status, answer) = post(&hook, webhook(&body)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["outcome"], "placed");
    assert_eq!(app.status_of(&order).await, "PLACED");
    // The provider delivers it again: 200, and nothing changes.
    let (status, answer) = post(&hook, webhook(&body)).await;
    assert_eq!(
        (status, answer["outcome"].as_str()),
        (200, Some("replayed"))
    );
    assert!(refunds(&app).await.is_empty());
    // Another type of event: acknowledged, ignored.
    let other = r#"{"id":"evt_other","type":"charge.refunded","data":{"object":{"id":"ch_1"}}}"#;
    let (status, answer) = post(&hook, webhook(other)).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("ignored")));
}

#[tokio::test]
async fn unsigned_forged_stale_or_wrongly_keyed_calls_are_400s_and_change_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let (order, amount, intent) = held(&app).await;
    let body = succeeded("evt_1", &intent, amount, "usd", &order);
    let t = now();
    let good = sign(TEST_WEBHOOK_SECRET, t, body.as_bytes());
    let forged = format!("t={t},v1={}", "0".repeat(64));
    let stale = sign(TEST_WEBHOOK_SECRET, t - 301, body.as_bytes());
    let wrong_secret = sign("whsec_someone_else", t, body.as_bytes());
    let other_body = sign(TEST_WEBHOOK_SECRET, t, b"{}");
    for (what, signature) in [
        ("forged", forged.as_str()),
        ("301 s old", stale.as_str()),
        ("another secret", wrong_secret.as_str()),
        ("another body's", other_body.as_str()),
        ("malformed", "v1=abc"),
    ] {
        let (status, answer) = post(&hook, webhook_with(&body, signature)).await;
        assert_eq!(status, 400, "{what}: {answer}");
        assert_eq!(answer["type"], "/problems/invalid-request", "{what}");
    }
    let unsigned = local_engine::testing::call(
        local_engine::testing::Who::Nobody,
        "POST /payments/webhook",
        "/payments/webhook",
        "",
        &[("content-type", "application/json")],
        body.as_bytes(),
    );
    assert_eq!(post(&hook, unsigned).await.0, 400);
    assert_eq!(app.status_of(&order).await, "PENDING_PAYMENT");
    assert!(refunds(&app).await.is_empty());
    // The good one still applies: none of the refused ones recorded the event.
    let (status, answer) = post(&hook, webhook_with(&body, &good)).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("placed")));
}

#[tokio::test]
async fn a_rolled_secret_admits_either_signature_while_both_are_held() {
    let app = TestApp::seeded().await.expect("app");
    let (order, amount, intent) = held(&app).await;
    let body = succeeded("evt_roll", &intent, amount, "usd", &order);
    let t = now();
    // The provider signs with the old and the new secret at once (two v1).
    let old = sign(TEST_WEBHOOK_SECRET, t, body.as_bytes());
    let new = sign("whsec_new", t, body.as_bytes());
    let both = format!("{new},v1={}", old.split("v1=").nth(1).expect("v1"));
    let only_new = Webhook {
        store: app.store.clone(),
        secrets: WebhookSecrets::parse("whsec_new").expect("secret"),
    };
    let (status, answer) = post(&only_new, webhook_with(&body, &both)).await;
    assert_eq!(
        (status, answer["outcome"].as_str()),
        (200, Some("placed")),
        "{answer}"
    );
}

#[tokio::test]
async fn payments_that_match_no_hold_are_recorded_for_refund_and_place_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let (order, amount, intent) = held(&app).await;
    for (event, payment, amount, currency, order_id, reason) in [
        (
            "evt_amount",
            "pi_short",
            amount - 1,
            "usd",
            order.as_str(),
            "wrong-amount",
        ),
        (
            "evt_currency",
            "pi_euros",
            amount,
            "eur",
            order.as_str(),
            "wrong-currency",
        ),
        (
            "evt_unknown",
            "pi_unknown",
            amount,
            "usd",
            "o-nope",
            "unknown-order",
        ),
        // The order's own amount, naming the order, but not the PaymentIntent the store made.
        (
            "evt_other_intent",
            "pi_not_the_orders",
            amount,
            "usd",
            order.as_str(),
            "unknown-payment",
        ),
    ] {
        let (status, answer) = post(
            &hook,
            webhook(&succeeded(event, payment, amount, currency, order_id)),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["outcome"], "refund-due");
        assert_eq!(answer["reason"], reason);
    }
    assert_eq!(app.status_of(&order).await, "PENDING_PAYMENT");
    let recorded = refunds(&app).await;
    assert_eq!(recorded.len(), 4, "{recorded:?}");
    assert!(
        recorded
            .iter()
            .any(|r| r["paymentId"] == "pi_short" && r["amount"] == amount - 1)
    );
    // The same payment reported again under another event: its refund is due once, as first
    // recorded, never overwritten or moved in the list.
    let (status, answer) = post(
        &hook,
        webhook(&succeeded(
            "evt_again",
            "pi_short",
            amount,
            "usd",
            "o-other",
        )),
    )
    .await;
    assert_eq!(
        (status, answer["outcome"].as_str()),
        (200, Some("replayed"))
    );
    let again = refunds(&app).await;
    assert_eq!(again, recorded, "the refunds due are as they were");
    // The order's own PaymentIntent still places it.
    let (status, answer) = post(
        &hook,
        webhook(&succeeded("evt_right", &intent, amount, "usd", &order)),
    )
    .await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("placed")));
    // The sample event names no order of the sample data, and is signed long ago.
    let req = from_event_file("../events/payment-webhook.json").expect("event");
    assert_eq!(
        post(&hook, req).await.0,
        400,
        "the sample's signature is not fresh"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_deliveries_of_one_event_at_once_place_the_order_once() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let (order, amount, intent) = held(&app).await;
    let body = succeeded("evt_twice", &intent, amount, "usd", &order);
    let (a, b) = tokio::join!(post(&hook, webhook(&body)), post(&hook, webhook(&body)));
    let mut outcomes = [a.1["outcome"].clone(), b.1["outcome"].clone()];
    outcomes.sort_by_key(|o| o.to_string());
    assert_eq!((a.0, b.0), (200, 200));
    assert_eq!(outcomes, [Value::from("placed"), Value::from("replayed")]);
    assert_eq!(app.status_of(&order).await, "PLACED");
}

#[tokio::test]
async fn a_payment_after_the_hold_ended_is_recorded_for_refund_and_stock_goes_back() {
    let app = TestApp::seeded().await.expect("app");
    let short = briefly_held(&app.store);
    let before = app.stock("sku-1").await;
    let (status, _, body) = parts(
        dispatch(
            &crate::flows::checkout_with(&short),
            checkout("c2", None),
            functions::checkout::handle,
        )
        .await,
    );
    assert_eq!(status, 201, "{body}");
    let order = body["orderId"].as_str().expect("id").to_owned();
    let amount = body["payment"]["amount"].as_i64().expect("amount");
    let intent = body["payment"]["paymentIntentId"].as_str().expect("intent");
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let hook = hooked(&app);
    let (status, answer) = post(
        &hook,
        webhook(&succeeded("evt_late", intent, amount, "usd", &order)),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        (answer["outcome"].as_str(), answer["reason"].as_str()),
        (Some("refund-due"), Some("hold-ended"))
    );
    let run = app
        .store
        .end_expired_holds(Duration::from_secs(5))
        .await
        .expect("expiry");
    assert_eq!(run.expired, 1, "{run:?}");
    assert_eq!(app.status_of(&order).await, "EXPIRED");
    assert_eq!(app.stock("sku-1").await, before, "the hold's stock is back");
}

/// A checkout retried with its `Idempotency-Key` after its payment: the order as it is now,
/// PLACED, never the stale hold that would invite a second payment.
#[tokio::test]
async fn a_checkout_replayed_after_its_payment_answers_the_order_placed() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let (status, _, first) = parts(
        dispatch(
            &crate::flows::checkout_with(&app.store),
            checkout("c2", Some("k-paid")),
            functions::checkout::handle,
        )
        .await,
    );
    assert_eq!(status, 201, "{first}");
    let order = first["orderId"].as_str().expect("id").to_owned();
    let amount = first["payment"]["amount"].as_i64().expect("amount");
    let intent = first["payment"]["paymentIntentId"]
        .as_str()
        .expect("intent");
    let (status, answer) = post(
        &hook,
        webhook(&succeeded("evt_paid", intent, amount, "usd", &order)),
    )
    .await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("placed")));
    let response = dispatch(
        &crate::flows::checkout_with(&app.store),
        checkout("c2", Some("k-paid")),
        functions::checkout::handle,
    )
    .await;
    let replayed = local_engine::testing::header(&response, "idempotent-replayed");
    let (status, _, again) = parts(response);
    assert_eq!(
        (status, replayed.as_deref()),
        (201, Some("true")),
        "{again}"
    );
    assert_eq!(again["orderId"], first["orderId"]);
    assert_eq!(again["status"], "PLACED");
    assert_eq!(again["payment"], first["payment"]);
    assert_eq!(again["items"], first["items"]);
}

/// A signed body the store cannot read (the review's cases: not an event, an ID past the
/// provider's 255 characters, a payment whose amount is text) is kept as signed and answered
/// 200, so the provider does not retry it for three days and drop it; kept once per body.
#[tokio::test]
async fn a_signed_event_the_store_cannot_read_is_kept_as_signed_and_acknowledged() {
    use aws_sdk_dynamodb::types::AttributeValue;
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let long_id = format!(
        r#"{{"id":"evt_{}","type":"charge.refunded","data":{{"object":{{}}}}}}"#,
        "x".repeat(252)
    );
    let bodies = [
        "not json at all".to_owned(),
        long_id,
        r#"{"id":"evt_text","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1","amount":"5","currency":"usd"}}}"#.to_owned(),
    ];
    for body in &bodies {
        let (status, answer) = post(&hook, webhook(body)).await;
        assert_eq!(
            (status, answer["outcome"].as_str()),
            (200, Some("unreadable")),
            "{body}"
        );
        // Delivered again: kept once.
        let (status, _) = post(&hook, webhook(body)).await;
        assert_eq!(status, 200);
    }
    let out = app
        .engine
        .client()
        .query()
        .table_name(local_engine::LOCAL_TABLE)
        .index_name("GSI1")
        .key_condition_expression("GSI1PK = :pk")
        .expression_attribute_values(":pk", AttributeValue::S("UNREAD_EVENTS".into()))
        .send()
        .await
        .expect("query");
    let kept: Vec<String> = out
        .items()
        .iter()
        .map(|item| item["body"].as_s().expect("body").clone())
        .collect();
    assert_eq!(kept.len(), bodies.len(), "{kept:?}");
    for body in &bodies {
        assert!(kept.contains(body), "{body} was not kept");
    }
    assert!(
        out.items()
            .iter()
            .all(|item| item["reason"].as_s().is_ok_and(|r| !r.is_empty()))
    );
    // An ID of 255 characters is the provider's own: read, and acknowledged as an event.
    let longest = format!(
        r#"{{"id":"evt_{}","type":"charge.refunded","data":{{"object":{{}}}}}}"#,
        "x".repeat(251)
    );
    let (status, answer) = post(&hook, webhook(&longest)).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("ignored")));
}

/// The review's case: a payment whose `amount` is the order's total but that collected one
/// cent places nothing, and what goes back is the cent it collected.
#[tokio::test]
async fn a_payment_that_collected_less_than_its_amount_places_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let (order, amount, intent) = held(&app).await;
    let body = serde_json::json!({
        "id": "evt_cent",
        "type": "payment_intent.succeeded",
        "data": {"object": {
            "id": intent,
            "object": "payment_intent",
            "amount": amount,
            "amount_received": 1,
            "currency": "usd",
            "status": "succeeded",
            "metadata": {"orderId": order},
        }},
    })
    .to_string();
    let (status, answer) = post(&hook, webhook(&body)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        (answer["outcome"].as_str(), answer["reason"].as_str()),
        (Some("refund-due"), Some("wrong-amount"))
    );
    assert_eq!(app.status_of(&order).await, "PENDING_PAYMENT");
    let due = refunds(&app).await;
    assert_eq!(due.len(), 1);
    assert_eq!(due[0]["amount"], 1, "{due:?}");
}

/// The provider's body for a declined attempt on PaymentIntent `intent` of `order`.
fn failed(event: &str, intent: &str, amount: i64, order: &str) -> String {
    serde_json::json!({
        "id": event,
        "type": "payment_intent.payment_failed",
        "data": {"object": {
            "id": intent,
            "object": "payment_intent",
            "amount": amount,
            "currency": "usd",
            "status": "requires_payment_method",
            "last_payment_error": {"code": "card_declined", "message": "Your card was declined."},
            "metadata": {"orderId": order},
        }},
    })
    .to_string()
}

/// A declined attempt is shown on the order, which still waits: another payment places it and
/// clears the reason. A failure for another PaymentIntent, or after the order moved on, changes
/// nothing.
#[tokio::test]
async fn a_failed_payment_is_shown_on_the_hold_and_another_payment_still_places_it() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let (order, amount, intent) = held(&app).await;
    let read = order_as_staff_see_it;
    let (status, answer) = post(
        &hook,
        webhook(&failed("evt_f1", "pi_other", amount, &order)),
    )
    .await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("ignored")));
    assert!(read(&app, &order).await["paymentError"].is_null());
    let (status, answer) = post(&hook, webhook(&failed("evt_f2", &intent, amount, &order))).await;
    assert_eq!(
        (status, answer["outcome"].as_str()),
        (200, Some("payment-failed"))
    );
    let shown = read(&app, &order).await;
    assert_eq!(
        (shown["status"].as_str(), shown["paymentError"].as_str()),
        (Some("PENDING_PAYMENT"), Some("Your card was declined."))
    );
    let (status, answer) = post(
        &hook,
        webhook(&succeeded("evt_ok2", &intent, amount, "usd", &order)),
    )
    .await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("placed")));
    let shown = read(&app, &order).await;
    assert_eq!(shown["status"], "PLACED");
    assert!(shown["paymentError"].is_null(), "{shown}");
    // A failure reported late, after the order was paid: nothing changes.
    let (status, answer) = post(&hook, webhook(&failed("evt_f3", &intent, amount, &order))).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("ignored")));
    assert!(read(&app, &order).await["paymentError"].is_null());
}

/// The provider's `payment_intent.canceled` of `intent`, naming `order`.
fn canceled(event: &str, intent: &str, amount: i64, order: &str) -> String {
    serde_json::json!({
        "id": event,
        "object": "event",
        "type": "payment_intent.canceled",
        "data": {"object": {
            "id": intent, "object": "payment_intent", "amount": amount, "currency": "usd",
            "status": "canceled", "metadata": {"orderId": order},
        }},
    })
    .to_string()
}

#[tokio::test]
async fn a_hold_whose_payment_intent_the_provider_canceled_ends_at_once_with_its_stock_back() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let before = (app.stock("sku-1").await, app.stock("sku-3").await);
    let (order, amount, intent) = held(&app).await;
    // Another PaymentIntent naming the order: not the hold's, so nothing ends.
    let (status, answer) = post(
        &hook,
        webhook(&canceled(
            "evt_other_cancel",
            "pi_not_the_orders",
            amount,
            &order,
        )),
    )
    .await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("ignored")));
    assert_eq!(app.status_of(&order).await, "PENDING_PAYMENT");
    let (status, body) = local_engine::provider::form_post(
        local_engine::testing::provider().base(),
        &format!("/v1/payment_intents/{intent}/cancel"),
        Some(local_engine::provider::LOCAL_API_KEY),
        &[],
    )
    .expect("provider");
    assert_eq!(status, 200, "{body}");
    let event = canceled("evt_cancel", &intent, amount, &order);
    let (status, answer) = post(&hook, webhook(&event)).await;
    assert_eq!(
        (status, answer["outcome"].as_str()),
        (200, Some("hold-ended"))
    );
    assert_eq!(app.status_of(&order).await, "EXPIRED");
    assert_eq!(
        (app.stock("sku-1").await, app.stock("sku-3").await),
        before,
        "its stock back, long before its holdUntil"
    );
    // Delivered again: nothing more moves.
    let (status, answer) = post(&hook, webhook(&event)).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("ignored")));
    assert_eq!((app.stock("sku-1").await, app.stock("sku-3").await), before);
}

/// c2's sample cart checked out with `code`: the order's ID, its amount and its PaymentIntent.
async fn held_with(app: &TestApp, code: &str) -> (u16, Value) {
    let body = format!(r#"{{"codes": ["{code}"]}}"#);
    let req = local_engine::testing::payments::checkout_with_body("c2", None, &body);
    let (status, _, body) = parts(
        dispatch(
            &crate::flows::checkout_with(&app.store),
            req,
            functions::checkout::handle,
        )
        .await,
    );
    (status, body)
}

#[tokio::test]
async fn a_hold_the_provider_canceled_gives_its_codes_use_back() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let body: shared::domain::promotions::PromotionBody = serde_json::from_value(
        serde_json::json!({"code": "ONLYONE", "type": "fixed", "value": "1.00", "usageLimit": 1}),
    )
    .expect("shape");
    let rule = body
        .check(shared::domain::ids::PromotionId::parse("only-one").expect("id"))
        .expect("valid");
    app.direct_store().put_promotion(&rule).await.expect("put");
    let (status, body) = held_with(&app, "ONLYONE").await;
    assert_eq!(
        (status, &body["total"]),
        (201, &Value::from("42.95")),
        "{body}"
    );
    let (order, amount, intent) = local_engine::testing::payments::held(&body);
    // Its one use is taken: the same cart again is refused the code.
    for (sku, quantity) in [("sku-1", 1), ("sku-3", 2)] {
        let req = local_engine::testing::payments::hold_line("c2", sku, quantity);
        assert_eq!(
            parts(dispatch(&app.store, req, functions::edit_cart::handle).await).0,
            200
        );
    }
    let (status, body) = held_with(&app, "ONLYONE").await;
    assert_eq!(
        (status, &body["type"]),
        (409, &Value::from("/problems/code-used-up"))
    );
    let (status, reply) = local_engine::provider::form_post(
        local_engine::testing::provider().base(),
        &format!("/v1/payment_intents/{intent}/cancel"),
        Some(local_engine::provider::LOCAL_API_KEY),
        &[],
    )
    .expect("provider");
    assert_eq!(status, 200, "{reply}");
    let event = canceled("evt_cancel_code", &intent, amount, &order);
    let (status, answer) = post(&hook, webhook(&event)).await;
    assert_eq!(
        (status, answer["outcome"].as_str()),
        (200, Some("hold-ended"))
    );
    let (status, body) = held_with(&app, "ONLYONE").await;
    assert_eq!(
        (status, &body["total"]),
        (201, &Value::from("42.95")),
        "the use given back: {body}"
    );
}

#[tokio::test]
async fn the_payment_that_placed_an_order_reported_again_under_another_event_is_not_refunded() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let (order, amount, intent) = held(&app).await;
    let first = succeeded("evt_first", &intent, amount, "usd", &order);
    let (_, answer) = post(&hook, webhook(&first)).await;
    assert_eq!(answer["outcome"], "placed");
    // The provider resends it from its dashboard, or its event's record is past its week: a
    // new event ID for the same payment.
    let again = succeeded("evt_resent", &intent, amount, "usd", &order);
    let (status, answer) = post(&hook, webhook(&again)).await;
    assert_eq!(
        (status, answer["outcome"].as_str()),
        (200, Some("replayed")),
        "{answer}"
    );
    assert!(
        refunds(&app).await.is_empty(),
        "the paying payment is not refunded"
    );
    assert_eq!(app.status_of(&order).await, "PLACED");
}

/// The provider's `charge.dispute.created` of `intent`'s charge: it names the PaymentIntent,
/// never the order.
fn dispute(event: &str, dispute: &str, intent: &str, amount: i64) -> String {
    serde_json::json!({
        "id": event,
        "object": "event",
        "type": "charge.dispute.created",
        "data": {"object": {
            "id": dispute, "object": "dispute", "amount": amount, "currency": "usd",
            "charge": "ch_1", "payment_intent": intent, "reason": "fraudulent",
            "status": "warning_needs_response",
        }},
    })
    .to_string()
}

#[tokio::test]
async fn a_disputed_payment_flags_the_order_it_placed_once_and_an_unknown_one_is_still_reported() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let (order, amount, intent) = held(&app).await;
    let paid = succeeded("evt_paid", &intent, amount, "usd", &order);
    let (status, answer) = post(&hook, webhook(&paid)).await;
    assert_eq!((status, answer["outcome"].as_str()), (200, Some("placed")));
    let (status, answer) = post(&hook, webhook(&dispute("evt_d1", "dp_1", &intent, amount))).await;
    assert_eq!(
        (
            status,
            answer["outcome"].as_str(),
            answer["orderId"].as_str()
        ),
        (200, Some("disputed"), Some(order.as_str())),
        "{answer}"
    );
    let shown = order_as_staff_see_it(&app, &order).await;
    assert_eq!(shown["dispute"]["disputeId"], "dp_1", "{shown}");
    assert_eq!(
        (&shown["dispute"]["reason"], &shown["dispute"]["amount"]),
        (&Value::from("fraudulent"), &Value::from(amount))
    );
    assert_eq!(shown["status"], "PLACED", "a dispute moves no status");
    // Delivered again, or a second dispute: the first stands.
    let (_, answer) = post(&hook, webhook(&dispute("evt_d2", "dp_2", &intent, amount))).await;
    assert_eq!(answer["outcome"], "replayed", "{answer}");
    let shown = order_as_staff_see_it(&app, &order).await;
    assert_eq!(shown["dispute"]["disputeId"], "dp_1");
    // A payment the store knows nothing of: acknowledged, reported, no order named.
    let (status, answer) = post(
        &hook,
        webhook(&dispute("evt_d3", "dp_3", "pi_unknown", 500)),
    )
    .await;
    assert_eq!(
        (status, answer["outcome"].as_str()),
        (200, Some("disputed"))
    );
    assert!(answer["orderId"].is_null(), "{answer}");
}

/// A payment that placed nothing (here: of a PaymentIntent the order does not store) is
/// recorded for refund under its order; its dispute finds the order through that record.
#[tokio::test]
async fn a_dispute_of_a_payment_recorded_for_refund_flags_the_order_it_named() {
    let app = TestApp::seeded().await.expect("app");
    let hook = hooked(&app);
    let (order, amount, _) = held(&app).await;
    let stray = succeeded("evt_stray", "pi_stray", amount, "usd", &order);
    let (_, answer) = post(&hook, webhook(&stray)).await;
    assert_eq!(answer["outcome"], "refund-due", "{answer}");
    let (_, answer) = post(
        &hook,
        webhook(&dispute("evt_d", "dp_s", "pi_stray", amount)),
    )
    .await;
    assert_eq!(
        (answer["outcome"].as_str(), answer["orderId"].as_str()),
        (Some("disputed"), Some(order.as_str())),
        "{answer}"
    );
}
