//! GET /customers/{customerId}/orders through API Gateway events, against its own engine.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, from_event_file, get, order_ids, parts};
use local_engine::{LOCAL_TABLE, seed};
use serde_json::{Value, json};

const ROUTE: &str = "GET /customers/{customerId}/orders";

async fn list(app: &TestApp, customer: &str, query: &str) -> (u16, String, Value) {
    let req = get(
        Who::Customer(customer),
        ROUTE,
        &format!("/customers/{customer}/orders"),
        query,
    );
    parts(dispatch(&app.store, req, functions::list_customer_orders::handle).await)
}

/// Follows nextCursor to the end; returns every page's order IDs.
async fn all_pages(app: &TestApp, customer: &str, query: &str) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let q = match &cursor {
            Some(c) => format!("{query}&cursor={c}"),
            None => query.to_owned(),
        };
        let (status, _, body) = list(app, customer, &q).await;
        assert_eq!(status, 200, "{body}");
        pages.push(order_ids(&body));
        match body["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return pages,
        }
    }
}

fn expected_newest_first(customer: &str) -> Vec<String> {
    let mut orders: Vec<_> = seed::orders()
        .into_iter()
        .filter(|o| o.customer_id == customer)
        .collect();
    orders.sort_by(|a, b| b.placed_at.cmp(&a.placed_at));
    orders.into_iter().map(|o| o.order_id).collect()
}

#[tokio::test]
async fn orders_are_listed_newest_first_in_the_source_designs_shape() {
    let app = TestApp::seeded().await.expect("app");
    let (status, content_type, body) = list(&app, "c1", "limit=100").await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    let ids = order_ids(&body);
    assert_eq!(ids, expected_newest_first("c1"));
    let o100 = body["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|o| o["orderId"] == "o100")
        .expect("o100 listed");
    assert_eq!(
        o100,
        &json!({"orderId": "o100", "customerId": "c1", "placedAt": "2026-10-08T14:30:00Z", "status": "PLACED", "total": "39.90"})
    );
    assert_eq!(body["nextCursor"], Value::Null);
}

#[tokio::test]
async fn pages_follow_each_other_without_gaps_and_the_last_has_no_cursor() {
    let app = TestApp::seeded().await.expect("app");
    let pages = all_pages(&app, "c1", "limit=7").await;
    // 30 orders: 7+7+7+7+2, and no empty trailing page.
    assert_eq!(
        pages.iter().map(Vec::len).collect::<Vec<_>>(),
        [7, 7, 7, 7, 2]
    );
    assert_eq!(pages.concat(), expected_newest_first("c1"));

    // Exactly a page's worth left: the page that ends the listing has no cursor.
    let pages = all_pages(&app, "c1", "limit=10").await;
    assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [10, 10, 10]);
}

#[tokio::test]
async fn the_default_page_is_25() {
    let app = TestApp::seeded().await.expect("app");
    let (_, _, body) = list(&app, "c1", "").await;
    assert_eq!(body["items"].as_array().expect("items").len(), 25);
    assert!(body["nextCursor"].is_string());
}

#[tokio::test]
async fn each_page_costs_one_query() {
    let app = TestApp::seeded().await.expect("app");
    app.requests.reset();
    let (_, _, body) = list(&app, "c1", "limit=5&from=2026-09-01T00:00:00Z").await;
    let cursor = body["nextCursor"].as_str().expect("cursor").to_owned();
    assert_eq!(
        app.requests.by_operation(),
        [("Query".to_owned(), 1)].into()
    );
    list(
        &app,
        "c1",
        &format!("limit=5&from=2026-09-01T00:00:00Z&cursor={cursor}"),
    )
    .await;
    assert_eq!(
        app.requests.by_operation(),
        [("Query".to_owned(), 2)].into()
    );
}

#[tokio::test]
async fn from_and_to_narrow_the_same_query_to_a_half_open_window() {
    let app = TestApp::seeded().await.expect("app");
    let from = "2026-10-01T00:00:00Z";
    let to = "2026-10-08T14:30:00Z";
    let (status, _, body) = list(&app, "c1", &format!("from={from}&to={to}&limit=100")).await;
    assert_eq!(status, 200);
    let expected: Vec<_> = expected_newest_first("c1")
        .into_iter()
        .filter(|id| {
            let order = seed::orders()
                .into_iter()
                .find(|o| &o.order_id == id)
                .expect("order");
            order.placed_at.as_str() >= from && order.placed_at.as_str() < to
        })
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(order_ids(&body), expected);
    // o100 was placed exactly at `to`, which is excluded; from is inclusive.
    let (_, _, body) = list(&app, "c1", &format!("from={to}&limit=100")).await;
    let last = body["items"]
        .as_array()
        .expect("items")
        .last()
        .expect("one")
        .clone();
    assert_eq!(last["orderId"], "o100");
}

#[tokio::test]
async fn the_latest_time_a_key_holds_lists_everything_and_an_unencoded_plus_is_an_offset() {
    let app = TestApp::seeded().await.expect("app");
    let everything = expected_newest_first("c1");
    let (status, _, body) = list(&app, "c1", "to=9999-12-31T22:59:59-01:00&limit=100").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(order_ids(&body), everything);
    // `+` unencoded decodes to a space in a query string; read as the offset it was, it gives
    // the same window as `%2B`.
    let encoded = list(&app, "c1", "from=2026-10-08T16:30:00%2B02:00&limit=100").await;
    let unencoded = list(&app, "c1", "from=2026-10-08T16:30:00+02:00&limit=100").await;
    assert_eq!(encoded.0, 200, "{}", encoded.2);
    assert_eq!(unencoded, encoded);
    let utc = list(&app, "c1", "from=2026-10-08T14:30:00Z&limit=100").await;
    assert_eq!(order_ids(&unencoded.2), order_ids(&utc.2));
}

/// A cursor for `key`, sealed for c1, who lists their own orders in these tests.
fn forged(key: &[(&str, &str)]) -> String {
    local_engine::testing::forged_cursor(Who::Customer("c1"), key)
}

#[tokio::test]
async fn a_cursor_that_does_not_lie_inside_its_listing_is_a_400() {
    let app = TestApp::seeded().await.expect("app");
    let (_, _, body) = list(&app, "c1", "limit=2").await;
    let cursor = body["nextCursor"].as_str().expect("cursor").to_owned();

    // Another customer's listing: the cursor's key is in c1's partition.
    let (status, ct, body) = list(&app, "c2", &format!("limit=2&cursor={cursor}")).await;
    assert_eq!(
        (status, ct.as_str()),
        (400, "application/problem+json"),
        "{body}"
    );
    // A window the cursor's position is not in.
    let (status, _, _) = list(
        &app,
        "c1",
        &format!("limit=2&cursor={cursor}&to=2026-09-01T00:00:00Z"),
    )
    .await;
    assert_eq!(status, 400, "outside the window");

    // An edited cursor that does lie inside the listing only moves where the page starts.
    let key = [
        ("PK", "CUSTOMER#c1"),
        ("SK", "ORDER#2026-10-08T14:30:00Z#o100"),
    ];
    let (status, _, body) = list(&app, "c1", &format!("limit=100&cursor={}", forged(&key))).await;
    assert_eq!(status, 200);
    let mut older: Vec<seed::SampleOrder> = seed::orders()
        .into_iter()
        .filter(|o| o.customer_id == "c1" && o.placed_at.as_str() < "2026-10-08T14:30:00Z")
        .collect();
    older.sort_by(|a, b| b.placed_at.cmp(&a.placed_at));
    let expected: Vec<String> = older.into_iter().map(|o| o.order_id).collect();
    assert!(!expected.is_empty());
    assert_eq!(order_ids(&body), expected);
}

#[tokio::test]
async fn an_edited_cursor_that_names_no_key_the_store_wrote_is_a_400_before_any_request() {
    let app = TestApp::seeded().await.expect("app");
    // Edited cursors: whatever they say, they must name a listing key of this partition and
    // window, byte for byte as the store writes it, or they are refused before any request.
    let oversized = local_engine::testing::oversized_order_sk();
    let requests = app.requests.total();
    for (why, key) in [
        (
            "another partition",
            vec![
                ("PK", "CUSTOMER#c2"),
                ("SK", "ORDER#2026-10-08T14:30:00Z#o100"),
            ],
        ),
        (
            "the profile",
            vec![("PK", "CUSTOMER#c1"), ("SK", "PROFILE")],
        ),
        (
            "not an order key",
            vec![("PK", "CUSTOMER#c1"), ("SK", "ORDER#yesterday#o1")],
        ),
        ("a missing attribute", vec![("PK", "CUSTOMER#c1")]),
        (
            "a time spelled otherwise (it parses, but is not the key the store wrote)",
            vec![
                ("PK", "CUSTOMER#c1"),
                ("SK", "ORDER#2026-10-08T14:30:00.000Z#o100"),
            ],
        ),
        (
            "an oversized key (DynamoDB would refuse it: a 500, not a 400)",
            vec![("PK", "CUSTOMER#c1"), ("SK", &oversized)],
        ),
        (
            "an extra attribute",
            vec![
                ("PK", "CUSTOMER#c1"),
                ("SK", "ORDER#2026-10-08T14:30:00Z#o100"),
                ("GSI1PK", "STATUS#PLACED"),
            ],
        ),
    ] {
        let (status, _, body) = list(&app, "c1", &format!("cursor={}", forged(&key))).await;
        assert_eq!(status, 400, "{why}: {body}");
    }
    for junk in ["x", "%00", "AAAAAAAAAAAAAAAAAAAAAAAAAAAA"] {
        let (status, _, _) = list(&app, "c1", &format!("cursor={junk}")).await;
        assert_eq!(status, 400, "{junk}");
    }
    assert_eq!(app.requests.total(), requests, "refused before any request");
}

#[tokio::test]
async fn bad_parameters_are_400_problems() {
    let app = TestApp::seeded().await.expect("app");
    for query in [
        "limit=0",
        "limit=101",
        "limit=-1",
        "limit=ten",
        "from=yesterday",
        "to=2026-13-01T00:00:00Z",
        "from=2026-10-02T00:00:00Z&to=2026-10-01T00:00:00Z",
        // Past what a four-digit year holds once in UTC: refused, not a 500 or an empty list.
        "from=2026-01-01T00:00:00Z&to=9999-12-31T23:30:00-01:00",
        "to=9999-12-31T23:30:00-01:00",
        "from=0000-01-01T00:30:00%2B01:00",
    ] {
        let (status, ct, body) = list(&app, "c1", query).await;
        assert_eq!(
            (status, ct.as_str()),
            (400, "application/problem+json"),
            "{query}: {body}"
        );
        assert_eq!(body["status"], 400);
    }
    let (status, _, _) = list(&app, "c#1", "").await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn a_customer_without_orders_has_an_empty_list() {
    let app = TestApp::seeded().await.expect("app");
    let (status, _, body) = list(&app, "c404", "").await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"items": [], "nextCursor": null}));
}

#[tokio::test]
async fn pages_cut_short_by_the_1mb_limit_still_carry_on() {
    let app = TestApp::empty().await.expect("app");
    // 24 orders of ~100 KB each (extra attributes are allowed): one Query reads ~10 of them.
    let padding = "p".repeat(100 * 1024);
    let mut items = Vec::new();
    for n in 0..24 {
        let mut item: HashMap<String, AttributeValue> = seed::order_items(&seed::SampleOrder {
            order_id: format!("big{n:02}"),
            customer_id: "c9".into(),
            placed_at: format!("2026-10-01T00:00:{n:02}Z"),
            status: shared::domain::status::OrderStatus::Placed,
            lines: vec![("sku-1".into(), 1, "1.00".into())],
        })
        .expect("items")
        .remove(0);
        item.insert("notes".into(), AttributeValue::S(padding.clone()));
        items.push(item);
    }
    seed::write_all(&app.engine.client(), LOCAL_TABLE, items)
        .await
        .expect("written");
    let pages = all_pages(&app, "c9", "limit=100").await;
    assert!(
        pages.len() >= 3,
        "expected the 1 MB cap to split the listing: {pages:?}"
    );
    let all = pages.concat();
    let expected: Vec<_> = (0..24).rev().map(|n| format!("big{n:02}")).collect();
    assert_eq!(all, expected);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/list-customer-orders.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::list_customer_orders::handle).await);
    assert_eq!(status, 200);
    let ids = order_ids(&body);
    assert_eq!(ids, expected_newest_first("c1")[..5]);
    assert!(body["nextCursor"].is_string());
}
