//! GET /orders?status= through API Gateway events, against its own engine (GSI1).

use local_engine::seed;
use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, from_event_file, get, order_ids, parts};
use serde_json::Value;
use shared::domain::status::OrderStatus;

const ROUTE: &str = "GET /orders";

async fn list(app: &TestApp, query: &str) -> (u16, String, Value) {
    parts(
        dispatch(
            &app.store,
            get(Who::Staff, ROUTE, "/orders", query),
            functions::list_orders_by_status::handle,
        )
        .await,
    )
}

fn expected_oldest_first(status: OrderStatus) -> Vec<String> {
    let mut orders: Vec<_> = seed::orders()
        .into_iter()
        .filter(|o| o.status == status)
        .collect();
    orders.sort_by(|a, b| a.placed_at.cmp(&b.placed_at));
    orders.into_iter().map(|o| o.order_id).collect()
}

#[tokio::test]
async fn every_status_lists_its_orders_oldest_first_across_pages() {
    let app = TestApp::seeded().await.expect("app");
    for status in OrderStatus::ALL {
        app.requests.reset();
        let mut ids = Vec::new();
        let mut query = format!("status={status}&limit=4");
        let mut pages = 0;
        loop {
            let (code, ct, body) = list(&app, &query).await;
            assert_eq!((code, ct.as_str()), (200, "application/json"), "{body}");
            pages += 1;
            for order in body["items"].as_array().expect("items") {
                assert_eq!(order["status"], status.as_str());
                assert!(order["customerId"].is_string());
                assert!(order["total"].as_str().expect("total").contains('.'));
                ids.push(order["orderId"].as_str().expect("id").to_owned());
            }
            match body["nextCursor"].as_str() {
                Some(cursor) => query = format!("status={status}&limit=4&cursor={cursor}"),
                None => break,
            }
        }
        assert_eq!(ids, expected_oldest_first(status), "{status}");
        assert_eq!(
            app.requests.by_operation(),
            [("Query".to_owned(), pages)].into(),
            "one Query per page"
        );
    }
}

#[tokio::test]
async fn the_source_designs_order_is_served_with_its_customer() {
    let app = TestApp::seeded().await.expect("app");
    let (_, _, body) = list(&app, "status=PLACED&limit=100").await;
    let o100 = body["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|o| o["orderId"] == "o100")
        .expect("o100")
        .clone();
    assert_eq!(
        o100,
        serde_json::json!({"orderId": "o100", "customerId": "c1", "placedAt": "2026-10-08T14:30:00Z", "status": "PLACED", "total": "39.90"})
    );
}

#[tokio::test]
async fn a_cursor_of_another_status_is_a_400() {
    let app = TestApp::seeded().await.expect("app");
    let (_, _, body) = list(&app, "status=PLACED&limit=1").await;
    let cursor = body["nextCursor"].as_str().expect("cursor").to_owned();
    let (status, ct, _) = list(&app, &format!("status=SHIPPED&cursor={cursor}")).await;
    assert_eq!((status, ct.as_str()), (400, "application/problem+json"));
}

#[tokio::test]
async fn a_shard_position_is_taken_only_as_the_store_wrote_it() {
    let app = TestApp::seeded().await.expect("app");
    let oversized = local_engine::testing::oversized_order_sk();
    let fraction = "ORDER#2026-10-08T14:30:00.000Z#o100";
    app.requests.reset();
    for (why, gsi1sk, pk, sk) in [
        (
            "a time spelled otherwise",
            "2026-10-08T14:30:00Z",
            "CUSTOMER#c1",
            fraction,
        ),
        (
            "the index key spelled otherwise",
            "2026-10-08T14:30:00.000Z",
            "CUSTOMER#c1",
            "ORDER#2026-10-08T14:30:00Z#o100",
        ),
        (
            "an oversized key",
            "2026-10-08T14:30:00Z",
            "CUSTOMER#c1",
            oversized.as_str(),
        ),
        (
            "not a customer's partition",
            "2026-10-08T14:30:00Z",
            "CUSTOMER#c 1",
            "ORDER#2026-10-08T14:30:00Z#o100",
        ),
    ] {
        let cursor = local_engine::testing::forged_cursor(
            Who::Staff,
            &[
                ("status", "PLACED"),
                ("0.GSI1SK", gsi1sk),
                ("0.PK", pk),
                ("0.SK", sk),
            ],
        );
        let (status, _, body) = list(&app, &format!("status=PLACED&cursor={cursor}")).await;
        assert_eq!(status, 400, "{why}: {body}");
    }
    assert_eq!(app.requests.total(), 0, "refused before any request");
}

#[tokio::test]
async fn a_missing_or_unknown_status_is_a_400() {
    let app = TestApp::seeded().await.expect("app");
    app.requests.reset();
    for query in [
        "",
        "status=",
        "status=placed",
        "status=LOST",
        "status=PLACED&limit=500",
    ] {
        let (status, ct, body) = list(&app, query).await;
        assert_eq!(
            (status, ct.as_str()),
            (400, "application/problem+json"),
            "{query}"
        );
        assert!(body["detail"].is_string());
    }
    assert_eq!(app.requests.total(), 0, "nothing invalid reaches the table");
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/list-orders-by-status.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::list_orders_by_status::handle).await);
    assert_eq!(status, 200);
    let ids = order_ids(&body);
    assert_eq!(ids, expected_oldest_first(OrderStatus::Placed)[..10]);
}
