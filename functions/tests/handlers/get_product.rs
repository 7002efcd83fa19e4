//! `GET /products/{productId}` through its handler: a product with its variants in one Query;
//! drafts and archived products are 404s to customers, shown to staff; an unknown product is a
//! 404 and a caller without a token a 401.

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, from_event_file, parts};
use serde_json::json;

use crate::put_product::{product, put_tee};

#[tokio::test]
async fn a_customer_reads_a_product_with_its_variants_in_one_request() {
    let app = TestApp::seeded().await.expect("app");
    put_tee(&app, "PUBLISHED").await;
    app.requests.reset();
    let (status, body) = product(&app, Who::Customer("c1"), "tee").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(app.requests.total(), 1, "one Query of GSI3");
    assert_eq!(body["title"], "Plain tee");
    assert_eq!(body["description"], "Heavy cotton.\nCut straight.");
    assert_eq!(body["categoryIds"], json!(["textiles"]));
    let skus: Vec<&str> = body["variants"]
        .as_array()
        .expect("variants")
        .iter()
        .filter_map(|v| v["sku"].as_str())
        .collect();
    assert_eq!(
        skus,
        ["tee-s-red", "tee-s-blue", "tee-m-red", "tee-m-blue"],
        "as staff gave them"
    );
    assert_eq!(
        body["variants"][0],
        json!({
            "sku": "tee-s-red", "productId": "tee", "title": "Plain tee",
            "options": {"Size": "S", "Colour": "Red"}, "price": "18.00", "weightGrams": 180,
            "inStock": false
        }),
        "a customer sees whether it is in stock, not how many"
    );
}

#[tokio::test]
async fn drafts_and_archived_products_are_shown_to_staff_only() {
    let app = TestApp::seeded().await.expect("app");
    for status in ["DRAFT", "ARCHIVED"] {
        put_tee(&app, status).await;
        let (code, body) = product(&app, Who::Customer("c1"), "tee").await;
        assert_eq!(
            (code, &body["type"]),
            (404, &json!("/problems/not-found")),
            "{status}"
        );
        let (code, body) = product(&app, Who::Staff, "tee").await;
        assert_eq!((code, &body["status"]), (200, &json!(status)));
        assert_eq!(body["variants"][0]["status"], status);
    }
    put_tee(&app, "PUBLISHED").await;
    assert_eq!(product(&app, Who::Customer("c1"), "tee").await.0, 200);
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
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["variants"][0]["price"], "19.95");
}

/// `GET /storefront/products/{productId}`: no authorizer, so no claims, even when the caller
/// sent a token.
async fn storefront(app: &TestApp, product: &str) -> (u16, serde_json::Value) {
    let req = local_engine::testing::get(
        Who::Nobody,
        "GET /storefront/products/{productId}",
        &format!("/storefront/products/{product}"),
        "",
    );
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_product::handle).await);
    (status, body)
}

#[tokio::test]
async fn a_caller_without_a_token_sees_the_storefront_as_customers_do() {
    let app = TestApp::seeded().await.expect("app");
    for status in ["DRAFT", "ARCHIVED"] {
        put_tee(&app, status).await;
        let (code, body) = storefront(&app, "tee").await;
        assert_eq!(
            (code, &body["type"]),
            (404, &json!("/problems/not-found")),
            "{status}"
        );
    }
    put_tee(&app, "PUBLISHED").await;
    let (code, body) = storefront(&app, "tee").await;
    assert_eq!(code, 200, "{body}");
    let first = &body["variants"][0];
    assert_eq!(first["inStock"], false);
    assert!(
        first.get("stock").is_none() && first.get("status").is_none(),
        "no staff fields: {first}"
    );
    // The signed-in route still refuses a request without a token.
    assert_eq!(product(&app, Who::Nobody, "tee").await.0, 401);
}
