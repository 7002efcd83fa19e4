//! POST /orders/{orderId}/fulfilments through API Gateway events, against its own engine.
//! The sample order o104 is c1's, PLACED, with three lines: sku-1 x1, sku-4 x2, sku-7 x3.

use local_engine::testing::{
    TestApp, Who, all_items, dispatch, from_event_file, parts, send_json, ship, source_design,
};
use serde_json::{Value, json};
use shared::domain::status::OrderStatus;

async fn shipped(
    app: &TestApp,
    who: Who<'_>,
    order: &str,
    lines: &[(&str, u32)],
    tracking: &str,
) -> (u16, Value) {
    let (status, _, body) = parts(
        dispatch(
            &app.store,
            ship(who, order, lines, tracking),
            functions::ship_order::handle,
        )
        .await,
    );
    (status, body)
}

/// Where GSI1 lists `order` (the source design's access pattern 4), among these statuses.
async fn listed_under(app: &TestApp, order: &str) -> Vec<OrderStatus> {
    let mut found = Vec::new();
    for status in OrderStatus::ALL {
        let items = source_design::orders_with_status(&app.engine.client(), status).await;
        if items
            .iter()
            .any(|item| item["orderId"].as_s().is_ok_and(|id| id == order))
        {
            found.push(status);
        }
    }
    found
}

#[tokio::test]
async fn a_three_line_order_ships_in_two_parts_and_its_last_delivery_makes_it_delivered() {
    let app = TestApp::seeded().await.expect("app");
    let tracking = r#""carrier":"DHL","trackingNumber":"JD014","trackingUrl":"https://www.dhl.com/track?id=JD014""#;
    let (status, first) = shipped(
        &app,
        Who::Staff,
        "o104",
        &[("sku-4", 1), ("sku-1", 1)],
        tracking,
    )
    .await;
    assert_eq!(status, 201, "{first}");
    assert_eq!(first["status"], "SHIPPED");
    assert_eq!(
        first["lines"],
        json!([{"sku": "sku-1", "quantity": 1}, {"sku": "sku-4", "quantity": 1}]),
        "in SKU order"
    );
    assert_eq!(first["carrier"], "DHL");
    assert_eq!(first["trackingNumber"], "JD014");
    assert_eq!(app.status_of("o104").await, "PARTIALLY_SHIPPED");
    assert_eq!(
        listed_under(&app, "o104").await,
        [OrderStatus::PartiallyShipped]
    );

    let (status, second) = shipped(
        &app,
        Who::Staff,
        "o104",
        &[("sku-4", 1), ("sku-7", 3)],
        r#""carrier":"UPS","trackingNumber":"1Z9""#,
    )
    .await;
    assert_eq!(status, 201, "{second}");
    assert_eq!(app.status_of("o104").await, "SHIPPED");
    assert_eq!(listed_under(&app, "o104").await, [OrderStatus::Shipped]);

    // Nothing is left: a third is refused, naming what is left.
    let (status, refused) = shipped(&app, Who::Staff, "o104", &[("sku-1", 1)], "").await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["type"], "/problems/status-conflict");

    let second_id = second["fulfilmentId"].as_str().expect("id");
    let first_id = first["fulfilmentId"].as_str().expect("id");
    crate::flows::deliver(&app.store, "o104", second_id).await;
    assert_eq!(
        app.status_of("o104").await,
        "SHIPPED",
        "one of two delivered"
    );
    let delivered = crate::flows::deliver(&app.store, "o104", first_id).await;
    assert!(delivered["deliveredAt"].is_string(), "{delivered}");
    assert_eq!(app.status_of("o104").await, "DELIVERED");
    assert_eq!(listed_under(&app, "o104").await, [OrderStatus::Delivered]);

    // The order shows both, with their tracking (oldest first to the second: these two may
    // share one).
    let req = local_engine::testing::get(
        Who::Customer("c1"),
        "GET /orders/{orderId}",
        "/orders/o104",
        "",
    );
    let (status, _, order) = parts(dispatch(&app.store, req, functions::get_order::handle).await);
    assert_eq!(status, 200, "{order}");
    let fulfilments = order["fulfilments"].as_array().expect("fulfilments");
    assert_eq!(fulfilments.len(), 2);
    let second = fulfilments
        .iter()
        .find(|f| f["fulfilmentId"] != first_id)
        .expect("the second");
    assert_eq!(second["carrier"], "UPS");
    assert!(fulfilments.iter().all(|f| f["status"] == "DELIVERED"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_two_fulfilments_of_the_last_units_at_once_one_is_a_201_and_the_other_a_409() {
    let app = TestApp::seeded().await.expect("app");
    for round in 0..5 {
        let app_store = app.store.clone();
        // o100: sku-1 x2, both asked for twice at once.
        let tasks: Vec<_> = (0..2)
            .map(|_| {
                let store = app_store.clone();
                let order = if round == 0 { "o100" } else { "o104" };
                let lines: &'static [(&'static str, u32)] = if round == 0 {
                    &[("sku-1", 2)]
                } else {
                    &[("sku-7", 3)]
                };
                tokio::spawn(async move {
                    let req = ship(Who::Staff, order, lines, "");
                    let (status, _, body) =
                        parts(dispatch(&store, req, functions::ship_order::handle).await);
                    (status, body)
                })
            })
            .collect();
        let mut statuses = Vec::new();
        for task in tasks {
            let (status, body) = task.await.expect("task");
            if status == 409 {
                assert!(
                    body["type"] == "/problems/lines-refused"
                        || body["type"] == "/problems/status-conflict",
                    "{body}"
                );
            }
            statuses.push(status);
        }
        statuses.sort_unstable();
        if round <= 1 {
            assert_eq!(statuses, [201, 409], "round {round}");
        } else {
            assert_eq!(statuses, [409, 409], "round {round}: nothing left of sku-7");
        }
    }
    let fulfilments =
        |items: &[std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>],
         order: &str| {
            items
                .iter()
                .filter(|item| {
                    item["PK"]
                        .as_s()
                        .is_ok_and(|pk| pk == &format!("ORDER#{order}"))
                        && item["SK"]
                            .as_s()
                            .is_ok_and(|sk| sk.starts_with("FULFILMENT#"))
                })
                .count()
        };
    let items = all_items(&app).await;
    assert_eq!(fulfilments(&items, "o100"), 1);
    assert_eq!(fulfilments(&items, "o104"), 1);
    assert_eq!(app.status_of("o100").await, "SHIPPED");
    assert_eq!(app.status_of("o104").await, "PARTIALLY_SHIPPED");
}

#[tokio::test]
async fn a_retried_request_ships_once_and_its_key_names_one_request() {
    let app = TestApp::seeded().await.expect("app");
    let send = |body: &str| {
        send_json(
            Who::Staff,
            "POST /orders/{orderId}/fulfilments",
            "/orders/o104/fulfilments",
            &[("idempotency-key", "ship-o104-1")],
            body,
        )
    };
    let body = r#"{"lines":[{"sku":"sku-7","quantity":1}],"carrier":"DHL"}"#;
    let (status, _, first) =
        parts(dispatch(&app.store, send(body), functions::ship_order::handle).await);
    assert_eq!(status, 201, "{first}");
    let (status, _, again) =
        parts(dispatch(&app.store, send(body), functions::ship_order::handle).await);
    assert_eq!((status, &again), (201, &first), "the same fulfilment");
    let other = r#"{"lines":[{"sku":"sku-7","quantity":2}],"carrier":"DHL"}"#;
    let (status, _, reused) =
        parts(dispatch(&app.store, send(other), functions::ship_order::handle).await);
    assert_eq!(status, 422, "{reused}");
    let req = local_engine::testing::get(Who::Staff, "GET /orders/{orderId}", "/orders/o104", "");
    let (_, _, order) = parts(dispatch(&app.store, req, functions::get_order::handle).await);
    assert_eq!(order["fulfilments"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn what_cannot_ship_is_a_problem_and_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let before = all_items(&app).await;
    // o103 is CANCELLED, o101 SHIPPED (all of it, in the sample data's fulfilment).
    for (order, lines, tracking, expected, kind) in [
        ("o104", vec![("sku-7", 4)], "", 409, "lines-refused"),
        ("o104", vec![("sku-2", 1)], "", 400, "invalid-request"),
        ("o104", vec![("sku-7", 0)], "", 400, "invalid-request"),
        (
            "o104",
            vec![("sku-7", 1), ("sku-7", 1)],
            "",
            400,
            "invalid-request",
        ),
        (
            "o104",
            vec![("sku-7", 1)],
            r#""trackingUrl":"javascript:alert(1)""#,
            400,
            "invalid-request",
        ),
        (
            "o104",
            vec![("sku-7", 1)],
            r#""carrier":"DHL\u202e""#,
            400,
            "invalid-request",
        ),
        (
            "o104",
            vec![("sku-7", 1)],
            r#""weight":3"#,
            400,
            "invalid-request",
        ),
        ("o103", vec![("sku-1", 1)], "", 409, "status-conflict"),
        ("o101", vec![("sku-1", 1)], "", 409, "status-conflict"),
        ("o404", vec![("sku-1", 1)], "", 404, "not-found"),
    ] {
        let (status, body) = shipped(&app, Who::Staff, order, &lines, tracking).await;
        assert_eq!(
            (status, body["type"].as_str()),
            (expected, Some(format!("/problems/{kind}").as_str())),
            "{order} {lines:?} {tracking}: {body}"
        );
    }
    // A customer may not ship, not even their own order.
    let (status, body) = shipped(&app, Who::Customer("c1"), "o104", &[("sku-7", 1)], "").await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(all_items(&app).await, before, "nothing written");
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/ship-order.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::ship_order::handle).await);
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["lines"], json!([{"sku": "sku-1", "quantity": 1}]));
    assert_eq!(app.status_of("o100").await, "PARTIALLY_SHIPPED");
}

#[tokio::test]
async fn a_shipment_without_an_idempotency_key_is_refused_and_ships_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let before = all_items(&app).await;
    // A retry of a keyless POST could not be told from a second parcel: the key is required.
    let req = send_json(
        Who::Staff,
        "POST /orders/{orderId}/fulfilments",
        "/orders/o104/fulfilments",
        &[],
        r#"{"lines":[{"sku":"sku-1","quantity":1}]}"#,
    );
    let (status, _, problem) =
        parts(dispatch(&app.store, req, functions::ship_order::handle).await);
    assert_eq!(status, 400, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.contains("Idempotency-Key is required")),
        "{problem}"
    );
    assert_eq!(all_items(&app).await, before, "nothing written");
}
