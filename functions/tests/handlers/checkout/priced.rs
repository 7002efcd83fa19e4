//! Checkout charges what the cart's quote says: the sample cart of c2 (a mug at 19.95, two
//! candles at 12.00) with SAVE10, express to New York and its tax comes to 58.06 (worked by
//! hand in `quote_cart.rs`), the order keeps each part, and the PaymentIntent is for 5806.

use local_engine::testing::dispatch;
use local_engine::testing::payments::checkout_with_body;
use local_engine::testing::{TestApp, parts};
use serde_json::{Value, json};

use crate::flows::{checkout_with, order_of};

const TO_NEW_YORK: &str = r#""shippingAddress": {"name": "Ben Ode", "line1": "1 Main St", "city": "Albany", "postalCode": "12207", "country": "US", "region": "NY"}"#;

async fn check_out(app: &TestApp, body: &str) -> (u16, Value) {
    let req = checkout_with_body("c2", None, body);
    let (status, _, body) =
        parts(dispatch(&checkout_with(&app.store), req, functions::checkout::handle).await);
    (status, body)
}

#[tokio::test]
async fn checkout_charges_the_quotes_total_and_the_order_keeps_its_parts() {
    let app = TestApp::seeded().await.expect("app");
    let body = format!(
        r#"{{{TO_NEW_YORK}, "shippingOptionId": "express", "codes": ["save10"], "expectedTotal": "58.06"}}"#
    );
    let (status, held) = check_out(&app, &body).await;
    assert_eq!(status, 201, "{held}");
    assert_eq!(
        (&held["total"], &held["payment"]["amount"]),
        (&json!("58.06"), &json!(5806))
    );
    let intent = held["payment"]["paymentIntentId"].as_str().expect("intent");
    let at_provider = local_engine::testing::at_provider(&format!("/v1/payment_intents/{intent}"));
    assert_eq!(
        at_provider["amount"], 5806,
        "the provider charges the total"
    );
    let order = order_of(&app.store, held["orderId"].as_str().expect("id")).await;
    for answer in [&held, &order] {
        assert_eq!(
            (
                &answer["subtotal"],
                &answer["discount"],
                &answer["shipping"],
                &answer["tax"],
                &answer["shippingOptionId"],
                &answer["shippingAddress"]["region"],
                &answer["promotions"],
            ),
            (
                &json!("43.95"),
                &json!("4.40"),
                &json!("15.00"),
                &json!("3.51"),
                &json!("express"),
                &json!("US-NY"),
                &json!([{"promotionId": "save10", "code": "SAVE10", "discount": "4.40"}]),
            ),
            "{answer}"
        );
        let lines: Vec<(&Value, &Value, &Value)> = answer["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|l| (&l["sku"], &l["discount"], &l["tax"]))
            .collect();
        assert_eq!(
            lines,
            [
                (&json!("sku-1"), &json!("2.00"), &json!("1.59")),
                (&json!("sku-3"), &json!("2.40"), &json!("1.92")),
            ]
        );
    }
}

#[tokio::test]
async fn a_total_other_than_the_one_quoted_or_an_unknown_code_holds_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let stock = (app.stock("sku-1").await, app.stock("sku-3").await);
    let changed =
        format!(r#"{{{TO_NEW_YORK}, "shippingOptionId": "express", "expectedTotal": "58.06"}}"#);
    let (status, body) = check_out(&app, &changed).await;
    assert_eq!(
        (status, &body["type"]),
        (409, &json!("/problems/quote-changed")),
        "without SAVE10 it is 62.85: {body}"
    );
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("62.85") && d.contains("58.06")),
        "{body}"
    );
    let (status, body) = check_out(&app, r#"{"codes": ["NOPE"]}"#).await;
    assert_eq!(
        (status, &body["type"]),
        (422, &json!("/problems/unknown-code"))
    );
    let (status, body) = check_out(&app, r#"{"shippingOptionId": "express"}"#).await;
    assert_eq!(status, 400, "a way to ship needs an address: {body}");
    assert_eq!(
        (app.stock("sku-1").await, app.stock("sku-3").await),
        stock,
        "nothing held"
    );
    // Without a body: the automatic promotions only, no shipping, no tax (c2 keeps no address).
    let (status, body) = check_out(&app, "").await;
    assert_eq!((status, &body["total"]), (201, &json!("43.95")), "{body}");
}

#[tokio::test]
async fn a_promotion_for_a_category_is_charged_on_its_products_lines_only() {
    let app = TestApp::seeded().await.expect("app");
    crate::flows::put_promotion(&app.store, "kitchen-half", crate::flows::KITCHEN_HALF).await;
    // Half of the mug (kitchen), nothing off the candles: 43.95 - 9.98.
    let (status, held) =
        check_out(&app, r#"{"codes": ["KITCHEN"], "expectedTotal": "33.97"}"#).await;
    assert_eq!(status, 201, "{held}");
    assert_eq!(
        (
            &held["items"][0]["discount"],
            &held["items"][1]["discount"],
            &held["payment"]["amount"]
        ),
        (&json!("9.98"), &json!("0.00"), &json!(3397))
    );
}

/// Staff cancel `lines` of `order` (POST /orders/{orderId}/cancellations): the refund's amount,
/// and its part that gives back the shipping.
async fn cancel(app: &TestApp, order: &str, key: &str, lines: Value) -> (i64, i64) {
    let body = json!({"lines": lines, "reason": "out of stock"}).to_string();
    let req = local_engine::testing::send_json(
        local_engine::testing::Who::Staff,
        "POST /orders/{orderId}/cancellations",
        &format!("/orders/{order}/cancellations"),
        &[("idempotency-key", key)],
        &body,
    );
    let (status, _, answer) =
        parts(dispatch(&app.store, req, functions::cancel_lines::handle).await);
    assert_eq!(status, 201, "{answer}");
    let refund = &answer["refund"];
    (
        refund["amount"].as_i64().expect("a refund"),
        refund["shipping"].as_i64().unwrap_or(0),
    )
}

#[tokio::test]
async fn lines_cancelled_give_back_what_was_paid_for_them_and_the_last_the_shipping() {
    let app = TestApp::seeded().await.expect("app");
    let body = format!(
        r#"{{{TO_NEW_YORK}, "shippingOptionId": "express", "codes": ["SAVE10"], "expectedTotal": "58.06"}}"#
    );
    let (status, held) = check_out(&app, &body).await;
    assert_eq!(status, 201, "{held}");
    let (order, amount, intent) = local_engine::testing::payments::held(&held);
    local_engine::testing::payments::pay_at_provider(&intent);
    let placed =
        crate::flows::succeeded_event(&app.store, &format!("evt_{order}"), &intent, amount, &order)
            .await;
    assert_eq!(placed["outcome"], "placed", "{placed}");
    // One candle: 12.00 less half its line's 2.40 off, plus half its 1.92 tax.
    let (one, no_shipping) = cancel(
        &app,
        &order,
        "cancel-1",
        json!([{"sku": "sku-3", "quantity": 1}]),
    )
    .await;
    assert_eq!((one, no_shipping), (1176, 0));
    // The rest: the other candle (11.76), the mug (19.95 - 2.00 + 1.59) and, nothing of the
    // order shipping any more, the express 15.00.
    let (rest, shipping) = cancel(
        &app,
        &order,
        "cancel-2",
        json!([{"sku": "sku-3", "quantity": 1}, {"sku": "sku-1", "quantity": 1}]),
    )
    .await;
    assert_eq!(
        (rest, shipping),
        (1176 + 1954 + 1500, 1500),
        "the ledger shows each part"
    );
    assert_eq!(one + rest, 5806, "every cent paid, and not one more");
    let ledger = crate::flows::ledger(&app.store, &order).await;
    assert_eq!(
        (&ledger["paid"], &ledger["refunded"], &ledger["refundable"]),
        (&json!(5806), &json!(5806), &json!(0))
    );
    let parts: Vec<(&Value, &Value)> = ledger["refunds"]
        .as_array()
        .expect("refunds")
        .iter()
        .map(|r| (&r["amount"], &r["shipping"]))
        .collect();
    assert!(
        parts.contains(&(&json!(4630), &json!(1500))),
        "the refund of the rest shows its shipping: {parts:?}"
    );
}
