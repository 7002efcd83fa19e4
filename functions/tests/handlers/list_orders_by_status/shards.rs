//! GET /orders?status= over status shards (template parameter StatusShards): one listing,
//! oldest first, merged from every shard, checked against a reference that reads each shard
//! whole with the source design's own GSI1 query and merges them independently.

use std::collections::BTreeSet;

use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::testing::dispatch;
use local_engine::testing::{
    TestApp, Who, change_status, get, order_ids, parts, send_json, stock_catalog,
};
use local_engine::{LOCAL_TABLE, seed};
use serde_json::Value;
use shared::Store;
use shared::domain::ids::{CustomerId, OrderId};
use shared::domain::money::Money;
use shared::domain::order::Order;
use shared::domain::status::OrderStatus;
use shared::domain::time::Timestamp;
use shared::dynamo::entities::order_listing;
use shared::dynamo::keys::StatusShards;

fn shards(n: u32) -> StatusShards {
    StatusShards::new(n).expect("shard count")
}

/// `count` orders of `status` spread over a few seconds, so that many share one (ties), for
/// customers c0..c6; `padding` bytes of extra attribute each (the 1 MB cap cuts reads short).
async fn write_orders(
    app: &TestApp,
    n: StatusShards,
    status: OrderStatus,
    count: usize,
    padding: usize,
) {
    let mut items = Vec::new();
    for i in 0..count {
        let order = Order {
            order_id: OrderId::parse(&format!("{}{i:04}", status.as_str().to_lowercase()))
                .expect("id"),
            customer_id: CustomerId::parse(&format!("c{}", i % 7)).expect("id"),
            placed_at: Timestamp::parse(&format!("2026-11-01T09:00:{:02}Z", (i * 7) % 23))
                .expect("t"),
            status,
            total: Money::parse_number("12.50").expect("money"),
            hold_until: None,
            payment_intent_id: None,
            payment_id: None,
            payment_error: None,
            dispute: None,
            withdrawn: None,
        };
        let mut item = order_listing::to_item(&order, n);
        if padding > 0 {
            item.insert("notes".into(), AttributeValue::S("p".repeat(padding)));
        }
        items.push(item);
    }
    seed::write_all(&app.engine.client(), LOCAL_TABLE, items)
        .await
        .expect("written");
}

/// The reference: each shard read whole with the source design's query (`GSI1PK = :pk` on GSI1,
/// oldest first), then merged by placedAt, ties by shard (a stable sort keeps each shard's own
/// order).
async fn reference(app: &TestApp, status: OrderStatus, n: StatusShards) -> Vec<String> {
    let mut rows = Vec::new();
    for k in 0..n.count() {
        let mut start = None;
        loop {
            let out = app
                .engine
                .client()
                .query()
                .table_name(LOCAL_TABLE)
                .index_name("GSI1")
                .key_condition_expression("GSI1PK = :pk")
                .expression_attribute_values(
                    ":pk",
                    AttributeValue::S(order_listing::gsi1pk(status, k)),
                )
                .set_exclusive_start_key(start)
                .send()
                .await
                .expect("query");
            for item in out.items.unwrap_or_default() {
                let at = item["GSI1SK"].as_s().expect("GSI1SK").clone();
                let id = item["orderId"].as_s().expect("orderId").clone();
                rows.push((at, k, id));
            }
            start = out.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
    }
    rows.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    rows.into_iter().map(|(_, _, id)| id).collect()
}

async fn page(store: &Store, query: &str) -> (u16, Value) {
    let (status, _, body) = parts(
        dispatch(
            store,
            get(Who::Staff, "GET /orders", "/orders", query),
            functions::list_orders_by_status::handle,
        )
        .await,
    );
    (status, body)
}

/// Every page of a listing, and the Queries each cost and how many went at once.
async fn pages(
    app: &TestApp,
    store: &Store,
    status: OrderStatus,
    limit: usize,
) -> Vec<(Vec<String>, usize, usize)> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let query = match &cursor {
            Some(c) => format!("status={status}&limit={limit}&cursor={c}"),
            None => format!("status={status}&limit={limit}"),
        };
        app.requests.reset();
        let (code, body) = page(store, &query).await;
        assert_eq!(code, 200, "{body}");
        out.push((
            order_ids(&body),
            app.requests.total(),
            app.requests.most_at_once(),
        ));
        match body["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return out,
        }
        assert!(out.len() < 1000, "the listing does not end");
    }
}

fn check_pages(
    listing: &[(Vec<String>, usize, usize)],
    limit: usize,
    expected: &[String],
    what: &str,
) {
    let all: Vec<String> = listing.iter().flat_map(|(ids, _, _)| ids.clone()).collect();
    assert_eq!(all, expected, "{what}: the merged listing is the reference");
    let unique: BTreeSet<&String> = all.iter().collect();
    assert_eq!(unique.len(), all.len(), "{what}: an order repeated");
    for (i, (ids, _, _)) in listing.iter().enumerate() {
        if i + 1 < listing.len() {
            assert_eq!(ids.len(), limit, "{what}: page {i} is not full");
        } else {
            assert!(
                ids.len() <= limit && (!ids.is_empty() || all.is_empty()),
                "{what}: last page"
            );
        }
    }
}

#[tokio::test]
async fn the_merged_listing_is_the_reference_for_1_2_7_and_16_shards_with_ties() {
    for n in [1, 2, 7, 16] {
        let app = TestApp::empty().await.expect("app");
        let store = app.store.clone().with_status_shards(shards(n));
        write_orders(&app, shards(n), OrderStatus::Placed, 230, 0).await;
        write_orders(&app, shards(n), OrderStatus::Shipped, 9, 0).await;
        let expected = reference(&app, OrderStatus::Placed, shards(n)).await;
        assert_eq!(expected.len(), 230);
        for limit in [1, 7, 25, 100] {
            let listing = pages(&app, &store, OrderStatus::Placed, limit).await;
            check_pages(&listing, limit, &expected, &format!("N={n} limit={limit}"));
            if limit == 25 {
                // One Query per shard per page, all at once.
                for (i, (_, requests, at_once)) in listing.iter().enumerate() {
                    assert_eq!(*requests, n as usize, "N={n} page {i}: Queries");
                    if n > 1 {
                        assert!(
                            *at_once > 1,
                            "N={n} page {i}: the shards were read one by one"
                        );
                    }
                }
            }
        }
    }
}

#[tokio::test]
async fn pages_cut_short_by_the_1mb_cap_are_still_full() {
    let app = TestApp::empty().await.expect("app");
    let n = shards(4);
    let store = app.store.clone().with_status_shards(n);
    // ~100 KB each: one read of a shard returns about ten.
    write_orders(&app, n, OrderStatus::Placed, 60, 100 * 1024).await;
    let expected = reference(&app, OrderStatus::Placed, n).await;
    let listing = pages(&app, &store, OrderStatus::Placed, 40).await;
    check_pages(&listing, 40, &expected, "1 MB");
    assert!(
        listing[0].1 > 4,
        "the cap made the first page read a shard on ({} Queries)",
        listing[0].1
    );
}

#[tokio::test]
async fn a_status_change_keeps_the_orders_shard() {
    let app = TestApp::seeded().await.expect("app");
    let n = shards(8);
    let store = app.store.clone().with_status_shards(n);
    let body = r#"{"items":[{"sku":"sku-1","quantity":1}]}"#;
    stock_catalog(&app.engine, body).await;
    let mut placed = Vec::new();
    for _ in 0..12 {
        let req = send_json(
            Who::Staff,
            "POST /customers/{customerId}/orders",
            "/customers/c2/orders",
            &[],
            body,
        );
        let (code, _, order) = parts(dispatch(&store, req, functions::place_order::handle).await);
        assert_eq!(code, 201, "{order}");
        placed.push(order);
    }
    for order in &placed {
        let id = order["orderId"].as_str().expect("id");
        let req = change_status(Who::Staff, id, "SHIPPED");
        assert_eq!(
            parts(dispatch(&store, req, functions::update_order_status::handle).await).0,
            200
        );
        let listing = app
            .engine
            .client()
            .get_item()
            .table_name(LOCAL_TABLE)
            .key("PK", AttributeValue::S("CUSTOMER#c2".into()))
            .key(
                "SK",
                AttributeValue::S(format!(
                    "ORDER#{}#{id}",
                    order["placedAt"].as_str().expect("at")
                )),
            )
            .send()
            .await
            .expect("get")
            .item
            .expect("listing");
        let k = n.of(&OrderId::parse(id).expect("id"));
        assert_eq!(
            listing["GSI1PK"].as_s().expect("GSI1PK"),
            &order_listing::gsi1pk(OrderStatus::Shipped, k)
        );
    }
    let shipped: Vec<String> = pages(&app, &store, OrderStatus::Shipped, 100)
        .await
        .into_iter()
        .flat_map(|(ids, _, _)| ids)
        .collect();
    for order in &placed {
        let id = order["orderId"].as_str().expect("id").to_owned();
        assert_eq!(shipped.iter().filter(|s| **s == id).count(), 1, "{id}");
    }
    assert_eq!(shipped, reference(&app, OrderStatus::Shipped, n).await);
}

#[tokio::test]
async fn raising_the_count_needs_no_migration_and_lowering_it_is_one_safe_command() {
    // The sample data: written by the source design's boto3 code, all in shard 0.
    let app = TestApp::seeded().await.expect("app");
    let seeded = reference(&app, OrderStatus::Placed, StatusShards::ONE).await;
    let eight = shards(8);
    let store = app.store.clone().with_status_shards(eight);
    write_orders(&app, eight, OrderStatus::Placed, 50, 0).await;
    let everything = reference(&app, OrderStatus::Placed, eight).await;
    assert_eq!(everything.len(), seeded.len() + 50);
    let listing = pages(&app, &store, OrderStatus::Placed, 25).await;
    check_pages(&listing, 25, &everything, "raised to 8");

    // Lowering to 3: the orders of shards 3..7 (and shard 0's that belong elsewhere) move.
    let three = shards(3);
    let lowered = app.store.clone().with_status_shards(three);
    let done = lowered.reshard_statuses().await.expect("resharded");
    assert!(done.moved > 0 && done.changed_meanwhile == 0, "{done:?}");
    let after = reference(&app, OrderStatus::Placed, three).await;
    let mut before_ids = everything.clone();
    let mut after_ids = after.clone();
    before_ids.sort();
    after_ids.sort();
    assert_eq!(
        after_ids, before_ids,
        "every order is in one of the 3 shards"
    );
    let listing = pages(&app, &lowered, OrderStatus::Placed, 25).await;
    check_pages(&listing, 25, &after, "lowered to 3");
    // While the store still serves with 8 shards, the listing finds every order once.
    let still: Vec<String> = pages(&app, &store, OrderStatus::Placed, 25)
        .await
        .into_iter()
        .flat_map(|(ids, _, _)| ids)
        .collect();
    let mut still_sorted = still.clone();
    still_sorted.sort();
    assert_eq!(still_sorted, before_ids);
    // Again: nothing left to move.
    let again = lowered.reshard_statuses().await.expect("resharded");
    assert_eq!((again.moved, again.changed_meanwhile), (0, 0));
}

#[tokio::test]
async fn a_cursor_holds_a_position_per_shard_and_refuses_another_count() {
    let app = TestApp::empty().await.expect("app");
    let eight = shards(8);
    write_orders(&app, eight, OrderStatus::Placed, 40, 0).await;
    let store = app.store.clone().with_status_shards(eight);
    let (_, body) = page(&store, "status=PLACED&limit=10").await;
    let cursor = body["nextCursor"].as_str().expect("cursor").to_owned();
    // The same cursor with fewer shards names a shard that no longer exists: a 400.
    let fewer = app.store.clone().with_status_shards(shards(2));
    let (code, problem) = page(&fewer, &format!("status=PLACED&cursor={cursor}")).await;
    assert_eq!(code, 400, "{problem}");
    // With the count it came from, it continues.
    let (code, next) = page(&store, &format!("status=PLACED&limit=10&cursor={cursor}")).await;
    assert_eq!(code, 200);
    assert_eq!(order_ids(&next).len(), 10);
}

/// One bad item never stops the reshard: an item in a status shard whose sort key is no
/// listing's (written by other code) is reported by key, and every other order still moves.
/// Before, it was passed over in silence; a move DynamoDB refused ended the whole run.
#[tokio::test]
async fn an_item_the_reshard_cannot_read_is_reported_and_the_rest_still_move() {
    let app = TestApp::empty().await.expect("app");
    let eight = shards(8);
    write_orders(&app, eight, OrderStatus::Placed, 30, 0).await;
    let bad: std::collections::HashMap<String, AttributeValue> = [
        ("PK", "CUSTOMER#c1"),
        ("SK", "ORDER#not-a-time#o1"),
        ("GSI1PK", "STATUS#PLACED#5"),
        ("GSI1SK", "2026-11-01T09:00:00Z"),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), AttributeValue::S(value.to_owned())))
    .collect();
    seed::write_all(&app.engine.client(), LOCAL_TABLE, vec![bad])
        .await
        .expect("written");
    let lowered = app.store.clone().with_status_shards(shards(2));
    let done = lowered.reshard_statuses().await.expect("resharded");
    assert_eq!(done.examined, 31, "{done:?}");
    assert_eq!(done.failures.len(), 1, "{done:?}");
    assert_eq!(done.failures[0].key, "CUSTOMER#c1 / ORDER#not-a-time#o1");
    assert!(
        done.failures[0].reason.contains("sort key"),
        "{:?}",
        done.failures[0]
    );
    let after = reference(&app, OrderStatus::Placed, shards(2)).await;
    assert_eq!(
        after.len(),
        30,
        "every readable order in one of the 2 shards"
    );
    // Again: nothing left to move, and the bad item reported again.
    let again = lowered.reshard_statuses().await.expect("resharded");
    assert_eq!((again.moved, again.failures.len()), (0, 1), "{again:?}");
}
