//! POST /orders/{orderId}/cancellations through API Gateway events, against its own engine and
//! the test's localstripe. The sample order o104 is c1's, PLACED and never paid: sku-1 x1,
//! sku-4 x2, sku-7 x3.

use crate::flows::{ledger, order_of, paid, pay_refunds, ship_lines};
use local_engine::testing::{TestApp, Who, all_items, dispatch, from_event_file, parts, send_json};
use serde_json::{Value, json};
use shared::Store;

const ROUTE: &str = "POST /orders/{orderId}/cancellations";

fn cancel_request(who: Who<'_>, order: &str, key: &str, body: &str) -> lambda_http::Request {
    let headers: Vec<(&str, &str)> = if key.is_empty() {
        Vec::new()
    } else {
        vec![("idempotency-key", key)]
    };
    send_json(
        who,
        ROUTE,
        &format!("/orders/{order}/cancellations"),
        &headers,
        body,
    )
}

async fn cancel(store: &Store, order: &str, key: &str, lines: &[(&str, u32)]) -> (u16, Value) {
    let lines: Vec<Value> = lines
        .iter()
        .map(|(sku, quantity)| json!({"sku": sku, "quantity": quantity}))
        .collect();
    let body = json!({"lines": lines, "reason": "out of stock at the warehouse"}).to_string();
    let req = cancel_request(Who::Staff, order, key, &body);
    let (status, _, answer) = parts(dispatch(store, req, functions::cancel_lines::handle).await);
    (status, answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paid_orders_unshipped_lines_are_cancelled_restocked_and_refunded_once() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    // sku-1 x2 at 19.95 and sku-3 x1 at 12.00: 51.90.
    let (order, amount, _) = paid(store, "c3", &[("sku-1", 2), ("sku-3", 1)]).await;
    assert_eq!(amount, 5190);
    let (status, body) = ship_lines(store, &order, &[("sku-1", 1)]).await;
    assert_eq!(status, 201, "{body}");
    let (stock_1, stock_3) = (app.stock("sku-1").await, app.stock("sku-3").await);

    let (status, cancelled) =
        cancel(store, &order, "cancel-1", &[("sku-1", 1), ("sku-3", 1)]).await;
    assert_eq!(status, 201, "{cancelled}");
    assert_eq!(cancelled["orderStatus"], "SHIPPED", "the rest has shipped");
    assert_eq!(
        cancelled["refund"]["amount"],
        1995 + 1200,
        "at the prices ordered"
    );
    assert_eq!(cancelled["refund"]["kind"], "cancellation");
    assert_eq!(
        cancelled["refund"]["cancellationId"],
        cancelled["cancellationId"]
    );
    assert_eq!(
        (app.stock("sku-1").await, app.stock("sku-3").await),
        (stock_1 + 1, stock_3 + 1),
        "their stock back"
    );
    let shown = order_of(store, &order).await;
    assert_eq!(shown["status"], "SHIPPED");
    assert_eq!(shown["withdrawn"], "31.95");
    assert_eq!(
        shown["cancellations"][0]["lines"],
        json!([{"sku": "sku-1", "quantity": 1}, {"sku": "sku-3", "quantity": 1}])
    );

    // The same request again: the same cancellation, nothing more.
    let (status, again) = cancel(store, &order, "cancel-1", &[("sku-1", 1), ("sku-3", 1)]).await;
    assert_eq!(status, 201, "{again}");
    assert_eq!(again["cancellationId"], cancelled["cancellationId"]);
    assert_eq!(app.stock("sku-1").await, stock_1 + 1);
    // Another body under the key is a 422; nothing is left to cancel: a 409.
    let (status, _) = cancel(store, &order, "cancel-1", &[("sku-1", 1)]).await;
    assert_eq!(status, 422);
    let (status, refused) = cancel(store, &order, "cancel-2", &[("sku-1", 1)]).await;
    assert_eq!(status, 409, "{refused}");

    // Paid once through the provider, and the ledger ties the refund to the cancellation.
    let run = pay_refunds(store).await;
    assert_eq!((run.sent, run.succeeded), (1, 1), "{run:?}");
    assert_eq!(pay_refunds(store).await.sent, 0, "never twice");
    let money = ledger(store, &order).await;
    assert_eq!(money["refunded"], 3195);
    assert_eq!(money["refundable"], 5190 - 3195);
    assert_eq!(money["refunds"][0]["status"], "SUCCEEDED");
    assert_eq!(
        money["refunds"][0]["cancellationId"],
        cancelled["cancellationId"]
    );
}

#[tokio::test]
async fn cancelling_everything_left_of_an_order_with_nothing_shipped_cancels_it() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let before = app.stock("sku-7").await;
    let (status, partly) = cancel(store, "o104", "c-1", &[("sku-7", 3)]).await;
    assert_eq!(
        (status, partly["orderStatus"].as_str()),
        (201, Some("PLACED")),
        "{partly}"
    );
    assert!(
        partly.get("refund").is_none(),
        "an unpaid order has nothing to refund"
    );
    let (status, all) = cancel(store, "o104", "c-2", &[("sku-1", 1), ("sku-4", 2)]).await;
    assert_eq!(
        (status, all["orderStatus"].as_str()),
        (201, Some("CANCELLED")),
        "{all}"
    );
    assert_eq!(app.stock("sku-7").await, before + 3);
    assert_eq!(app.status_of("o104").await, "CANCELLED");
    let (status, body) = ship_lines(store, "o104", &[("sku-1", 1)]).await;
    assert_eq!(status, 409, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_shipment_racing_a_cancellation_of_the_same_units_never_both_take_them() {
    for round in 0..4 {
        let app = TestApp::seeded().await.expect("app");
        let before = app.stock("sku-7").await;
        let store = app.store.clone();
        let shipping = tokio::spawn({
            let store = store.clone();
            async move { ship_lines(&store, "o104", &[("sku-7", 3)]).await.0 }
        });
        let cancelling = tokio::spawn({
            let store = store.clone();
            async move { cancel(&store, "o104", "race", &[("sku-7", 3)]).await.0 }
        });
        let (shipped_status, cancelled_status) = (
            shipping.await.expect("task"),
            cancelling.await.expect("task"),
        );
        let mut statuses = [shipped_status, cancelled_status];
        statuses.sort_unstable();
        assert_eq!(statuses, [201, 409], "round {round}: one of them");
        let shown = order_of(&store, "o104").await;
        let shipped_units: u64 = shown["fulfilments"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| f["lines"][0]["quantity"].as_u64().unwrap_or(0))
            .sum();
        let cancelled_units: u64 = shown["cancellations"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| c["lines"][0]["quantity"].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(shipped_units + cancelled_units, 3, "round {round}: {shown}");
        assert_eq!(
            app.stock("sku-7").await,
            before + cancelled_units,
            "stock exact"
        );
    }
}

#[tokio::test]
async fn what_cannot_be_cancelled_is_a_problem_and_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let before = all_items(&app).await;
    // o101 is SHIPPED (the sample data's fulfilment), o103 CANCELLED.
    for (order, key, body, expected) in [
        (
            "o104",
            "k",
            r#"{"lines":[{"sku":"sku-7","quantity":4}],"reason":"r"}"#,
            409,
        ),
        (
            "o104",
            "k",
            r#"{"lines":[{"sku":"sku-2","quantity":1}],"reason":"r"}"#,
            400,
        ),
        (
            "o104",
            "k",
            r#"{"lines":[{"sku":"sku-7","quantity":0}],"reason":"r"}"#,
            400,
        ),
        ("o104", "k", r#"{"lines":[],"reason":"r"}"#, 400),
        (
            "o104",
            "k",
            r#"{"lines":[{"sku":"sku-7","quantity":1}],"reason":" "}"#,
            400,
        ),
        (
            "o104",
            "k",
            r#"{"lines":[{"sku":"sku-7","quantity":1}]}"#,
            400,
        ),
        (
            "o104",
            "",
            r#"{"lines":[{"sku":"sku-7","quantity":1}],"reason":"r"}"#,
            400,
        ),
        (
            "o101",
            "k",
            r#"{"lines":[{"sku":"sku-1","quantity":1}],"reason":"r"}"#,
            409,
        ),
        (
            "o103",
            "k",
            r#"{"lines":[{"sku":"sku-1","quantity":1}],"reason":"r"}"#,
            409,
        ),
        (
            "o404",
            "k",
            r#"{"lines":[{"sku":"sku-1","quantity":1}],"reason":"r"}"#,
            404,
        ),
    ] {
        let req = cancel_request(Who::Staff, order, key, body);
        let (status, content_type, problem) =
            parts(dispatch(store, req, functions::cancel_lines::handle).await);
        assert_eq!(
            (status, content_type.as_str()),
            (expected, "application/problem+json"),
            "{order} {body}: {problem}"
        );
    }
    let req = cancel_request(
        Who::Customer("c1"),
        "o104",
        "k",
        r#"{"lines":[{"sku":"sku-7","quantity":1}],"reason":"r"}"#,
    );
    assert_eq!(
        parts(dispatch(store, req, functions::cancel_lines::handle).await).0,
        403
    );
    assert_eq!(all_items(&app).await, before, "nothing written");
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/cancel-lines.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::cancel_lines::handle).await);
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["lines"], json!([{"sku": "sku-7", "quantity": 1}]));
    assert_eq!(body["orderStatus"], "PLACED");
}
