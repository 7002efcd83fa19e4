//! `store-migrate`'s first migration, `0001-line-item-gsi2`, on an embedded engine: line items
//! written before GSI2 — by this store's earlier versions (with a header) and by the source
//! design's boto3 code (listing only) — become listed under their product, each once, newest
//! first; a second run changes nothing; a run stopped mid-way resumes; live orders and status
//! changes beside it, and throttling, change nothing of that.

use std::collections::BTreeSet;
use std::sync::Arc;

use local_engine::faults::Fault;
use local_engine::testing::{TestApp, Who, change_status, get, parts, send_json};
use shared::Store;
use shared::domain::ids::{CustomerId, OrderId, Sku};
use shared::domain::money::Money;
use shared::domain::order::{LineItem, Order};
use shared::domain::status::OrderStatus;
use shared::domain::time::Timestamp;
use shared::dynamo::codec::Item;
use shared::dynamo::entities::{line_item, order_header, order_listing};
use shared::dynamo::keys::StatusShards;
use shared::dynamo::migrations::{Budget, Migration, Options, Progress, Report};
use shared::http::serve::dispatch;

const MIGRATION: Migration = Migration::LineItemGsi2;

fn options(segments: u32) -> Options {
    Options {
        segments,
        max_read: None,
        max_write: None,
        dry_run: false,
    }
}

async fn migrate(store: &Store, options: &Options) -> Report {
    let budget = Budget::new(options.max_read, options.max_write);
    store
        .migrate(MIGRATION, options, &budget, &Progress::default())
        .await
        .expect("migrated")
}

/// An order by `customer`, placed `at` (its lines: [`line`]).
fn order(id: &str, customer: &str, at: &str) -> Order {
    Order {
        order_id: OrderId::parse(id).expect("id"),
        customer_id: CustomerId::parse(customer).expect("id"),
        placed_at: Timestamp::parse(at).expect("t"),
        status: OrderStatus::Placed,
        total: Money::parse_number("2.00").expect("money"),
        hold_until: None,
    }
}

fn line(sku: &str) -> LineItem {
    LineItem {
        sku: Sku::parse(sku).expect("sku"),
        quantity: 1,
        price: Money::parse_number("1.00").expect("money"),
    }
}

/// What the source design's boto3 code writes: the listing and the line items, no header.
fn source_design_order(order: &Order, skus: &[&str]) -> Vec<Item> {
    let mut items = vec![order_listing::to_item(order, StatusShards::ONE)];
    items.extend(
        skus.iter()
            .map(|sku| line_item::source_design_item(&order.order_id, &line(sku))),
    );
    items
}

/// What this store wrote before GSI2: the same, and the header.
fn pre_gsi2_order(order: &Order, skus: &[&str]) -> Vec<Item> {
    let mut items = source_design_order(order, skus);
    items.push(order_header::to_item(order));
    items
}

async fn write(app: &TestApp, items: Vec<Item>) {
    local_engine::seed::write_all(&app.engine.client(), local_engine::LOCAL_TABLE, items)
        .await
        .expect("written");
}

/// Every page of `GET /products/{sku}/orders`, as staff: the order IDs, in order, checked to
/// be newest first.
async fn listed(app: &TestApp, sku: &str) -> Vec<String> {
    let mut times: Vec<String> = Vec::new();
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let query = match &cursor {
            Some(c) => format!("limit=7&cursor={c}"),
            None => "limit=7".to_owned(),
        };
        let req = get(
            Who::Staff,
            "GET /products/{sku}/orders",
            &format!("/products/{sku}/orders"),
            &query,
        );
        let (status, _, body) = parts(dispatch(&app.store, req, list_product_orders::handle).await);
        assert_eq!(status, 200, "{body}");
        for item in body["items"].as_array().expect("items") {
            ids.push(item["orderId"].as_str().expect("id").to_owned());
            times.push(item["placedAt"].as_str().expect("time").to_owned());
        }
        cursor = body["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            assert!(
                times.windows(2).all(|w| w[0] >= w[1]),
                "newest first: {times:?}"
            );
            return ids;
        }
    }
}

/// Places an order of `skus` through the API, as `customer`; its ID.
async fn place(store: &Store, customer: &str, skus: &[&str]) -> String {
    let lines: Vec<String> = skus
        .iter()
        .map(|sku| format!(r#"{{"sku":"{sku}","quantity":1}}"#))
        .collect();
    let req = send_json(
        Who::Customer(customer),
        "POST /customers/{customerId}/orders",
        &format!("/customers/{customer}/orders"),
        &[],
        &format!(r#"{{"items":[{}]}}"#, lines.join(",")),
    );
    let (status, _, body) = parts(dispatch(store, req, place_order::handle).await);
    assert_eq!(status, 201, "{body}");
    body["orderId"].as_str().expect("id").to_owned()
}

/// The line items of the table still without GSI2 keys.
async fn lines_without_gsi2(app: &TestApp) -> Vec<String> {
    local_engine::testing::all_items(app)
        .await
        .iter()
        .filter(|item| item["SK"].as_s().is_ok_and(|sk| sk.starts_with("ITEM#")))
        .filter(|item| !item.contains_key("GSI2PK"))
        .map(|item| format!("{:?}/{:?}", item["PK"], item["SK"]))
        .collect()
}

#[tokio::test]
async fn old_line_items_are_listed_after_the_migration_once_each_and_a_second_run_changes_nothing()
{
    let app = TestApp::seeded().await.expect("app");
    let old = order("old1", "c2", "2026-09-01T10:00:00Z");
    let boto3 = order("boto3a", "c3", "2026-09-02T10:00:00Z");
    write(&app, pre_gsi2_order(&old, &["sku-1", "sku-2"])).await;
    write(&app, source_design_order(&boto3, &["sku-1"])).await;
    let new = place(&app.store, "c1", &["sku-1"]).await;
    // Before: only what was placed since GSI2.
    assert_eq!(listed(&app, "sku-1").await, std::slice::from_ref(&new));

    let report = migrate(&app.store, &options(3)).await;
    assert!(
        report.counts.changed > 0 && report.counts.unplaceable == 0,
        "{report:?}"
    );
    assert!(lines_without_gsi2(&app).await.is_empty());
    let after = listed(&app, "sku-1").await;
    let unique: BTreeSet<&String> = after.iter().collect();
    assert_eq!(unique.len(), after.len(), "each order once: {after:?}");
    assert_eq!(after.first(), Some(&new), "newest first");
    assert!(after.contains(&"old1".to_owned()) && after.contains(&"boto3a".to_owned()));
    let expected: BTreeSet<String> = local_engine::seed::orders()
        .iter()
        .filter(|o| o.lines.iter().any(|(sku, _, _)| sku == "sku-1"))
        .map(|o| o.order_id.clone())
        .chain([new, "old1".to_owned(), "boto3a".to_owned()])
        .collect();
    assert_eq!(
        unique,
        expected.iter().collect(),
        "every order containing sku-1"
    );
    let again = migrate(&app.store, &options(3)).await;
    assert!(again.already_complete, "{again:?}");
    assert_eq!(again.counts.changed, 0);
}

#[tokio::test]
async fn a_line_item_whose_order_cannot_be_found_is_reported_and_left_alone() {
    let app = TestApp::empty().await.expect("app");
    let lost = order("lost1", "c1", "2026-09-01T10:00:00Z");
    // A line item with no header and no listing: the source design's writes, half done.
    write(
        &app,
        vec![line_item::source_design_item(
            &lost.order_id,
            &line("sku-1"),
        )],
    )
    .await;
    let boto3 = order("boto3b", "c1", "2026-09-03T10:00:00Z");
    write(&app, source_design_order(&boto3, &["sku-1", "sku-9"])).await;
    // One segment per item, so lines and listings are met in different segments.
    let report = migrate(&app.store, &options(8)).await;
    assert_eq!(report.counts.unplaceable, 1, "{report:?}");
    assert_eq!(report.counts.changed, 2, "{report:?}");
    let left = lines_without_gsi2(&app).await;
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].contains("lost1"));
    assert_eq!(listed(&app, "sku-9").await, ["boto3b"]);
}

#[tokio::test]
async fn a_dry_run_counts_and_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let before = lines_without_gsi2(&app).await.len();
    let report = migrate(
        &app.store,
        &Options {
            dry_run: true,
            ..options(2)
        },
    )
    .await;
    assert_eq!(report.counts.changed as usize, before);
    assert_eq!(
        lines_without_gsi2(&app).await.len(),
        before,
        "nothing written"
    );
    let real = migrate(&app.store, &options(2)).await;
    assert_eq!(
        real.counts.changed as usize, before,
        "the dry run's count was the real one"
    );
}

#[tokio::test]
async fn a_run_stopped_mid_way_resumes_and_scans_less_than_the_whole_table() {
    let app = TestApp::seeded().await.expect("app");
    let mut extra = Vec::new();
    for n in 0..400 {
        let o = order(
            &format!("old{n}"),
            "c4",
            &format!("2026-08-{:02}T10:00:00Z", n % 28 + 1),
        );
        extra.extend(pre_gsi2_order(&o, &["sku-3"]));
    }
    write(&app, extra).await;
    let total = local_engine::testing::all_items(&app).await.len() as u64;
    // Stopped (the task dropped, as a SIGKILL would leave it) once some pages are done.
    let progress = Arc::new(Progress::default());
    let slow = Options {
        max_write: Some(400.0),
        ..options(2)
    };
    let running = {
        let (store, progress, slow) = (app.store.clone(), progress.clone(), slow.clone());
        tokio::spawn(async move {
            let budget = Budget::new(slow.max_read, slow.max_write);
            store.migrate(MIGRATION, &slow, &budget, &progress).await
        })
    };
    while progress.counts().changed < 150 {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    running.abort();
    let _ = running.await;
    assert!(
        !lines_without_gsi2(&app).await.is_empty(),
        "stopped before the end"
    );

    let resumed = migrate(&app.store, &options(2)).await;
    assert!(
        resumed.counts.scanned < total,
        "{} of {total} scanned again",
        resumed.counts.scanned
    );
    assert!(lines_without_gsi2(&app).await.is_empty());
    let listed = listed(&app, "sku-3").await;
    let unique: BTreeSet<&String> = listed.iter().collect();
    assert_eq!(unique.len(), listed.len(), "each order once");
    assert!((0..400).all(|n| unique.contains(&format!("old{n}"))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn orders_placed_and_shipped_meanwhile_are_listed_once_and_nothing_is_lost() {
    let app = TestApp::seeded().await.expect("app");
    let migration = {
        let store = app.store.clone();
        tokio::spawn(async move { migrate(&store, &options(4)).await })
    };
    let mut placed = Vec::new();
    for n in 0..20 {
        let id = place(&app.store, &format!("c{}", n % 5 + 1), &["sku-2", "sku-5"]).await;
        let req = change_status(Who::Staff, &id, "SHIPPED");
        assert_eq!(
            parts(dispatch(&app.store, req, update_order_status::handle).await).0,
            200
        );
        placed.push(id);
    }
    let report = migration.await.expect("task");
    assert_eq!(report.counts.unplaceable, 0);
    assert!(lines_without_gsi2(&app).await.is_empty());
    let listed = listed(&app, "sku-5").await;
    let unique: BTreeSet<&String> = listed.iter().collect();
    assert_eq!(unique.len(), listed.len(), "each order once");
    assert!(placed.iter().all(|id| unique.contains(id)));
}

#[tokio::test]
async fn throttling_is_waited_out_and_nothing_is_written_twice_or_lost() {
    let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
    faults
        .inject("Scan", Fault::Throttling, 5)
        .inject("UpdateItem", Fault::ThroughputExceeded, 5)
        .inject("BatchGetItem", Fault::InternalServerError, 5)
        .inject("PutItem", Fault::Throttling, 5);
    let before = lines_without_gsi2(&app).await.len() as u64;
    let report = migrate(&app.store, &options(2)).await;
    assert_eq!(
        report.counts.changed + report.counts.skipped,
        before,
        "{report:?}"
    );
    assert!(lines_without_gsi2(&app).await.is_empty());
    assert!(
        faults.injected().len() >= 20,
        "the faults were met: {:?}",
        faults.injected()
    );
}

#[tokio::test]
async fn the_pace_holds_to_the_write_units_asked_for() {
    let app = TestApp::seeded().await.expect("app");
    let report = migrate(
        &app.store,
        &Options {
            max_write: Some(50.0),
            ..options(2)
        },
    )
    .await;
    let per_second = report.spent.write / report.seconds;
    assert!(report.spent.write > 100.0, "{report:?}");
    assert!(per_second <= 50.0 * 1.02, "{per_second} WCU/s");
}
