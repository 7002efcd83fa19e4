//! GET /orders/{orderId} through API Gateway events, against its own engine.

mod largest;

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, from_event_file, get, parts};
use local_engine::{LOCAL_TABLE, seed};
use serde_json::{Value, json};

const ROUTE: &str = "GET /orders/{orderId}";

async fn order(app: &TestApp, id: &str) -> (u16, String, Value) {
    parts(
        dispatch(
            &app.store,
            get(Who::Staff, ROUTE, &format!("/orders/{id}"), ""),
            functions::get_order::handle,
        )
        .await,
    )
}

#[tokio::test]
async fn the_header_and_line_items_come_from_one_query() {
    let app = TestApp::seeded().await.expect("app");
    app.requests.reset();
    let (status, ct, body) = order(&app, "o100").await;
    assert_eq!((status, ct.as_str()), (200, "application/json"));
    assert_eq!(
        body,
        json!({
            "orderId": "o100", "customerId": "c1", "placedAt": "2026-10-08T14:30:00Z",
            "status": "PLACED", "total": "39.90",
            "items": [{"sku": "sku-1", "quantity": 2, "price": "19.95"}]
        })
    );
    assert_eq!(
        app.requests.by_operation(),
        [("Query".to_owned(), 1)].into()
    );
}

#[tokio::test]
async fn unknown_orders_and_orders_without_a_header_are_404() {
    let app = TestApp::empty().await.expect("app");
    let (status, ct, _) = order(&app, "o404").await;
    assert_eq!((status, ct.as_str()), (404, "application/problem+json"));
    let o100 = seed::orders().remove(0);
    seed::write_all(
        &app.engine.client(),
        LOCAL_TABLE,
        seed::order_items(&o100).expect("items"),
    )
    .await
    .expect("written");
    assert_eq!(order(&app, "o100").await.0, 404);
    assert_eq!(order(&app, "o#1").await.0, 400);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/get-order.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_order::handle).await);
    assert_eq!(status, 200);
    assert_eq!(body["total"], "39.90");
}
