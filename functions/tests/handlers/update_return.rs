//! PATCH /orders/{orderId}/returns/{returnId} through API Gateway events, against its own
//! engine. The sample data's rt_o106 is a REQUESTED return of c1's DELIVERED o106 (one sku-6);
//! rt_o110 an APPROVED one of c1's o110 (one sku-2).

use local_engine::testing::returns::set;
use local_engine::testing::{TestApp, Who, all_items, dispatch, from_event_file, parts};
use serde_json::Value;
use shared::Store;

async fn moved(store: &Store, who: Who<'_>, order: &str, id: &str, to: &str) -> (u16, Value) {
    let (status, _, body) = parts(
        dispatch(
            store,
            set(who, order, id, to),
            functions::update_return::handle,
        )
        .await,
    );
    (status, body)
}

#[tokio::test]
async fn staff_decide_and_the_customer_cancels_each_only_their_own_moves() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    // The customer may not approve their own return; staff may not cancel the customer's.
    let (status, problem) = moved(store, Who::Customer("c1"), "o106", "rt_o106", "APPROVED").await;
    assert_eq!(
        (status, problem["type"].as_str()),
        (403, Some("/problems/forbidden")),
        "{problem}"
    );
    assert_eq!(
        moved(store, Who::Staff, "o106", "rt_o106", "CANCELED")
            .await
            .0,
        403
    );
    // Another customer does not see the order.
    assert_eq!(
        moved(store, Who::Customer("c2"), "o106", "rt_o106", "CANCELED")
            .await
            .0,
        404
    );
    let (status, approved) = moved(store, Who::Staff, "o106", "rt_o106", "APPROVED").await;
    assert_eq!(
        (status, approved["status"].as_str()),
        (200, Some("APPROVED")),
        "{approved}"
    );
    // The same move again: as it stands, nothing more written.
    let before = all_items(&app).await;
    let (status, again) = moved(store, Who::Staff, "o106", "rt_o106", "APPROVED").await;
    assert_eq!((status, &again), (200, &approved));
    assert_eq!(all_items(&app).await, before);
    // Decided: it cannot be declined now; its customer may still cancel it before receipt.
    assert_eq!(
        moved(store, Who::Staff, "o106", "rt_o106", "DECLINED")
            .await
            .0,
        409
    );
    let (status, canceled) = moved(store, Who::Customer("c1"), "o106", "rt_o106", "CANCELED").await;
    assert_eq!(
        (status, canceled["status"].as_str()),
        (200, Some("CANCELED")),
        "{canceled}"
    );
    assert_eq!(
        moved(store, Who::Staff, "o106", "rt_o106", "APPROVED")
            .await
            .0,
        409,
        "states only move forward"
    );
}

#[tokio::test]
async fn what_a_move_refuses_is_a_problem_and_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let before = all_items(&app).await;
    for (order, id, to, expected) in [
        // Receipt is its own request; SHIPPED is no return's status.
        ("o106", "rt_o106", "RECEIVED", 409),
        ("o106", "rt_o106", "REFUNDED", 409),
        ("o106", "rt_o106", "SHIPPED", 400),
        ("o106", "rt_none", "APPROVED", 404),
        ("o404", "rt_o106", "APPROVED", 404),
        // rt_o110 is APPROVED already: it cannot be declined.
        ("o110", "rt_o110", "DECLINED", 409),
    ] {
        let (status, problem) = moved(store, Who::Staff, order, id, to).await;
        assert_eq!(status, expected, "{order} {id} {to}: {problem}");
    }
    assert_eq!(all_items(&app).await, before, "nothing written");
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/update-return.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::update_return::handle).await);
    assert_eq!(
        (status, body["returnId"].as_str(), body["status"].as_str()),
        (200, Some("rt_o106"), Some("APPROVED")),
        "{body}"
    );
}
