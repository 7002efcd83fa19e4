//! The refunds due (access pattern 10) through API Gateway events: staff's, oldest first, one
//! Query on GSI1 per page.

use functions::payment_webhook::Webhook;
use local_engine::testing::dispatch;
use local_engine::testing::payments::{succeeded, webhook};
use local_engine::testing::{TestApp, Who, from_event_file, get, parts, webhook_secrets};

#[tokio::test]
async fn staff_see_the_payments_to_give_back_oldest_first_a_page_at_a_time() {
    let app = TestApp::seeded().await.expect("app");
    let hook = Webhook {
        store: app.store.clone(),
        secrets: webhook_secrets(),
    };
    for i in 0..3 {
        let body = succeeded(
            &format!("evt_{i}"),
            &format!("pi_evt_{i}"),
            100 + i,
            "usd",
            &format!("o-missing-{i}"),
        );
        let (status, _, answer) =
            parts(dispatch(&hook, webhook(&body), functions::payment_webhook::handle).await);
        assert_eq!(
            (status, answer["outcome"].as_str()),
            (200, Some("refund-due"))
        );
        // One second apart: receivedAt orders them.
        tokio::time::sleep(std::time::Duration::from_millis(1_050)).await;
    }
    let req = from_event_file("../events/list-refunds.json").expect("event");
    let before = app.requests.total();
    let (status, _, body) = parts(dispatch(&app.store, req, functions::list_refunds::handle).await);
    assert_eq!(status, 200, "{body}");
    assert_eq!(app.requests.total() - before, 1, "one Query");
    let amounts: Vec<i64> = body["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|r| r["amount"].as_i64())
        .collect();
    assert_eq!(amounts, [100, 101, 102]);
    let first = get(
        Who::Staff,
        "GET /payments/refunds",
        "/payments/refunds",
        "limit=2",
    );
    let (_, _, page) = parts(dispatch(&app.store, first, functions::list_refunds::handle).await);
    let cursor = page["nextCursor"].as_str().expect("a next page").to_owned();
    let query = format!("limit=2&cursor={cursor}");
    let next = get(
        Who::Staff,
        "GET /payments/refunds",
        "/payments/refunds",
        &query,
    );
    let (status, _, page) =
        parts(dispatch(&app.store, next, functions::list_refunds::handle).await);
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["items"][0]["amount"], 102);
    let customer = get(
        Who::Customer("c1"),
        "GET /payments/refunds",
        "/payments/refunds",
        "",
    );
    assert_eq!(
        parts(dispatch(&app.store, customer, functions::list_refunds::handle).await).0,
        403
    );
}
