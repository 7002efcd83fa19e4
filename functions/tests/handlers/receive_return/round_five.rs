//! Round five of the review, the returns' part: an order's returns bounded, so a customer
//! asking and cancelling in a loop can neither make their returns vanish from the order nor
//! claim more than was delivered; and stock that grows only for units that come back.

use local_engine::testing::returns::{list, request, set};
use shared::domain::returns::MAX_RETURNS_PER_ORDER;

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn returns_asked_and_cancelled_in_a_loop_stop_at_the_cap_and_all_stay_in_the_order() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let order = delivered(store, "c6", &[("sku-3", 2)]).await;
    for n in 0..MAX_RETURNS_PER_ORDER {
        let req = request(Who::Customer("c6"), &order, "", &[("sku-3", 2)]);
        let (status, _, asked) =
            parts(dispatch(store, req, functions::request_return::handle).await);
        assert_eq!(status, 201, "return {n}: {asked}");
        let id = asked["returnId"].as_str().expect("id");
        let req = set(Who::Customer("c6"), &order, id, "CANCELED");
        let (status, _, body) = parts(dispatch(store, req, functions::update_return::handle).await);
        assert_eq!(status, 200, "return {n}: {body}");
    }
    let before = all_items(&app).await;
    let req = request(Who::Customer("c6"), &order, "", &[("sku-3", 2)]);
    let (status, _, problem) = parts(dispatch(store, req, functions::request_return::handle).await);
    assert_eq!(
        (status, problem["type"].as_str()),
        (409, Some("/problems/cap-reached")),
        "{problem}"
    );
    assert_eq!(all_items(&app).await, before, "nothing written");
    // Every return is still in the order, each canceled; none claims a unit.
    let shown = order_of(store, &order).await;
    let returns = shown["returns"].as_array().expect("returns");
    assert_eq!(returns.len(), MAX_RETURNS_PER_ORDER, "{shown}");
    assert!(returns.iter().all(|r| r["status"] == "CANCELED"), "{shown}");
    let (status, _, open) = parts(
        dispatch(
            store,
            list("REQUESTED", "&limit=100"),
            functions::list_returns::handle,
        )
        .await,
    );
    assert_eq!(status, 200, "{open}");
    assert!(
        !open["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|r| r["orderId"] == json!(order)),
        "no open return of the order: {open}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_units_that_come_back_go_back_into_stock() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let order = delivered(store, "c5", &[("sku-5", 2)]).await;
    let stock = app.stock("sku-5").await;
    // A refund of a delivered unit gives money, not stock: the customer still has it.
    let restocking = send_json(
        Who::Staff,
        "POST /orders/{orderId}/refunds",
        &format!("/orders/{order}/refunds"),
        &[("idempotency-key", "r5-3a")],
        r#"{"lines":[{"sku":"sku-5","quantity":1}],"reason":"late","restock":true}"#,
    );
    let (status, _, problem) =
        parts(dispatch(store, restocking, functions::refund_order::handle).await);
    assert_eq!(
        (status, problem["type"].as_str()),
        (409, Some("/problems/lines-refused")),
        "{problem}"
    );
    let (status, _, refunded) = parts(
        dispatch(
            store,
            staff_refund(&order, "sku-5", "r5-3b"),
            functions::refund_order::handle,
        )
        .await,
    );
    assert_eq!(status, 202, "{refunded}");
    assert_eq!(app.stock("sku-5").await, stock, "money back, no stock");
    // Both come back, one damaged: one unit is back on the shelf.
    let id = approved_return(store, "c5", &order, &[("sku-5", 2)]).await;
    let arrived = json!([{"sku": "sku-5", "received": 2, "damaged": 1}]);
    let (status, received) = receive(store, &order, &id, arrived, true).await;
    assert_eq!(status, 201, "{received}");
    assert_eq!(
        app.stock("sku-5").await,
        stock + 1,
        "the undamaged unit only"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_return_whose_refund_failed_shows_it() {
    use shared::domain::access::{Caller, STAFF_GROUP};
    use shared::domain::ids::OrderId;
    use shared::domain::provider_refund::Settled;
    use shared::domain::refund::RefundStatus;
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let order = delivered(store, "c4", &[("sku-3", 1)]).await;
    let id = approved_return(store, "c4", &order, &[("sku-3", 1)]).await;
    let arrived = json!([{"sku": "sku-3", "received": 1}]);
    let (status, received) = receive(store, &order, &id, arrived, true).await;
    assert_eq!(status, 201, "{received}");
    assert_eq!(
        order_of(store, &order).await["returns"][0]["refundStatus"],
        "REQUESTED"
    );
    // The provider refuses it, as the payer records a refusal.
    let staff = Caller::new("checker", [STAFF_GROUP], [], false);
    let details = app
        .direct_store()
        .get_order(&OrderId::parse(&order).expect("id"), &staff)
        .await
        .expect("read")
        .expect("order");
    let refused = Settled {
        provider_refund_id: None,
        status: RefundStatus::Failed,
        failure: Some("card_declined".into()),
    };
    let settled = store
        .settle_refund(&details.money.refunds[0], &refused, None)
        .await
        .expect("settle");
    assert!(settled);
    let shown = order_of(store, &order).await;
    assert_eq!(
        (
            &shown["returns"][0]["status"],
            &shown["returns"][0]["refundStatus"]
        ),
        (&json!("REFUNDED"), &json!("FAILED")),
        "{shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_notes_stay_with_staff() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let order = delivered(store, "c3", &[("sku-3", 2)]).await;
    // A refund whose reason the customer reads, with a note they never do.
    let refunding = send_json(
        Who::Staff,
        "POST /orders/{orderId}/refunds",
        &format!("/orders/{order}/refunds"),
        &[("idempotency-key", "r5-note")],
        r#"{"amount":100,"reason":"late delivery","note":"carrier lost it twice; goodwill"}"#,
    );
    let (status, _, refunded) =
        parts(dispatch(store, refunding, functions::refund_order::handle).await);
    assert_eq!(
        (status, &refunded["note"]),
        (202, &json!("carrier lost it twice; goodwill"))
    );
    // A return approved with a note.
    let req = request(Who::Customer("c3"), &order, "r5-note-ret", &[("sku-3", 1)]);
    let (status, _, asked) = parts(dispatch(store, req, functions::request_return::handle).await);
    assert_eq!(status, 201, "{asked}");
    let id = asked["returnId"].as_str().expect("id").to_owned();
    let approving = send_json(
        Who::Staff,
        "PATCH /orders/{orderId}/returns/{returnId}",
        &format!("/orders/{order}/returns/{id}"),
        &[],
        r#"{"status":"APPROVED","note":"regular customer: no questions"}"#,
    );
    let (status, _, approved) =
        parts(dispatch(store, approving, functions::update_return::handle).await);
    assert_eq!(
        (status, &approved["note"]),
        (200, &json!("regular customer: no questions"))
    );

    // Staff read both notes; the customer reads neither, on any route.
    let staff_view = order_of(store, &order).await;
    assert_eq!(
        staff_view["returns"][0]["note"],
        "regular customer: no questions"
    );
    let as_customer = |route: &'static str, path: String| async move {
        let req = get(Who::Customer("c3"), route, &path, "");
        let (status, _, body) = parts(dispatch(store, req, functions::get_order::handle).await);
        assert_eq!(status, 200, "{body}");
        body
    };
    let shown = as_customer("GET /orders/{orderId}", format!("/orders/{order}")).await;
    let ledger = as_customer(
        "GET /orders/{orderId}/payments",
        format!("/orders/{order}/payments"),
    )
    .await;
    for body in [&shown, &ledger] {
        assert!(!body.to_string().contains("\"note\""), "{body}");
    }
    assert_eq!(
        ledger["refunds"][0]["reason"], "late delivery",
        "the reason is theirs"
    );
    // Their own request again (a retry) answers the return without the note staff added since.
    let req = request(Who::Customer("c3"), &order, "r5-note-ret", &[("sku-3", 1)]);
    let (status, _, again) = parts(dispatch(store, req, functions::request_return::handle).await);
    assert_eq!(
        (status, &again["status"]),
        (201, &json!("APPROVED")),
        "{again}"
    );
    assert!(again.get("note").is_none(), "{again}");
    let staff_ledger = crate::flows::ledger(store, &order).await;
    assert_eq!(
        staff_ledger["refunds"][0]["note"],
        "carrier lost it twice; goodwill"
    );
    // The customer's own move answers without it, and they write none.
    let req = set(Who::Customer("c3"), &order, &id, "CANCELED");
    let (status, _, canceled) = parts(dispatch(store, req, functions::update_return::handle).await);
    assert_eq!(status, 200, "{canceled}");
    assert!(canceled.get("note").is_none(), "{canceled}");
    let writing = send_json(
        Who::Customer("c3"),
        "PATCH /orders/{orderId}/returns/{returnId}",
        &format!("/orders/{order}/returns/{id}"),
        &[],
        r#"{"status":"CANCELED","note":"mine"}"#,
    );
    assert_eq!(
        parts(dispatch(store, writing, functions::update_return::handle).await).0,
        403
    );
}
