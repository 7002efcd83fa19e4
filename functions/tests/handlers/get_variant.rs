//! `GET /variants/{sku}` through its handler: any signed-in caller reads a variant (customers
//! whether it is in stock, staff how many); a variant of a product not published is a 404 to
//! customers; an unknown SKU is a 404 and a caller without a token a 401.

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, catalog, from_event_file, parts};
use serde_json::{Value, json};

use crate::put_product::put_tee;

async fn variant(app: &TestApp, who: Who<'_>, sku: &str) -> (u16, Value) {
    let response = dispatch(
        &app.store,
        catalog::get_variant(who, sku),
        functions::get_variant::handle,
    )
    .await;
    let (status, _, body) = parts(response);
    (status, body)
}

#[tokio::test]
async fn a_customer_reads_whether_it_is_in_stock_and_staff_how_many() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = variant(&app, Who::Customer("c1"), "sku-1").await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({
            "sku": "sku-1", "productId": "sku-1", "title": "Stoneware mug", "options": {},
            "price": "19.95", "weightGrams": 0, "inStock": true
        })
    );
    let (_, body) = variant(&app, Who::Staff, "sku-1").await;
    assert_eq!(
        (&body["stock"], &body["status"]),
        (&json!(100), &json!("PUBLISHED"))
    );
}

#[tokio::test]
async fn a_variant_of_a_draft_is_shown_to_staff_only() {
    let app = TestApp::seeded().await.expect("app");
    put_tee(&app, "DRAFT").await;
    assert_eq!(
        variant(&app, Who::Customer("c1"), "tee-m-blue").await.0,
        404
    );
    let (status, body) = variant(&app, Who::Staff, "tee-m-blue").await;
    assert_eq!(
        (status, &body["options"]),
        (200, &json!({"Size": "M", "Colour": "Blue"}))
    );
}

#[tokio::test]
async fn an_unknown_variant_is_404_and_no_token_is_401() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = variant(&app, Who::Customer("c1"), "nope").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["type"], "/problems/not-found");
    assert_eq!(variant(&app, Who::Nobody, "sku-1").await.0, 401);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/get-variant.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_variant::handle).await);
    assert_eq!((status, &body["price"]), (200, &json!("19.95")));
}
