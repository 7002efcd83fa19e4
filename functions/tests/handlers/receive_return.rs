//! POST /orders/{orderId}/returns/{returnId}/receipt through API Gateway events, against its own
//! engine and the test's localstripe: what arrived back into stock (the damaged aside), what
//! arrived refunded at the prices ordered and paid once, races with a staff refund, and what a
//! receipt refuses. The sample data's rt_o110 is an APPROVED return of one sku-2 of c1's o110.

mod round_five;

use crate::flows::{approved_return, delivered, ledger, order_of, pay_refunds};
use local_engine::testing::returns::receipt;
use local_engine::testing::{
    TestApp, Who, all_items, dispatch, from_event_file, get, parts, send_json,
};
use serde_json::{Value, json};
use shared::Store;

async fn receive(store: &Store, order: &str, id: &str, lines: Value, refund: bool) -> (u16, Value) {
    let req = receipt(order, id, &lines.to_string(), refund);
    let (status, _, answer) = parts(dispatch(store, req, functions::receive_return::handle).await);
    (status, answer)
}

/// A staff refund of one `sku` of `order` by lines, without restock, under `key`.
fn staff_refund(order: &str, sku: &str, key: &str) -> lambda_http::Request {
    send_json(
        Who::Staff,
        "POST /orders/{orderId}/refunds",
        &format!("/orders/{order}/refunds"),
        &[("idempotency-key", key)],
        &format!(
            r#"{{"lines":[{{"sku":"{sku}","quantity":1}}],"reason":"returned","restock":false}}"#
        ),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_unit_stays_out_of_stock_and_what_arrived_is_refunded_once() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    // sku-1 x3 at 19.95: 59.85, paid, delivered now; two of them come back, one damaged.
    let order = delivered(store, "c3", &[("sku-1", 3)]).await;
    let id = approved_return(store, "c3", &order, &[("sku-1", 2)]).await;
    let stock = app.stock("sku-1").await;
    let arrived = json!([{"sku": "sku-1", "received": 2, "damaged": 1}]);
    let (status, received) = receive(store, &order, &id, arrived.clone(), true).await;
    assert_eq!(status, 201, "{received}");
    assert_eq!(received["status"], "REFUNDED");
    assert_eq!(
        (&received["refund"]["amount"], &received["refund"]["kind"]),
        (&json!(3990), &json!("return")),
        "what arrived, at the price ordered"
    );
    assert_eq!(received["refund"]["returnId"], json!(id));
    assert_eq!(
        app.stock("sku-1").await,
        stock + 1,
        "the undamaged unit only"
    );
    // The same receipt again (its answer lost on the way back) answers as the first did, and
    // moves nothing; another receipt of it is refused.
    let (status, second) = receive(store, &order, &id, arrived, true).await;
    assert_eq!(status, 201, "a replay: {second}");
    assert_eq!(
        (
            &second["status"],
            &second["received"],
            &second["refund"]["refundId"]
        ),
        (
            &received["status"],
            &received["received"],
            &received["refund"]["refundId"]
        ),
        "{second}"
    );
    let other = json!([{"sku": "sku-1", "received": 2}]);
    let (status, third) = receive(store, &order, &id, other, true).await;
    assert_eq!(status, 409, "received once: {third}");
    assert_eq!(app.stock("sku-1").await, stock + 1);

    // One view: the order shows the return; the customer kept one unit of three.
    let shown = order_of(store, &order).await;
    assert_eq!(shown["status"], "DELIVERED");
    assert_eq!(shown["withdrawn"], "39.90");
    assert_eq!(shown["returns"][0]["status"], "REFUNDED");
    assert_eq!(
        shown["returns"][0]["received"],
        json!([{"sku": "sku-1", "received": 2, "damaged": 1}])
    );

    // Paid once at localstripe; the ledger ties the refund to the return.
    let run = pay_refunds(store).await;
    assert_eq!((run.sent, run.succeeded), (1, 1), "{run:?}");
    assert_eq!(pay_refunds(store).await.sent, 0, "never twice");
    let money = ledger(store, &order).await;
    assert_eq!(
        (&money["refunded"], &money["refundable"]),
        (&json!(3990), &json!(5985 - 3990))
    );
    assert_eq!(money["refunds"][0]["status"], "SUCCEEDED");
    assert_eq!(money["refunds"][0]["returnId"], json!(id));
}

#[tokio::test]
async fn a_return_received_without_refund_may_be_refunded_by_lines_after_exactly_once() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let order = delivered(store, "c4", &[("sku-3", 2)]).await;
    let id = approved_return(store, "c4", &order, &[("sku-3", 1)]).await;
    let stock = app.stock("sku-3").await;
    let (status, received) = receive(
        store,
        &order,
        &id,
        json!([{"sku": "sku-3", "received": 1}]),
        false,
    )
    .await;
    assert_eq!(
        (status, received["status"].as_str()),
        (201, Some("RECEIVED")),
        "{received}"
    );
    assert!(received.get("refund").is_none(), "{received}");
    assert_eq!(app.stock("sku-3").await, stock + 1);
    assert_eq!(ledger(store, &order).await["refunded"], 0);

    // Staff refund it by lines after all (no second restock): its price, once.
    let (status, _, first) = parts(
        dispatch(
            store,
            staff_refund(&order, "sku-3", "late-1"),
            functions::refund_order::handle,
        )
        .await,
    );
    assert_eq!((status, &first["amount"]), (202, &json!(1200)), "{first}");
    let money = ledger(store, &order).await;
    assert_eq!(
        (&money["refunded"], &money["refundable"]),
        (&json!(1200), &json!(1200))
    );
    assert_eq!(
        app.stock("sku-3").await,
        stock + 1,
        "restocked once, by the receipt"
    );
    let shown = order_of(store, &order).await;
    assert_eq!(
        (&shown["status"], &shown["withdrawn"]),
        (&json!("DELIVERED"), &json!("12.00"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_receipt_racing_a_refund_of_the_same_unit_never_pays_it_twice() {
    for round in 0..3 {
        let app = TestApp::seeded().await.expect("app");
        let store = app.store.clone();
        let order = delivered(&store, "c5", &[("sku-3", 1)]).await;
        let id = approved_return(&store, "c5", &order, &[("sku-3", 1)]).await;
        let receiving = tokio::spawn({
            let (store, order, id) = (store.clone(), order.clone(), id.clone());
            async move {
                receive(
                    &store,
                    &order,
                    &id,
                    json!([{"sku": "sku-3", "received": 1}]),
                    true,
                )
                .await
                .0
            }
        });
        let refunding = tokio::spawn({
            let (store, order) = (store.clone(), order.clone());
            async move {
                let req = staff_refund(&order, "sku-3", "race");
                parts(dispatch(&store, req, functions::refund_order::handle).await).0
            }
        });
        let received = receiving.await.expect("task");
        let refunded = refunding.await.expect("task");
        assert_eq!(received, 201, "round {round}: the unit arrived either way");
        assert!([202, 409].contains(&refunded), "round {round}: {refunded}");
        let money = ledger(&store, &order).await;
        assert_eq!(
            money["refunded"], 1200,
            "round {round}: one unit's price, once: {money}"
        );
    }
}

#[tokio::test]
async fn what_a_receipt_refuses_is_a_problem_and_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let before = all_items(&app).await;
    for (order, id, lines, expected) in [
        // More than the return asked, damaged beyond what arrived, a line it does not name, a
        // line twice, nothing at all.
        (
            "o110",
            "rt_o110",
            json!([{"sku": "sku-2", "received": 2}]),
            400,
        ),
        (
            "o110",
            "rt_o110",
            json!([{"sku": "sku-2", "received": 1, "damaged": 2}]),
            400,
        ),
        (
            "o110",
            "rt_o110",
            json!([{"sku": "sku-7", "received": 1}]),
            400,
        ),
        (
            "o110",
            "rt_o110",
            json!([{"sku": "sku-2", "received": 1}, {"sku": "sku-2", "received": 1}]),
            400,
        ),
        ("o110", "rt_o110", json!([]), 400),
        // Not approved yet (rt_o106 is REQUESTED); no such return; no such order.
        (
            "o106",
            "rt_o106",
            json!([{"sku": "sku-6", "received": 1}]),
            409,
        ),
        (
            "o110",
            "rt_none",
            json!([{"sku": "sku-2", "received": 1}]),
            404,
        ),
        (
            "o404",
            "rt_o110",
            json!([{"sku": "sku-2", "received": 1}]),
            404,
        ),
    ] {
        let (status, problem) = receive(store, order, id, lines.clone(), true).await;
        assert_eq!(status, expected, "{order} {id} {lines}: {problem}");
    }
    // A customer records no receipt.
    let req = send_json(
        Who::Customer("c1"),
        "POST /orders/{orderId}/returns/{returnId}/receipt",
        "/orders/o110/returns/rt_o110/receipt",
        &[],
        r#"{"lines":[{"sku":"sku-2","received":1}],"refund":true}"#,
    );
    assert_eq!(
        parts(dispatch(store, req, functions::receive_return::handle).await).0,
        403
    );
    assert_eq!(all_items(&app).await, before, "nothing written");
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let stock = app.stock("sku-2").await;
    let req = from_event_file("../events/receive-return.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::receive_return::handle).await);
    assert_eq!(
        (status, body["returnId"].as_str(), body["status"].as_str()),
        (201, Some("rt_o110"), Some("RECEIVED")),
        "{body}"
    );
    assert_eq!(app.stock("sku-2").await, stock, "it arrived damaged");
}
