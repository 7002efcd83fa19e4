//! PATCH /orders/{orderId}/fulfilments/{fulfilmentId} through API Gateway events, against its
//! own engine. The sample order o104 is c1's, PLACED: sku-1 x1, sku-4 x2, sku-7 x3; o101 is
//! SHIPPED in one fulfilment, ff_o101.

use local_engine::testing::{
    TestApp, Who, all_items, dispatch, from_event_file, parts, ship, update_fulfilment,
};
use serde_json::Value;

async fn shipped(app: &TestApp, lines: &[(&str, u32)], tracking: &str) -> String {
    let req = ship(Who::Staff, "o104", lines, tracking);
    let (status, _, body) = parts(dispatch(&app.store, req, functions::ship_order::handle).await);
    assert_eq!(status, 201, "{body}");
    body["fulfilmentId"].as_str().expect("id").to_owned()
}

async fn patch(app: &TestApp, who: Who<'_>, order: &str, id: &str, body: &str) -> (u16, Value) {
    let req = update_fulfilment(who, order, id, body);
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::update_fulfilment::handle).await);
    (status, body)
}

#[tokio::test]
async fn tracking_is_corrected_until_delivery_and_what_it_replaced_is_kept() {
    let app = TestApp::seeded().await.expect("app");
    let id = shipped(
        &app,
        &[("sku-7", 3)],
        r#""carrier":"DHL","trackingNumber":"JD1","trackingUrl":"https://www.dhl.com/track?id=JD1""#,
    )
    .await;
    // A wrong number corrected, the URL removed (null), the carrier kept (left out).
    let (status, body) = patch(
        &app,
        Who::Staff,
        "o104",
        &id,
        r#"{"trackingNumber":"JD2","trackingUrl":null}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["carrier"], "DHL");
    assert_eq!(body["trackingNumber"], "JD2");
    assert!(body.get("trackingUrl").is_none(), "{body}");
    assert_eq!(body["history"][0]["trackingNumber"], "JD1");
    assert_eq!(
        body["history"][0]["trackingUrl"],
        "https://www.dhl.com/track?id=JD1"
    );
    let (status, body) = patch(&app, Who::Staff, "o104", &id, r#"{"status":"IN_TRANSIT"}"#).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("IN_TRANSIT")));
    let (status, body) = patch(
        &app,
        Who::Staff,
        "o104",
        &id,
        r#"{"status":"FAILED_DELIVERY"}"#,
    )
    .await;
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("FAILED_DELIVERY"))
    );
    let (status, body) = patch(&app, Who::Staff, "o104", &id, r#"{"status":"DELIVERED"}"#).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("DELIVERED")),
        "{body}"
    );
    // o104 still has lines to ship: delivered parts leave it PARTIALLY_SHIPPED.
    assert_eq!(app.status_of("o104").await, "PARTIALLY_SHIPPED");
    let before = all_items(&app).await;
    for (body, kind) in [
        (r#"{"trackingNumber":"JD3"}"#, "move-refused"),
        (r#"{"status":"IN_TRANSIT"}"#, "move-refused"),
        (r#"{"status":"SHIPPED"}"#, "move-refused"),
    ] {
        let (status, problem) = patch(&app, Who::Staff, "o104", &id, body).await;
        assert_eq!(
            (status, problem["type"].as_str()),
            (
                if kind == "move-refused" { 409 } else { 400 },
                Some(format!("/problems/{kind}").as_str())
            ),
            "{body}: {problem}"
        );
    }
    assert_eq!(all_items(&app).await, before, "nothing written");
    // The same move again (a retry whose answer was lost) answers it as it stands, as a
    // return's does, and writes nothing.
    let (status, again) = patch(&app, Who::Staff, "o104", &id, r#"{"status":"DELIVERED"}"#).await;
    assert_eq!(
        (status, again["status"].as_str()),
        (200, Some("DELIVERED")),
        "{again}"
    );
    assert_eq!(all_items(&app).await, before, "nothing written");
}

#[tokio::test]
async fn bad_requests_are_problems_and_write_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let before = all_items(&app).await;
    for (order, id, body, expected) in [
        ("o101", "ff_o101", "{}", 400),
        ("o101", "ff_o101", r#"{"status":"LOST"}"#, 400),
        (
            "o101",
            "ff_o101",
            r#"{"status":"DELIVERED","weight":1}"#,
            400,
        ),
        ("o101", "ff_o101", r#"{"carrier":""}"#, 400),
        ("o101", "ff_o101", r#"{"trackingUrl":"ftp://x"}"#, 400),
        // Round five: https only, and nothing invisible in what a customer types elsewhere.
        (
            "o101",
            "ff_o101",
            r#"{"trackingUrl":"http://x.example/1"}"#,
            400,
        ),
        ("o101", "ff_o101", r#"{"carrier":"D\u200bHL"}"#, 400),
        ("o101", "ff_o101", r#"{"trackingNumber":"JD\ufeff1"}"#, 400),
        ("o101", "ff_nope", r#"{"status":"DELIVERED"}"#, 404),
        ("o404", "ff_o101", r#"{"status":"DELIVERED"}"#, 404),
        ("o100", "ff_o101", r#"{"status":"DELIVERED"}"#, 404),
        ("o101", "ff#1", r#"{"status":"DELIVERED"}"#, 400),
    ] {
        let (status, problem) = patch(&app, Who::Staff, order, id, body).await;
        assert_eq!(status, expected, "{order} {id} {body}: {problem}");
    }
    let (status, _) = patch(
        &app,
        Who::Customer("c1"),
        "o101",
        "ff_o101",
        r#"{"status":"DELIVERED"}"#,
    )
    .await;
    assert_eq!(status, 403, "a customer does not say their parcel arrived");
    assert_eq!(all_items(&app).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_parts_delivered_at_once_leave_the_order_delivered() {
    for _ in 0..3 {
        let app = TestApp::seeded().await.expect("app");
        let first = shipped(&app, &[("sku-1", 1), ("sku-4", 2)], "").await;
        let second = shipped(&app, &[("sku-7", 3)], "").await;
        assert_eq!(app.status_of("o104").await, "SHIPPED");
        let tasks: Vec<_> = [first, second]
            .into_iter()
            .map(|id| {
                let store = app.store.clone();
                tokio::spawn(async move {
                    let req =
                        update_fulfilment(Who::Staff, "o104", &id, r#"{"status":"DELIVERED"}"#);
                    parts(dispatch(&store, req, functions::update_fulfilment::handle).await).0
                })
            })
            .collect();
        for task in tasks {
            assert_eq!(task.await.expect("task"), 200);
        }
        // Each delivery read the other undelivered, yet one of them found it delivered: the
        // lines version let only one count on each read.
        assert_eq!(app.status_of("o104").await, "DELIVERED");
    }
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/update-fulfilment.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::update_fulfilment::handle).await);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "DELIVERED");
    assert_eq!(app.status_of("o101").await, "DELIVERED");
}
