//! The cart's edits (PUT and DELETE of a line, DELETE of the cart) through API Gateway
//! events, against their own engine.

use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::LOCAL_TABLE;
use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, call, from_event_file, parts, send_json};
use serde_json::{Value, json};
use shared::domain::cart::MAX_CART_LINES;

const PUT: &str = "PUT /customers/{customerId}/cart/items/{sku}";
const REMOVE: &str = "DELETE /customers/{customerId}/cart/items/{sku}";
const CLEAR: &str = "DELETE /customers/{customerId}/cart";

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

async fn hold(app: &TestApp, customer: &str, sku: &str, body: &str) -> (u16, Value) {
    let path = format!("/customers/{customer}/cart/items/{sku}");
    let req = send_json(Who::Customer(customer), PUT, &path, &[], body);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::edit_cart::handle).await);
    (status, body)
}

async fn delete(app: &TestApp, route: &str, path: &str) -> u16 {
    let req = call(Who::Customer("c1"), route, path, "", &[], b"");
    parts(dispatch(&app.store, req, functions::edit_cart::handle).await).0
}

/// `count` products `<prefix>-00`, `<prefix>-01`... in the catalog, one in stock each: their SKUs.
async fn catalog(app: &TestApp, prefix: &str, count: usize) -> Vec<String> {
    let skus: Vec<String> = (0..count).map(|i| format!("{prefix}-{i:02}")).collect();
    let lines: Vec<String> = skus
        .iter()
        .map(|sku| format!(r#"{{"sku":"{sku}","quantity":1,"price":"1.00"}}"#))
        .collect();
    local_engine::testing::stock_catalog(
        &app.engine,
        &format!(r#"{{"items":[{}]}}"#, lines.join(",")),
    )
    .await;
    skus
}

/// The stored cart lines of `customer`: (SK, quantity, expiresAt).
async fn stored(app: &TestApp, customer: &str) -> Vec<(String, u64, u64)> {
    let out = app
        .engine
        .client()
        .query()
        .table_name(LOCAL_TABLE)
        .key_condition_expression("PK = :pk AND begins_with(SK, :cart)")
        .expression_attribute_values(":pk", AttributeValue::S(format!("CUSTOMER#{customer}")))
        .expression_attribute_values(":cart", AttributeValue::S("CART#".into()))
        .send()
        .await
        .expect("query");
    let number = |item: &std::collections::HashMap<String, AttributeValue>, name: &str| {
        item[name]
            .as_n()
            .expect("number")
            .parse::<u64>()
            .expect("whole")
    };
    out.items()
        .iter()
        .map(|item| {
            (
                item["SK"].as_s().expect("SK").clone(),
                number(item, "quantity"),
                number(item, "expiresAt"),
            )
        })
        .collect()
}

#[tokio::test]
async fn the_sample_events_hold_a_line_remove_it_and_empty_the_cart() {
    let app = TestApp::seeded().await.expect("app");
    let run = |file: &'static str| {
        let store = app.store.clone();
        async move {
            let req = from_event_file(&format!("../events/{file}")).expect("event");
            parts(dispatch(&store, req, functions::edit_cart::handle).await)
        }
    };
    let (status, _, body) = run("edit-cart.json").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"items": [{"sku": "sku-2", "quantity": 2}]}));
    assert_eq!(run("edit-cart-remove-line.json").await.0, 204);
    assert!(stored(&app, "c1").await.is_empty());
    run("edit-cart.json").await;
    assert_eq!(run("edit-cart-clear.json").await.0, 204);
    assert!(stored(&app, "c1").await.is_empty());
}

#[tokio::test]
async fn a_line_is_held_replaced_and_removed_by_zero_its_expiry_moving_each_time() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = hold(&app, "c1", "sku-1", r#"{"quantity":3}"#).await;
    assert_eq!(
        (status, body),
        (200, json!({"items": [{"sku": "sku-1", "quantity": 3}]}))
    );
    let (status, body) = hold(&app, "c1", "sku-3", r#"{"quantity":1}"#).await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"items": [{"sku": "sku-1", "quantity": 3}, {"sku": "sku-3", "quantity": 1}]})
    );
    let (status, body) = hold(&app, "c1", "sku-1", r#"{"quantity":5}"#).await;
    assert_eq!(status, 200);
    assert_eq!(body["items"][0], json!({"sku": "sku-1", "quantity": 5}));
    // CartTtlDays (30 by default) after the last change; the table's TTL attribute.
    for (sk, _, expires_at) in stored(&app, "c1").await {
        let expected = now() + 30 * 86_400;
        assert!(
            expires_at.abs_diff(expected) <= 5,
            "{sk}: {expires_at} vs {expected}"
        );
    }
    let (status, body) = hold(&app, "c1", "sku-1", r#"{"quantity":0}"#).await;
    assert_eq!(
        (status, body),
        (200, json!({"items": [{"sku": "sku-3", "quantity": 1}]}))
    );
    assert_eq!(stored(&app, "c1").await.len(), 1);
}

#[tokio::test]
async fn the_catalog_must_know_the_product_and_quantities_are_whole_and_bounded() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = hold(&app, "c1", "no-such-sku", r#"{"quantity":1}"#).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["type"], "/problems/unknown-product");
    assert_eq!(body["skus"], json!(["no-such-sku"]));
    for bad in [
        r#"{"quantity":-1}"#,
        r#"{"quantity":1.5}"#,
        r#"{"quantity":10001}"#,
        r#"{"quantity":"2"}"#,
        r#"{"quantity":1,"price":"1.00"}"#,
        "{}",
    ] {
        let (status, body) = hold(&app, "c1", "sku-1", bad).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    assert!(stored(&app, "c1").await.is_empty(), "nothing written");
}

/// A cart holds as many lines as one checkout transaction carries: 30.
#[tokio::test]
async fn a_thirty_first_line_is_refused_but_a_held_line_still_changes() {
    let app = TestApp::seeded().await.expect("app");
    assert_eq!(MAX_CART_LINES, 30);
    let skus = catalog(&app, "cart", 31).await;
    for sku in &skus[..30] {
        let (status, body) = hold(&app, "c1", sku, r#"{"quantity":1}"#).await;
        assert_eq!(status, 200, "{sku}: {body}");
    }
    let (status, body) = hold(&app, "c1", &skus[30], r#"{"quantity":1}"#).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["type"], "/problems/cart-full");
    let (status, body) = hold(&app, "c1", &skus[0], r#"{"quantity":4}"#).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["items"].as_array().map(Vec::len), Some(30));
    assert_eq!(stored(&app, "c1").await.len(), 30);
}

#[tokio::test]
async fn emptying_a_cart_removes_its_expired_lines_too_and_only_that_customers() {
    let app = TestApp::seeded().await.expect("app");
    hold(&app, "c1", "sku-1", r#"{"quantity":1}"#).await;
    hold(&app, "c3", "sku-1", r#"{"quantity":1}"#).await;
    app.engine
        .client()
        .put_item()
        .table_name(LOCAL_TABLE)
        .item("PK", AttributeValue::S("CUSTOMER#c1".into()))
        .item("SK", AttributeValue::S("CART#sku-2".into()))
        .item("quantity", AttributeValue::N("1".into()))
        .item("expiresAt", AttributeValue::N((now() - 60).to_string()))
        .send()
        .await
        .expect("put");
    assert_eq!(delete(&app, CLEAR, "/customers/c1/cart").await, 204);
    assert!(stored(&app, "c1").await.is_empty());
    assert_eq!(stored(&app, "c3").await.len(), 1);
    // Removing what is not there changes nothing, and says so the same way.
    assert_eq!(
        delete(&app, REMOVE, "/customers/c1/cart/items/sku-1").await,
        204
    );
    assert_eq!(delete(&app, CLEAR, "/customers/c1/cart").await, 204);
}

/// The review's case: a line short of full, then new lines PUT at once. Each edit saw room for one more,
/// and the old check-then-write made a cart of 41 (with 10) or 111 (with 80). The cap is now a
/// condition of the write: exactly one new line lands, every other edit is a 409.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn new_lines_put_at_once_never_take_the_cart_past_its_cap() {
    let app = TestApp::seeded().await.expect("app");
    // 29 held, 40 PUT at once, and one more never PUT (the race's winner is any of the 40).
    let skus = catalog(&app, "race", 70).await;
    for sku in &skus[..29] {
        let (status, body) = hold(&app, "c5", sku, r#"{"quantity":1}"#).await;
        assert_eq!(status, 200, "{sku}: {body}");
    }
    let edits = skus[29..69].iter().map(|sku| {
        let app = &app;
        async move { hold(app, "c5", sku, r#"{"quantity":1}"#).await }
    });
    let answers = futures_util::future::join_all(edits).await;
    let held = answers.iter().filter(|(status, _)| *status == 200).count();
    let full = answers
        .iter()
        .filter(|(status, body)| *status == 409 && body["type"] == "/problems/cart-full")
        .count();
    assert_eq!((held, full), (1, 39), "40 at once: {answers:?}");
    assert_eq!(stored(&app, "c5").await.len(), 30);
    // A held line still changes, and removing one makes room for exactly one more.
    let (status, body) = hold(&app, "c5", &skus[0], r#"{"quantity":3}"#).await;
    assert_eq!(status, 200, "{body}");
    let path = format!("/customers/c5/cart/items/{}", skus[1]);
    let req = call(Who::Customer("c5"), REMOVE, &path, "", &[], b"");
    assert_eq!(
        parts(dispatch(&app.store, req, functions::edit_cart::handle).await).0,
        204
    );
    let (status, body) = hold(&app, "c5", &skus[69], r#"{"quantity":1}"#).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(stored(&app, "c5").await.len(), 30);
}
