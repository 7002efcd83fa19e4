//! POST /orders/{orderId}/returns through API Gateway events, against its own engine. The
//! sample order o102 is c1's, DELIVERED in October 2026 (outside the 30-day window since):
//! sku-7 x3 at 7.25; o100 is PLACED, o103 CANCELLED.

use local_engine::testing::returns::{request, set};
use local_engine::testing::{
    TestApp, Who, all_items, dispatch, from_event_file, get, parts, send_json, ship,
    update_fulfilment,
};
use serde_json::Value;
use shared::Store;

async fn ask(
    store: &Store,
    who: Who<'_>,
    order: &str,
    key: &str,
    lines: &[(&str, u32)],
) -> (u16, Value) {
    let req = request(who, order, key, lines);
    let (status, _, answer) = parts(dispatch(store, req, functions::request_return::handle).await);
    (status, answer)
}

async fn returns_of(store: &Store, order: &str) -> usize {
    let req = get(
        Who::Staff,
        "GET /orders/{orderId}",
        &format!("/orders/{order}"),
        "",
    );
    let (_, _, body) = parts(dispatch(store, req, functions::get_order::handle).await);
    body["returns"].as_array().map_or(0, Vec::len)
}

#[tokio::test]
async fn the_customer_returns_within_the_window_and_staff_may_record_one_after_it() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    // o102 was delivered in October 2026, more than 30 days ago.
    let (status, late) = ask(store, Who::Customer("c1"), "o102", "", &[("sku-7", 1)]).await;
    assert_eq!(
        (status, late["type"].as_str()),
        (409, Some("/problems/lines-refused")),
        "{late}"
    );
    assert!(
        late["detail"]
            .as_str()
            .is_some_and(|d| d.contains("last 30 days")),
        "{late}"
    );
    // Another customer's order does not exist for them.
    assert_eq!(
        ask(store, Who::Customer("c2"), "o102", "", &[("sku-7", 1)])
            .await
            .0,
        404
    );
    // Staff record it for the customer; nothing more of the line may be returned then.
    let (status, recorded) = ask(store, Who::Staff, "o102", "k-1", &[("sku-7", 3)]).await;
    assert_eq!(
        (status, recorded["status"].as_str()),
        (201, Some("REQUESTED")),
        "{recorded}"
    );
    let (status, again) = ask(store, Who::Staff, "o102", "k-1", &[("sku-7", 3)]).await;
    assert_eq!(
        (status, &again["returnId"]),
        (201, &recorded["returnId"]),
        "the same key: the same return"
    );
    let (status, _) = ask(store, Who::Staff, "o102", "k-1", &[("sku-7", 2)]).await;
    assert_eq!(status, 422, "the key with another body");
    assert_eq!(
        ask(store, Who::Staff, "o102", "", &[("sku-7", 1)]).await.0,
        409
    );
    // A declined return's units may be asked for again.
    let id = recorded["returnId"].as_str().expect("id");
    let req = set(Who::Staff, "o102", id, "DECLINED");
    assert_eq!(
        parts(dispatch(store, req, functions::update_return::handle).await).0,
        200
    );
    assert_eq!(
        ask(store, Who::Staff, "o102", "", &[("sku-7", 1)]).await.0,
        201
    );
}

#[tokio::test]
async fn a_customer_returns_what_was_delivered_to_them_in_the_window() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    // o104 (c1's, PLACED: sku-1 x1, sku-4 x2, sku-7 x3): two coffees shipped and delivered now.
    let (status, _, shipped) = parts(
        dispatch(
            store,
            ship(Who::Staff, "o104", &[("sku-7", 2)], ""),
            functions::ship_order::handle,
        )
        .await,
    );
    assert_eq!(status, 201, "{shipped}");
    let fulfilment = shipped["fulfilmentId"].as_str().expect("id");
    assert_eq!(
        ask(store, Who::Customer("c1"), "o104", "", &[("sku-7", 1)])
            .await
            .0,
        409,
        "shipped is not delivered"
    );
    let req = update_fulfilment(Who::Staff, "o104", fulfilment, r#"{"status":"DELIVERED"}"#);
    assert_eq!(
        parts(dispatch(store, req, functions::update_fulfilment::handle).await).0,
        200
    );
    let (status, too_many) = ask(store, Who::Customer("c1"), "o104", "", &[("sku-7", 3)]).await;
    assert_eq!(status, 409, "two were delivered: {too_many}");
    let (status, asked) = ask(store, Who::Customer("c1"), "o104", "", &[("sku-7", 2)]).await;
    assert_eq!(status, 201, "{asked}");
    assert_eq!(asked["lines"][0]["quantity"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_returns_of_the_last_units_at_once_one_is_refused() {
    for round in 0..4 {
        let app = TestApp::seeded().await.expect("app");
        let racing: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|key| {
                let store = app.store.clone();
                tokio::spawn(async move {
                    ask(&store, Who::Staff, "o102", key, &[("sku-7", 2)])
                        .await
                        .0
                })
            })
            .collect();
        let mut statuses = Vec::new();
        for task in racing {
            statuses.push(task.await.expect("task"));
        }
        statuses.sort_unstable();
        assert_eq!(statuses, [201, 409], "round {round}");
        assert_eq!(returns_of(&app.store, "o102").await, 1, "round {round}");
    }
}

#[tokio::test]
async fn what_a_return_request_refuses_is_a_problem_and_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let before = all_items(&app).await;
    let r = |sku: &str, quantity: i64| {
        format!(r#"{{"lines":[{{"sku":"{sku}","quantity":{quantity}}}],"reason":"r"}}"#)
    };
    for (who, order, body, expected) in [
        (Who::Customer("c1"), "o100", r("sku-1", 1), 409),
        (Who::Staff, "o103", r("sku-8", 1), 409),
        (Who::Staff, "o102", r("sku-2", 1), 400),
        (Who::Staff, "o102", r("sku-7", 0), 400),
        (
            Who::Staff,
            "o102",
            r#"{"lines":[],"reason":"r"}"#.into(),
            400,
        ),
        (
            Who::Staff,
            "o102",
            r#"{"lines":[{"sku":"sku-7","quantity":1}],"reason":" "}"#.into(),
            400,
        ),
        (
            Who::Staff,
            "o102",
            r#"{"lines":[{"sku":"sku-7","quantity":1}]}"#.into(),
            400,
        ),
        (Who::Staff, "o404", r("sku-7", 1), 404),
    ] {
        let req = send_json(
            who,
            "POST /orders/{orderId}/returns",
            &format!("/orders/{order}/returns"),
            &[("idempotency-key", "refused-1")],
            &body,
        );
        let (status, content_type, problem) =
            parts(dispatch(store, req, functions::request_return::handle).await);
        assert_eq!(
            (status, content_type.as_str()),
            (expected, "application/problem+json"),
            "{order} {body}: {problem}"
        );
    }
    assert_eq!(all_items(&app).await, before, "nothing written");
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/request-return.json").expect("event");
    let (status, _, asked) =
        parts(dispatch(&app.store, req, functions::request_return::handle).await);
    assert_eq!(
        (status, asked["status"].as_str()),
        (201, Some("REQUESTED")),
        "{asked}"
    );
    assert_eq!(asked["lines"][0]["sku"], "sku-7");
}

#[tokio::test]
async fn a_return_without_an_idempotency_key_is_refused_and_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let before = all_items(&app).await;
    let req = send_json(
        Who::Staff,
        "POST /orders/{orderId}/returns",
        "/orders/o102/returns",
        &[],
        r#"{"lines":[{"sku":"sku-7","quantity":1}],"reason":"too small"}"#,
    );
    let (status, _, problem) =
        parts(dispatch(&app.store, req, functions::request_return::handle).await);
    assert_eq!(status, 400, "{problem}");
    assert_eq!(all_items(&app).await, before, "nothing written");
}
