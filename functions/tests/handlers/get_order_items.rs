//! GET /orders/{orderId}/items through API Gateway events, against its own engine.

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, from_event_file, get, parts};
use local_engine::{LOCAL_TABLE, seed};
use serde_json::{Value, json};

const ROUTE: &str = "GET /orders/{orderId}/items";

async fn items(app: &TestApp, order: &str, query: &str) -> (u16, String, Value) {
    let req = get(Who::Staff, ROUTE, &format!("/orders/{order}/items"), query);
    parts(dispatch(&app.store, req, functions::get_order_items::handle).await)
}

#[tokio::test]
async fn the_source_designs_line_item_is_served_with_exact_money() {
    let app = TestApp::seeded().await.expect("app");
    let (status, content_type, body) = items(&app, "o100", "").await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    assert_eq!(
        body,
        json!({"items": [{"sku": "sku-1", "quantity": 2, "price": "19.95"}], "nextCursor": null})
    );
}

#[tokio::test]
async fn line_items_page_in_sku_order_with_one_query_each() {
    let app = TestApp::empty().await.expect("app");
    let order = seed::SampleOrder {
        order_id: "o9".into(),
        customer_id: "c1".into(),
        placed_at: "2026-10-08T14:30:00Z".into(),
        status: shared::domain::status::OrderStatus::Placed,
        lines: (0..12)
            .map(|n| (format!("sku-{n:02}"), 1, "0.10".into()))
            .collect(),
    };
    seed::write_all(
        &app.engine.client(),
        LOCAL_TABLE,
        seed::order_items(&order).expect("items"),
    )
    .await
    .expect("written");
    app.requests.reset();
    let mut skus = Vec::new();
    let mut query = "limit=5".to_owned();
    let mut pages = 0;
    loop {
        let (status, _, body) = items(&app, "o9", &query).await;
        assert_eq!(status, 200);
        pages += 1;
        for line in body["items"].as_array().expect("items") {
            assert_eq!(line["price"], "0.10");
            skus.push(line["sku"].as_str().expect("sku").to_owned());
        }
        match body["nextCursor"].as_str() {
            Some(cursor) => query = format!("limit=5&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(
        skus,
        (0..12).map(|n| format!("sku-{n:02}")).collect::<Vec<_>>()
    );
    assert_eq!(
        app.requests.by_operation(),
        [("Query".to_owned(), 3)].into()
    );
}

#[tokio::test]
async fn a_cursor_of_another_order_is_a_400() {
    let app = TestApp::seeded().await.expect("app");
    // o101 has three line items.
    let (_, _, body) = items(&app, "o101", "limit=1").await;
    let cursor = body["nextCursor"].as_str().expect("cursor").to_owned();
    let (status, ct, _) = items(&app, "o100", &format!("cursor={cursor}")).await;
    assert_eq!((status, ct.as_str()), (400, "application/problem+json"));
    // Edited: only a key the store writes in this order's partition is a position.
    let long = format!("ITEM#{}", "a".repeat(1100));
    for sk in ["ITEM#sku 1", "ITEM#", long.as_str(), "ITEMS#sku-1"] {
        let cursor = local_engine::testing::forged_cursor(
            Who::Customer("c1"),
            &[("PK", "ORDER#o101"), ("SK", sk)],
        );
        let (status, _, body) = items(&app, "o101", &format!("cursor={cursor}")).await;
        assert_eq!(status, 400, "{sk}: {body}");
    }
}

#[tokio::test]
async fn an_order_without_items_is_an_empty_list_and_bad_ids_are_400() {
    let app = TestApp::seeded().await.expect("app");
    let (status, _, body) = items(&app, "o1", "").await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"items": [], "nextCursor": null}));
    for bad in ["o#1", "o.1", ""] {
        let (status, _, _) = items(&app, bad, "").await;
        assert_eq!(status, 400, "{bad:?}");
    }
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/get-order-items.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::get_order_items::handle).await);
    assert_eq!(status, 200);
    assert_eq!(body["items"][0]["sku"], "sku-1");
    assert_eq!(body["items"][0]["price"], "19.95");
}
