//! GET /customers/{customerId}/cart through API Gateway events, against its own engine.

use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::LOCAL_TABLE;
use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, from_event_file, get, parts};
use serde_json::json;

const ROUTE: &str = "GET /customers/{customerId}/cart";

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A cart line written straight into the table, expiring at `expires_at`.
async fn stored_line(app: &TestApp, customer: &str, sku: &str, quantity: u32, expires_at: u64) {
    app.engine
        .client()
        .put_item()
        .table_name(LOCAL_TABLE)
        .item("PK", AttributeValue::S(format!("CUSTOMER#{customer}")))
        .item("SK", AttributeValue::S(format!("CART#{sku}")))
        .item("quantity", AttributeValue::N(quantity.to_string()))
        .item("expiresAt", AttributeValue::N(expires_at.to_string()))
        .send()
        .await
        .expect("put");
}

#[tokio::test]
async fn the_sample_event_is_answered_with_an_empty_cart() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/get-cart.json").expect("event");
    let (status, ct, body) = parts(dispatch(&app.store, req, functions::get_cart::handle).await);
    assert_eq!((status, ct.as_str()), (200, "application/json"));
    assert_eq!(body, json!({"items": []}));
}

/// TTL deletes expired items up to 48 hours late: a line whose expiresAt has passed but which
/// is still in the table is never shown.
#[tokio::test]
async fn a_line_past_its_expiry_is_not_shown_though_still_stored() {
    let app = TestApp::seeded().await.expect("app");
    stored_line(&app, "c1", "sku-2", 2, now() + 3_600).await;
    stored_line(&app, "c1", "sku-1", 5, now() - 60).await;
    // Another customer's line and the customer's own orders share the partition or the table.
    stored_line(&app, "c2", "sku-3", 1, now() + 3_600).await;
    app.requests.reset();
    let req = get(Who::Customer("c1"), ROUTE, "/customers/c1/cart", "");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_cart::handle).await);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"items": [{"sku": "sku-2", "quantity": 2}]}));
    assert_eq!(
        app.requests.by_operation(),
        [("Query".to_owned(), 1)].into(),
        "one Query"
    );
    let expired = app
        .engine
        .client()
        .get_item()
        .table_name(LOCAL_TABLE)
        .key("PK", AttributeValue::S("CUSTOMER#c1".into()))
        .key("SK", AttributeValue::S("CART#sku-1".into()))
        .send()
        .await
        .expect("get");
    assert!(expired.item.is_some(), "the expired line is still stored");
}

#[tokio::test]
async fn staff_see_any_customers_cart_and_a_customer_only_their_own() {
    let app = TestApp::seeded().await.expect("app");
    stored_line(&app, "c3", "sku-3", 1, now() + 3_600).await;
    let req = get(Who::Staff, ROUTE, "/customers/c3/cart", "");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_cart::handle).await);
    assert_eq!(
        (status, body["items"][0]["sku"].clone()),
        (200, json!("sku-3"))
    );
    let req = get(Who::Customer("c1"), ROUTE, "/customers/c3/cart", "");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_cart::handle).await);
    assert_eq!(
        (status, body["type"].clone()),
        (403, json!("/problems/forbidden"))
    );
}
