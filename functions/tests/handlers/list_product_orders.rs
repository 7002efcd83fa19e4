//! `GET /variants/{sku}/orders` through its handler: the orders containing a variant, newest
//! first, one Query on GSI2 per page (beside a read of the variant), merged over the partitions
//! of a SKU whose stock was split; the window, cursors bound to the caller and to the exact
//! keys the store writes; staff only.

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, from_event_file, get, parts, send_json};
use serde_json::Value;
use shared::domain::ids::Sku;

const ROUTE: &str = "GET /variants/{sku}/orders";

async fn list(app: &TestApp, who: Who<'_>, sku: &str, query: &str) -> (u16, Value) {
    let req = get(who, ROUTE, &format!("/variants/{sku}/orders"), query);
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::list_product_orders::handle).await);
    (status, body)
}

/// The status `who`'s listing of `sku` answers from `cursor`.
async fn with_cursor(app: &TestApp, who: Who<'_>, sku: &str, cursor: &str) -> u16 {
    list(app, who, sku, &format!("cursor={cursor}")).await.0
}

/// Places an order of one `sku` for `customer`; its ID and time.
async fn place(app: &TestApp, customer: &str, sku: &str, quantity: u32) -> (String, String) {
    let req = send_json(
        Who::Staff,
        "POST /customers/{customerId}/orders",
        &format!("/customers/{customer}/orders"),
        &[],
        &format!(r#"{{"items":[{{"sku":"{sku}","quantity":{quantity}}}]}}"#),
    );
    let (status, _, body) = parts(dispatch(&app.store, req, functions::place_order::handle).await);
    assert_eq!(status, 201, "{body}");
    (
        body["orderId"].as_str().expect("id").to_owned(),
        body["placedAt"].as_str().expect("time").to_owned(),
    )
}

#[tokio::test]
async fn a_products_orders_are_listed_newest_first_one_query_per_page() {
    let app = TestApp::seeded().await.expect("app");
    let mut placed = Vec::new();
    for (n, customer) in ["c1", "c2", "c3", "c1", "c4"].iter().enumerate() {
        placed.push(place(&app, customer, "sku-4", n as u32 + 1).await.0);
    }
    place(&app, "c2", "sku-6", 1).await;
    app.requests.reset();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let query = cursor
            .as_ref()
            .map_or("limit=2".to_owned(), |c| format!("limit=2&cursor={c}"));
        let (status, body) = list(&app, Who::Staff, "sku-4", &query).await;
        assert_eq!(status, 200, "{body}");
        pages += 1;
        for item in body["items"].as_array().expect("items") {
            let keys: Vec<&str> = item
                .as_object()
                .expect("object")
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(
                keys,
                ["customerId", "orderId", "placedAt", "price", "quantity"]
            );
            seen.push(item["orderId"].as_str().expect("id").to_owned());
        }
        cursor = body["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    placed.reverse();
    assert_eq!(
        seen, placed,
        "newest first (IDs sort by time), each once, none of sku-6"
    );
    assert_eq!(
        pages, 3,
        "5 orders, 2 a page: the last page knows it is the last"
    );
    assert_eq!(
        app.requests.by_operation(),
        [("Query".to_owned(), pages), ("GetItem".to_owned(), pages)].into(),
        "one Query a page, and beside it, at once, the variant's count of partitions"
    );
}

/// Every order ID of `sku`'s listing, page after page of `limit`, from `cursor`.
async fn every_page(app: &TestApp, sku: &str, limit: usize, cursor: Option<String>) -> Vec<String> {
    let mut seen = Vec::new();
    let mut cursor = cursor;
    loop {
        let query = cursor.as_ref().map_or(format!("limit={limit}"), |c| {
            format!("limit={limit}&cursor={c}")
        });
        let (status, body) = list(app, Who::Staff, sku, &query).await;
        assert_eq!(status, 200, "{body}");
        let items = body["items"].as_array().expect("items");
        assert!(items.len() <= limit);
        seen.extend(
            items
                .iter()
                .map(|i| i["orderId"].as_str().expect("id").to_owned()),
        );
        cursor = body["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            return seen;
        }
        assert_eq!(items.len(), limit, "only the last page is short");
    }
}

/// How many lines of `sku` each of its first `n` GSI2 partitions holds.
async fn partition_sizes(app: &TestApp, sku: &str, n: usize) -> Vec<usize> {
    use shared::domain::stock_shards::ShardIndex;
    use shared::dynamo::{entities::line_item, query::Index, query::KeyQuery};
    let (sku, store) = (Sku::parse(sku).expect("sku"), app.direct_store());
    let mut sizes = Vec::new();
    for k in (0..n).map(|k| ShardIndex::nth(k).expect("k")) {
        let query = KeyQuery::on(Index::Gsi2, line_item::gsi2pk(&sku, k));
        sizes.push(query.read_all(&store, false).await.expect("read").len());
    }
    sizes
}

async fn set_shards(app: &TestApp, sku: &str, body: &str) {
    let req = send_json(
        Who::Staff,
        "POST /variants/{sku}/stock",
        &format!("/variants/{sku}/stock"),
        &[],
        body,
    );
    let (status, _, body) = parts(dispatch(&app.store, req, functions::adjust_stock::handle).await);
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_split_skus_lines_are_spread_over_partitions_and_listed_whole_newest_first() {
    let app = TestApp::seeded().await.expect("app");
    let mut placed = Vec::new();
    for customer in ["c1", "c2"] {
        placed.push(place(&app, customer, "sku-4", 1).await.0);
    }
    // A listing begun while the SKU's lines were in one partition...
    let (_, first) = list(&app, Who::Staff, "sku-4", "limit=1").await;
    let begun = first["nextCursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    set_shards(&app, "sku-4", r#"{"delta": 100, "shards": 4}"#).await;
    for n in 0..9 {
        placed.push(place(&app, ["c1", "c2", "c3"][n % 3], "sku-4", 1).await.0);
    }
    // The lines since the split are spread over the SKU's 4 partitions; none is elsewhere.
    let spread = partition_sizes(&app, "sku-4", 5).await;
    assert_eq!(spread.iter().sum::<usize>(), 11, "{spread:?}");
    assert_eq!(spread[4], 0);
    assert!(spread.iter().filter(|n| **n > 0).count() >= 3, "{spread:?}");
    // ...goes on with the older line only: the lines since are newer than where it stopped.
    assert_eq!(
        every_page(&app, "sku-4", 2, Some(begun)).await,
        [placed[0].clone()]
    );
    placed.reverse();
    app.requests.reset();
    for limit in [1, 2, 3, 25] {
        assert_eq!(
            every_page(&app, "sku-4", limit, None).await,
            placed,
            "limit {limit}"
        );
    }
    let queries = app.requests.by_operation()["Query"];
    assert!(
        queries >= 4 * 11 + 4 * 6 + 4 * 4 + 4,
        "every partition read: {queries}"
    );
    // Back to one shard: the lines stay where they were written, and are all still listed.
    set_shards(&app, "sku-4", r#"{"shards": 1}"#).await;
    let last = place(&app, "c4", "sku-4", 1).await.0;
    placed.insert(0, last);
    assert_eq!(every_page(&app, "sku-4", 4, None).await, placed);
}

#[tokio::test]
async fn a_merged_cursor_is_taken_only_as_the_store_wrote_it() {
    let app = TestApp::seeded().await.expect("app");
    set_shards(&app, "sku-4", r#"{"delta": 10, "shards": 4}"#).await;
    let (order, at) = place(&app, "c1", "sku-4", 1).await;
    place(&app, "c2", "sku-4", 1).await;
    let (_, first) = list(&app, Who::Staff, "sku-4", "limit=1").await;
    let cursor = first["nextCursor"].as_str().expect("a next page");
    assert_eq!(with_cursor(&app, Who::Staff, "sku-4", cursor).await, 200);
    assert_eq!(with_cursor(&app, Who::Admin, "sku-4", cursor).await, 400);
    assert_eq!(with_cursor(&app, Who::Staff, "sku-1", cursor).await, 400);
    let position = format!("{at}#{order}");
    app.requests.reset();
    for (why, key) in [
        (
            "another SKU",
            vec![("sku", "sku-1"), ("0", position.as_str())],
        ),
        ("no SKU", vec![("0", position.as_str())]),
        (
            "a partition the SKU does not have",
            vec![("sku", "sku-4"), ("4", position.as_str())],
        ),
        (
            "a partition spelled otherwise",
            vec![("sku", "sku-4"), ("01", position.as_str())],
        ),
        (
            "a time spelled otherwise",
            vec![("sku", "sku-4"), ("1", "2026-10-08T14:30:00.000Z#o1")],
        ),
        ("not a position", vec![("sku", "sku-4"), ("2", "yesterday")]),
    ] {
        let (status, body) = list(
            &app,
            Who::Staff,
            "sku-4",
            &format!("cursor={}", forged(&key)),
        )
        .await;
        assert_eq!(status, 400, "{why}: {body}");
    }
    let queries = app
        .requests
        .by_operation()
        .get("Query")
        .copied()
        .unwrap_or(0);
    assert_eq!(queries, 0, "refused before any Query");
    // Outside the window asked for.
    let cursor = forged(&[("sku", "sku-4"), ("0", &position)]);
    let query = format!("to=2026-01-01T00:00:00Z&cursor={cursor}");
    assert_eq!(list(&app, Who::Staff, "sku-4", &query).await.0, 400);
}

#[tokio::test]
async fn a_window_narrows_the_same_query() {
    let app = TestApp::seeded().await.expect("app");
    let (first, at) = place(&app, "c1", "sku-8", 1).await;
    let (_, body) = list(&app, Who::Staff, "sku-8", &format!("from={at}")).await;
    assert_eq!(body["items"][0]["orderId"], first.as_str());
    let (_, body) = list(&app, Who::Staff, "sku-8", &format!("to={at}")).await;
    assert_eq!(body["items"], Value::Array(Vec::new()), "to is exclusive");
    let (status, _) = list(
        &app,
        Who::Staff,
        "sku-8",
        "from=2026-10-02T00:00:00Z&to=2026-10-01T00:00:00Z",
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(list(&app, Who::Staff, "sku-8", "limit=0").await.0, 400);
    assert_eq!(list(&app, Who::Staff, "bad#sku", "").await.0, 400);
}

#[tokio::test]
async fn only_staff_list_a_products_orders() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = list(&app, Who::Customer("c1"), "sku-1", "").await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["type"], "/problems/forbidden");
    assert_eq!(list(&app, Who::Nobody, "sku-1", "").await.0, 401);
    assert_eq!(list(&app, Who::Admin, "sku-1", "").await.0, 200);
}

/// A cursor for staff carrying `key`, as a client could forge one.
fn forged(key: &[(&str, &str)]) -> String {
    local_engine::testing::forged_cursor(Who::Staff, key)
}

#[tokio::test]
async fn a_cursor_is_taken_only_as_the_store_wrote_it() {
    let app = TestApp::seeded().await.expect("app");
    place(&app, "c1", "sku-4", 1).await;
    let zeros = format!("2026-10-08T14:30:00.{}Z#o100", "0".repeat(1100));
    let position = |gsi2pk: &str, gsi2sk: &str, pk: &str, sk: &str| {
        forged(&[
            ("GSI2PK", gsi2pk),
            ("GSI2SK", gsi2sk),
            ("PK", pk),
            ("SK", sk),
        ])
    };
    app.requests.reset();
    for (why, cursor) in [
        (
            "another product",
            position(
                "PRODUCT#sku-1",
                "2026-10-08T14:30:00Z#o100",
                "ORDER#o100",
                "ITEM#sku-1",
            ),
        ),
        (
            "another order's keys",
            position(
                "PRODUCT#sku-4",
                "2026-10-08T14:30:00Z#o100",
                "ORDER#o101",
                "ITEM#sku-4",
            ),
        ),
        (
            "a time spelled otherwise",
            position(
                "PRODUCT#sku-4",
                "2026-10-08T14:30:00.000Z#o100",
                "ORDER#o100",
                "ITEM#sku-4",
            ),
        ),
        (
            "an oversized key",
            position("PRODUCT#sku-4", &zeros, "ORDER#o100", "ITEM#sku-4"),
        ),
        (
            "a missing key",
            forged(&[
                ("GSI2PK", "PRODUCT#sku-4"),
                ("GSI2SK", "2026-10-08T14:30:00Z#o100"),
            ]),
        ),
        ("not a cursor", "x".to_owned()),
    ] {
        let (status, body) = list(&app, Who::Staff, "sku-4", &format!("cursor={cursor}")).await;
        assert_eq!(status, 400, "{why}: {body}");
    }
    assert_eq!(app.requests.total(), 0, "refused before any request");
    // A real cursor works for the staff member it was handed to, and no one else.
    place(&app, "c2", "sku-4", 1).await;
    let (_, first) = list(&app, Who::Staff, "sku-4", "limit=1").await;
    let cursor = first["nextCursor"].as_str().expect("a next page");
    assert_eq!(with_cursor(&app, Who::Staff, "sku-4", cursor).await, 200);
    assert_eq!(with_cursor(&app, Who::Admin, "sku-4", cursor).await, 400);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    place(&app, "c1", "sku-1", 2).await;
    let req = from_event_file("../events/list-product-orders.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::list_product_orders::handle).await);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["items"][0]["quantity"], 2);
}
