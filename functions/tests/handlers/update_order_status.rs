//! PATCH /orders/{orderId} through API Gateway events, against its own engine.

use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::testing::dispatch;
use local_engine::testing::{
    TestApp, Who, all_items, from_event_file, parts, send_json, source_design,
};
use local_engine::{LOCAL_TABLE, seed};
use serde_json::Value;
use shared::domain::status::OrderStatus;

const ROUTE: &str = "PATCH /orders/{orderId}";

async fn patch(app: &TestApp, order: &str, body: &str) -> (u16, String, Value) {
    let req = send_json(Who::Staff, ROUTE, &format!("/orders/{order}"), &[], body);
    parts(dispatch(&app.store, req, functions::update_order_status::handle).await)
}

fn status_body(status: &str) -> String {
    format!(r#"{{"status":"{status}"}}"#)
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// The status the header and the listing item hold, and the listing's GSI1PK.
async fn stored(app: &TestApp, order: &str) -> (String, String, String) {
    let client = app.engine.client();
    let header = client
        .get_item()
        .table_name(LOCAL_TABLE)
        .key("PK", s(&format!("ORDER#{order}")))
        .key("SK", s("HEADER"))
        .consistent_read(true)
        .send()
        .await
        .expect("get")
        .item
        .expect("header");
    let customer = header["customerId"].as_s().expect("customerId").clone();
    let placed_at = header["placedAt"].as_s().expect("placedAt").clone();
    let listing = client
        .get_item()
        .table_name(LOCAL_TABLE)
        .key("PK", s(&format!("CUSTOMER#{customer}")))
        .key("SK", s(&format!("ORDER#{placed_at}#{order}")))
        .consistent_read(true)
        .send()
        .await
        .expect("get")
        .item
        .expect("listing");
    (
        header["status"].as_s().expect("status").clone(),
        listing["status"].as_s().expect("status").clone(),
        listing["GSI1PK"].as_s().expect("GSI1PK").clone(),
    )
}

#[tokio::test]
async fn an_order_moves_placed_shipped_delivered_and_gsi1_follows() {
    let app = TestApp::seeded().await.expect("app");
    let (status, ct, body) = patch(&app, "o100", &status_body("SHIPPED")).await;
    assert_eq!((status, ct.as_str()), (200, "application/json"), "{body}");
    assert_eq!(body["status"], "SHIPPED");
    assert_eq!(body["total"], "39.90");
    assert_eq!(
        stored(&app, "o100").await,
        ("SHIPPED".into(), "SHIPPED".into(), "STATUS#SHIPPED".into())
    );
    // The source design's pattern 4 now finds it under SHIPPED, not PLACED.
    let shipped =
        source_design::orders_with_status(&app.engine.client(), OrderStatus::Shipped).await;
    assert!(shipped.iter().any(|i| i["orderId"] == s("o100")));

    let (status, _, _) = patch(&app, "o100", &status_body("DELIVERED")).await;
    assert_eq!(status, 200);
    let (status, ct, body) = patch(&app, "o100", &status_body("CANCELLED")).await;
    assert_eq!((status, ct.as_str()), (409, "application/problem+json"));
    assert_eq!(body["currentStatus"], "DELIVERED");
    assert_eq!(stored(&app, "o100").await.0, "DELIVERED");
}

#[tokio::test]
async fn only_placed_orders_can_be_cancelled() {
    let app = TestApp::seeded().await.expect("app");
    assert_eq!(patch(&app, "o100", &status_body("CANCELLED")).await.0, 200);
    for next in ["PLACED", "SHIPPED", "DELIVERED", "CANCELLED"] {
        let (status, _, body) = patch(&app, "o100", &status_body(next)).await;
        assert_eq!(status, 409, "{next}");
        assert_eq!(body["currentStatus"], "CANCELLED");
    }
}

#[tokio::test]
async fn bad_requests_are_4xx_and_change_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let before = all_items(&app).await;
    for (order, body, expected) in [
        ("o404", status_body("SHIPPED"), 404),
        ("o#1", status_body("SHIPPED"), 400),
        ("o100", status_body("shipped"), 400),
        ("o100", status_body("LOST"), 400),
        (
            "o100",
            r#"{"status":"SHIPPED","total":"0.01"}"#.to_owned(),
            400,
        ),
        ("o100", r#"{"status":1}"#.to_owned(), 400),
        ("o100", "{".to_owned(), 400),
        (
            "o100",
            format!(r#"{{"status":"{}"}}"#, "S".repeat(4096)),
            413,
        ),
    ] {
        let (status, ct, problem) = patch(&app, order, &body).await;
        assert_eq!(
            (status, ct.as_str()),
            (expected, "application/problem+json"),
            "{order} {body:.60}: {problem}"
        );
    }
    assert_eq!(all_items(&app).await, before);
}

/// Sends every body at once; returns the statuses and the 409s' currentStatus.
async fn race(app: &TestApp, order: &str, bodies: Vec<String>) -> Vec<(u16, Value)> {
    let tasks: Vec<_> = bodies
        .into_iter()
        .map(|body| {
            let store = app.store.clone();
            let path = format!("/orders/{order}");
            tokio::spawn(async move {
                let req = send_json(Who::Staff, ROUTE, &path, &[], &body);
                let (status, _, body) =
                    parts(dispatch(&store, req, functions::update_order_status::handle).await);
                (status, body)
            })
        })
        .collect();
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await.expect("task"));
    }
    results
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_racing_patches_make_exactly_one_transition_each() {
    let app = TestApp::seeded().await.expect("app");
    for next in ["SHIPPED", "DELIVERED"] {
        let results = race(&app, "o100", vec![status_body(next); 50]).await;
        let wins = results.iter().filter(|(status, _)| *status == 200).count();
        assert_eq!(wins, 1, "{next}: {results:?}");
        for (status, body) in &results {
            if *status != 200 {
                assert_eq!(*status, 409, "{body}");
                assert_eq!(body["currentStatus"], next);
            }
        }
        assert_eq!(
            stored(&app, "o100").await,
            (next.into(), next.into(), format!("STATUS#{next}"))
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn shipping_and_cancelling_at_once_leaves_one_winner_everywhere() {
    let app = TestApp::seeded().await.expect("app");
    let bodies = (0..50)
        .map(|i| status_body(if i % 2 == 0 { "SHIPPED" } else { "CANCELLED" }))
        .collect();
    let results = race(&app, "o100", bodies).await;
    let winners: Vec<_> = results.iter().filter(|(s, _)| *s == 200).collect();
    assert_eq!(winners.len(), 1, "{results:?}");
    let won = winners[0].1["status"].as_str().expect("status").to_owned();
    let (header, listing, gsi1pk) = stored(&app, "o100").await;
    assert_eq!(
        (header.as_str(), listing.as_str()),
        (won.as_str(), won.as_str())
    );
    assert_eq!(gsi1pk, format!("STATUS#{won}"));
}

#[tokio::test]
async fn an_order_without_a_header_is_not_found() {
    let app = TestApp::empty().await.expect("app");
    // Written by the source design's boto3 code alone: a listing and line items, no header.
    let order = seed::orders().remove(0);
    seed::write_all(
        &app.engine.client(),
        LOCAL_TABLE,
        seed::order_items(&order).expect("items"),
    )
    .await
    .expect("written");
    let (status, _, _) = patch(&app, "o100", &status_body("SHIPPED")).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/update-order-status.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::update_order_status::handle).await);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "SHIPPED");
}
