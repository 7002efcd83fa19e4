//! POST /orders/{orderId}/refunds through API Gateway events, against its own engine: what the
//! route refuses and why (nothing written), what it records, and a retry answered as the same
//! refund. The sample order o100 is made paid by its header (what a payment's transaction
//! writes); paying it through the provider, and the payer sending the refunds, are
//! `functions/tests/handlers/pay_refunds.rs`' part.

use aws_sdk_dynamodb::types::AttributeValue::{N, S};
use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, from_event_file, parts, send_json};
use serde_json::Value;

const ROUTE: &str = "POST /orders/{orderId}/refunds";
/// o100: 2 × sku-1 at 19.95.
const PAID: i64 = 3990;

/// o100's header as a payment of `PAID` leaves it.
async fn paid(app: &TestApp) {
    app.direct_store()
        .client()
        .update_item()
        .table_name(app.store.table())
        .key("PK", S("ORDER#o100".into()))
        .key("SK", S("HEADER".into()))
        .update_expression("SET paymentId = :p, paid = :a, refundable = :a")
        .expression_attribute_values(":p", S("pi_paid_o100".into()))
        .expression_attribute_values(":a", N(PAID.to_string()))
        .send()
        .await
        .expect("paid");
}

async fn refund(
    app: &TestApp,
    who: Who<'_>,
    key: Option<&str>,
    body: &str,
) -> (u16, String, Value) {
    let headers: Vec<(&str, &str)> = key.map(|k| ("idempotency-key", k)).into_iter().collect();
    let req = send_json(who, ROUTE, "/orders/o100/refunds", &headers, body);
    parts(dispatch(&app.store, req, functions::refund_order::handle).await)
}

/// How many refunds o100's partition holds.
async fn refunds(app: &TestApp) -> usize {
    let out = app
        .direct_store()
        .client()
        .query()
        .table_name(app.store.table())
        .key_condition_expression("PK = :pk AND begins_with(SK, :r)")
        .expression_attribute_values(":pk", S("ORDER#o100".into()))
        .expression_attribute_values(":r", S("REFUND#".into()))
        .send()
        .await
        .expect("query");
    out.items().len()
}

#[tokio::test]
async fn an_unpaid_order_has_nothing_to_refund() {
    let app = TestApp::seeded().await.expect("app");
    let (status, ct, body) = refund(
        &app,
        Who::Staff,
        Some("k-1"),
        r#"{"amount":100,"reason":"late"}"#,
    )
    .await;
    assert_eq!(
        (status, ct.as_str()),
        (409, "application/problem+json"),
        "{body}"
    );
    assert_eq!(body["type"], "/problems/refund-refused");
    assert_eq!(refunds(&app).await, 0);
}

#[tokio::test]
async fn what_the_route_refuses_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    paid(&app).await;
    let cases: [(Who, Option<&str>, &str, u16); 9] = [
        (Who::Staff, None, r#"{"amount":100,"reason":"late"}"#, 400),
        (
            Who::Staff,
            Some("k"),
            r#"{"amount":100,"reason":"late","restock":true}"#,
            400,
        ),
        (
            Who::Staff,
            Some("k"),
            r#"{"amount":100,"lines":[{"sku":"sku-1","quantity":1}],"reason":"x"}"#,
            400,
        ),
        (
            Who::Staff,
            Some("k"),
            r#"{"amount":0,"reason":"late"}"#,
            400,
        ),
        (Who::Staff, Some("k"), r#"{"amount":100,"reason":" "}"#, 400),
        (
            Who::Staff,
            Some("k"),
            r#"{"lines":[{"sku":"sku-9","quantity":1}],"reason":"x"}"#,
            400,
        ),
        (
            Who::Staff,
            Some("k"),
            r#"{"amount":3991,"reason":"more than paid"}"#,
            409,
        ),
        (
            Who::Staff,
            Some("k"),
            r#"{"lines":[{"sku":"sku-1","quantity":3}],"reason":"x"}"#,
            409,
        ),
        (
            Who::Customer("c1"),
            Some("k"),
            r#"{"amount":100,"reason":"late"}"#,
            403,
        ),
    ];
    for (who, key, body, want) in cases {
        let (status, ct, answer) = refund(&app, who, key, body).await;
        assert_eq!(
            (status, ct.as_str()),
            (want, "application/problem+json"),
            "{body}: {answer}"
        );
    }
    assert_eq!(refunds(&app).await, 0, "nothing written");
}

#[tokio::test]
async fn a_lines_refund_is_recorded_once_with_its_stock_back() {
    let app = TestApp::seeded().await.expect("app");
    paid(&app).await;
    let before = app.stock("sku-1").await;
    let body = r#"{"lines":[{"sku":"sku-1","quantity":1}],"reason":"damaged","restock":true}"#;
    let (status, _, first) = refund(&app, Who::Staff, Some("r-1"), body).await;
    assert_eq!(status, 202, "{first}");
    assert_eq!(
        (&first["status"], &first["amount"], &first["kind"]),
        (
            &Value::from("REQUESTED"),
            &Value::from(1995),
            &Value::from("staff")
        )
    );
    assert_eq!(app.stock("sku-1").await, before + 1);
    // The same request again: the same refund, nothing more written.
    let (status, _, again) = refund(&app, Who::Staff, Some("r-1"), body).await;
    assert_eq!((status, &again["refundId"]), (202, &first["refundId"]));
    assert_eq!(app.stock("sku-1").await, before + 1);
    // The key for another request: 422.
    let (status, _, reused) = refund(
        &app,
        Who::Staff,
        Some("r-1"),
        r#"{"amount":5,"reason":"x"}"#,
    )
    .await;
    assert_eq!(status, 422, "{reused}");
    // The line's other unit, then none left.
    assert_eq!(refund(&app, Who::Staff, Some("r-2"), body).await.0, 202);
    assert_eq!(app.stock("sku-1").await, before + 2);
    let (status, _, past) = refund(&app, Who::Staff, Some("r-3"), body).await;
    assert_eq!(status, 409, "{past}");
    assert_eq!(refunds(&app).await, 2);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    paid(&app).await;
    let req = from_event_file("../events/refund-order.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::refund_order::handle).await);
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["status"], "REQUESTED");
}
