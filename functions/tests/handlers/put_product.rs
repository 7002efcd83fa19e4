//! `PUT /products/{sku}` through its handler: staff create and replace products (a replacement
//! keeps the stock); customers and callers without a token change nothing; bad bodies are 400s.

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, catalog, from_event_file, parts};
use serde_json::{Value, json};

async fn put(app: &TestApp, who: Who<'_>, sku: &str, body: &str) -> (u16, Value) {
    let req = catalog::put_product(who, sku, body);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::put_product::handle).await);
    (status, body)
}

async fn product(app: &TestApp, sku: &str) -> (u16, Value) {
    let req = catalog::get_product(Who::Customer("c1"), sku);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_product::handle).await);
    (status, body)
}

#[tokio::test]
async fn staff_create_and_replace_products_and_a_replacement_keeps_the_stock() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = put(
        &app,
        Who::Staff,
        "mug-2",
        r#"{"name":"Tall mug","price":"21.50"}"#,
    )
    .await;
    assert_eq!(
        (status, body),
        (
            201,
            json!({"sku": "mug-2", "name": "Tall mug", "price": "21.50", "stock": 0})
        )
    );
    let stocked = catalog::adjust_stock(Who::Staff, "mug-2", 7);
    assert_eq!(
        parts(dispatch(&app.store, stocked, functions::adjust_stock::handle).await).0,
        200
    );
    let (status, body) = put(
        &app,
        Who::Admin,
        "mug-2",
        r#"{"name":"Tall mug, blue","price":"22.00"}"#,
    )
    .await;
    assert_eq!(status, 200, "a replacement: {body}");
    assert_eq!(body["stock"], 7, "a replacement keeps the stock");
    assert_eq!(product(&app, "mug-2").await.1["price"], "22.00");
}

#[tokio::test]
async fn customers_and_callers_without_a_token_change_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let body = r#"{"name":"Mine","price":"0.01"}"#;
    assert_eq!(put(&app, Who::Customer("c1"), "sku-1", body).await.0, 403);
    assert_eq!(put(&app, Who::Nobody, "sku-1", body).await.0, 401);
    assert_eq!(product(&app, "sku-1").await.1["price"], "19.95");
}

#[tokio::test]
async fn a_bad_body_is_a_400_and_creates_nothing() {
    let app = TestApp::seeded().await.expect("app");
    for bad in [
        r#"{"name":"","price":"1.00"}"#,
        r#"{"name":"Mug","price":"0"}"#,
        r#"{"name":"Mug","price":1.5}"#,
        r#"{"name":"Mug","price":"1.00","stock":5}"#,
    ] {
        assert_eq!(put(&app, Who::Staff, "mug-3", bad).await.0, 400, "{bad}");
    }
    assert_eq!(product(&app, "mug-3").await.0, 404);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/put-product.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::put_product::handle).await);
    assert_eq!((status, &body["stock"]), (201, &json!(0)), "{body}");
}
