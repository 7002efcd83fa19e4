//! GET /customers/{customerId} through API Gateway events, against its own embedded engine.

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, from_event_file, get, parts};
use serde_json::json;

const ROUTE: &str = "GET /customers/{customerId}";

#[tokio::test]
async fn the_source_designs_customer_is_served() {
    let app = TestApp::seeded().await.expect("app");
    let response = dispatch(
        &app.store,
        get(Who::Customer("c1"), ROUTE, "/customers/c1", ""),
        functions::get_customer::handle,
    )
    .await;
    let (status, content_type, body) = parts(response);
    assert_eq!(status, 200);
    assert_eq!(content_type, "application/json");
    assert_eq!(
        body,
        // The statistics are the stream consumer's; until it has seen c1's orders, none.
        json!({"customerId": "c1", "name": "Ana Torres", "email": "ana@example.com",
            "orderCount": 0, "totalSpent": "0.00", "lastOrderAt": null})
    );
}

#[tokio::test]
async fn the_profile_costs_one_get_item() {
    let app = TestApp::seeded().await.expect("app");
    app.requests.reset();
    dispatch(
        &app.store,
        get(Who::Customer("c2"), ROUTE, "/customers/c2", ""),
        functions::get_customer::handle,
    )
    .await;
    assert_eq!(
        app.requests.by_operation().into_iter().collect::<Vec<_>>(),
        [("GetItem".to_owned(), 1)]
    );
}

#[tokio::test]
async fn an_unknown_customer_is_a_404_problem() {
    let app = TestApp::seeded().await.expect("app");
    let response = dispatch(
        &app.store,
        get(Who::Customer("c999"), ROUTE, "/customers/c999", ""),
        functions::get_customer::handle,
    )
    .await;
    let (status, content_type, body) = parts(response);
    assert_eq!(status, 404);
    assert_eq!(content_type, "application/problem+json");
    assert_eq!(body["status"], 404);
    assert_eq!(body["title"], "Not found");
}

#[tokio::test]
async fn a_bad_id_is_a_400_and_reaches_no_table() {
    let app = TestApp::seeded().await.expect("app");
    app.requests.reset();
    for bad in ["c#1", "c\n1", "c 1", &"x".repeat(65)] {
        let response = dispatch(
            &app.store,
            get(Who::Customer(bad), ROUTE, &format!("/customers/{bad}"), ""),
            functions::get_customer::handle,
        )
        .await;
        let (status, content_type, body) = parts(response);
        assert_eq!(status, 400, "{bad}");
        assert_eq!(content_type, "application/problem+json");
        assert!(
            body["detail"]
                .as_str()
                .expect("detail")
                .contains("customerId")
        );
    }
    assert_eq!(app.requests.total(), 0);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/get-customer.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_customer::handle).await);
    assert_eq!(status, 200);
    assert_eq!(body["name"], "Ana Torres");
}

#[tokio::test]
async fn an_engine_failure_is_a_500_that_says_nothing_internal() {
    let app = TestApp::seeded().await.expect("app");
    let broken = shared::Store::new(app.engine.client(), "NoSuchTable");
    let response = dispatch(
        &broken,
        get(Who::Customer("c1"), ROUTE, "/customers/c1", ""),
        functions::get_customer::handle,
    )
    .await;
    let (status, content_type, body) = parts(response);
    assert_eq!(status, 500);
    assert_eq!(content_type, "application/problem+json");
    let text = body.to_string();
    for leak in ["NoSuchTable", "ResourceNotFound", "dynamodb", "127.0.0.1"] {
        assert!(!text.contains(leak), "{leak} leaked: {text}");
    }
}
