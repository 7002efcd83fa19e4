//! `GET /products/{sku}` through its handler: any signed-in caller reads a product with its
//! stock; an unknown SKU is a 404 and a caller without a token a 401.

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, catalog, from_event_file, parts};
use serde_json::json;

async fn product(app: &TestApp, who: Who<'_>, sku: &str) -> (u16, serde_json::Value) {
    let response = dispatch(
        &app.store,
        catalog::get_product(who, sku),
        functions::get_product::handle,
    )
    .await;
    let (status, _, body) = parts(response);
    (status, body)
}

#[tokio::test]
async fn a_signed_in_customer_reads_a_product_with_its_stock() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = product(&app, Who::Customer("c1"), "sku-1").await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"sku": "sku-1", "name": "Stoneware mug", "price": "19.95", "stock": 100})
    );
}

#[tokio::test]
async fn an_unknown_product_is_404_and_no_token_is_401() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = product(&app, Who::Customer("c1"), "nope").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["type"], "/problems/not-found");
    assert_eq!(product(&app, Who::Nobody, "sku-1").await.0, 401);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/get-product.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_product::handle).await);
    assert_eq!((status, &body["price"]), (200, &json!("19.95")));
}
