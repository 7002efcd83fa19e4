//! `store-migrate`'s migrations on an embedded engine (the second, `0002-products`, in
//! `products.rs`). The first, `0001-line-item-gsi2`: line items
//! written before GSI2 — by this store's earlier versions (with a header) and by the source
//! design's boto3 code (listing only) — become listed under their product, each once, newest
//! first; a second run changes nothing; a run stopped mid-way resumes; live orders and status
//! changes beside it, and throttling, change nothing of that.

mod products;

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
        ..Options::default()
    }
}

async fn migrate(store: &Store, options: &Options) -> Report {
    run(store, MIGRATION, options).await
}

/// `migration` run to its end with `options`, unpaced unless they say otherwise.
async fn run(store: &Store, migration: Migration, options: &Options) -> Report {
    let budget = Budget::new(options.max_read, options.max_write);
    store
        .migrate(migration, options, &budget, &Progress::default())
        .await
        .expect("migrated")
}

/// `migration` resumed on two segments after [`stop_after`]: its report, which must show that
/// it scanned less than the `total` items the table holds (the stopped run's finished pages
/// were not scanned again).
async fn resume(store: &Store, migration: Migration, total: u64) -> Report {
    let resumed = run(store, migration, &options(2)).await;
    assert!(
        resumed.counts.scanned < total,
        "{} of {total} scanned again",
        resumed.counts.scanned
    );
    resumed
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
        payment_intent_id: None,
        payment_id: None,
        payment_error: None,
        dispute: None,
        withdrawn: None,
    }
}

fn line(sku: &str) -> LineItem {
    LineItem::untitled(
        Sku::parse(sku).expect("sku"),
        1,
        Money::parse_number("1.00").expect("money"),
    )
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

/// Every page of `GET /variants/{sku}/orders`, as staff: the order IDs, in order, checked to
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
            "GET /variants/{sku}/orders",
            &format!("/variants/{sku}/orders"),
            &query,
        );
        let (status, _, body) =
            parts(dispatch(&app.store, req, functions::list_product_orders::handle).await);
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
        Who::Staff,
        "POST /customers/{customerId}/orders",
        &format!("/customers/{customer}/orders"),
        &[],
        &format!(r#"{{"items":[{}]}}"#, lines.join(",")),
    );
    let (status, _, body) = parts(dispatch(store, req, functions::place_order::handle).await);
    assert_eq!(status, 201, "{body}");
    body["orderId"].as_str().expect("id").to_owned()
}

/// Runs `migration` slowly (400 write units a second, two segments) and stops it once it has
/// changed `changed` items: the task dropped, as a SIGKILL would leave it.
async fn stop_after(store: &Store, migration: Migration, changed: u64) {
    let progress = Arc::new(Progress::default());
    let slow = Options {
        max_write: Some(400.0),
        ..options(2)
    };
    let running = {
        let (store, progress, slow) = (store.clone(), progress.clone(), slow.clone());
        tokio::spawn(async move {
            let budget = Budget::new(slow.max_read, slow.max_write);
            store.migrate(migration, &slow, &budget, &progress).await
        })
    };
    while progress.counts().changed < changed {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    running.abort();
    let _ = running.await;
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
    stop_after(&app.store, MIGRATION, 150).await;
    assert!(
        !lines_without_gsi2(&app).await.is_empty(),
        "stopped before the end"
    );

    resume(&app.store, MIGRATION, total).await;
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
            parts(dispatch(&app.store, req, functions::update_order_status::handle).await).0,
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

/// The migration's own records of the items it could not place: (item PK, item SK, reason).
async fn recorded_unplaceable(app: &TestApp) -> Vec<(String, String, String)> {
    let text = |item: &Item, name: &str| {
        item.get(name)
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default()
    };
    let mut found: Vec<(String, String, String)> = local_engine::testing::all_items(app)
        .await
        .iter()
        .filter(|item| text(item, "SK").starts_with("UNPLACEABLE#"))
        .map(|item| {
            (
                text(item, "itemPK"),
                text(item, "itemSK"),
                text(item, "reason"),
            )
        })
        .collect();
    found.sort();
    found
}

/// The completion record's count of items left unplaced.
async fn left_on_completion(app: &TestApp) -> Option<String> {
    let status = app
        .engine
        .client()
        .get_item()
        .table_name(local_engine::LOCAL_TABLE)
        .key("PK", s(&format!("MIGRATION#{}", MIGRATION.name())))
        .key("SK", s("STATUS"))
        .send()
        .await
        .expect("read")
        .item?;
    status.get("unplaceable")?.as_n().ok().cloned()
}

fn s(v: &str) -> aws_sdk_dynamodb::types::AttributeValue {
    aws_sdk_dynamodb::types::AttributeValue::S(v.to_owned())
}

/// A line item as code outside the store may have written it, keys and all.
fn raw_line(pk: &str, sk: &str) -> Item {
    Item::from([
        ("PK".to_owned(), s(pk)),
        ("SK".to_owned(), s(sk)),
        (
            "quantity".to_owned(),
            aws_sdk_dynamodb::types::AttributeValue::N("1".into()),
        ),
        (
            "price".to_owned(),
            aws_sdk_dynamodb::types::AttributeValue::N("1.00".into()),
        ),
    ])
}

#[tokio::test]
async fn items_it_cannot_place_are_reported_by_key_and_the_run_completes_and_can_retry_them() {
    // The sample data (its line items predate GSI2), with bad items seeded among them.
    let app = TestApp::seeded().await.expect("app");
    let legacy = lines_without_gsi2(&app).await.len() as u64;
    // A header that lost its customerId, beside its listing: placed from the listing.
    let listed_order = order("badh1", "c1", "2026-09-01T10:00:00Z");
    let mut items = source_design_order(&listed_order, &["sku-1"]);
    let mut header = order_header::to_item(&listed_order);
    header.remove("customerId");
    items.push(header);
    // The same with no listing: nothing to place its line from.
    let orphan = order("badh2", "c1", "2026-09-02T10:00:00Z");
    let mut header = order_header::to_item(&orphan);
    header.remove("customerId");
    items.push(header);
    items.push(line_item::source_design_item(
        &orphan.order_id,
        &line("sku-2"),
    ));
    // Keys outside today's ID grammar.
    items.push(raw_line("ORDER#o.901", "ITEM#sku-1"));
    items.push(raw_line("ORDER#o902", "ITEM#sku 1"));
    write(&app, items).await;

    let report = migrate(&app.store, &options(4)).await;
    assert_eq!(report.counts.changed, legacy + 1, "{report:?}");
    assert_eq!(report.counts.unplaceable, 3, "{report:?}");
    assert!(listed(&app, "sku-1").await.contains(&"badh1".to_owned()));
    // Every line but the three is listed now.
    let left = lines_without_gsi2(&app).await;
    assert_eq!(left.len(), 3, "{left:?}");
    let recorded = recorded_unplaceable(&app).await;
    let keys: Vec<(&str, &str)> = recorded
        .iter()
        .map(|(pk, sk, _)| (pk.as_str(), sk.as_str()))
        .collect();
    assert_eq!(
        keys,
        [
            ("ORDER#badh2", "ITEM#sku-2"),
            ("ORDER#o.901", "ITEM#sku-1"),
            ("ORDER#o902", "ITEM#sku 1"),
        ]
    );
    assert!(recorded[0].2.contains("no header"), "{recorded:?}");
    assert!(recorded[1].2.contains("ID grammar"), "{recorded:?}");
    assert_eq!(left_on_completion(&app).await.as_deref(), Some("3"));
    let again = migrate(&app.store, &options(4)).await;
    assert!(again.already_complete, "{again:?}");

    // The operator repairs two: the header gets its customer back, the odd line is removed.
    write(&app, vec![order_header::to_item(&orphan)]).await;
    app.engine
        .client()
        .delete_item()
        .table_name(local_engine::LOCAL_TABLE)
        .key("PK", s("ORDER#o.901"))
        .key("SK", s("ITEM#sku-1"))
        .send()
        .await
        .expect("deleted");
    let retried = migrate(
        &app.store,
        &Options {
            retry_unplaceable: true,
            ..options(4)
        },
    )
    .await;
    assert_eq!(retried.counts.changed, 1, "{retried:?}");
    assert_eq!(retried.counts.unplaceable, 1, "{retried:?}");
    assert!(listed(&app, "sku-2").await.contains(&"badh2".to_owned()));
    let left = recorded_unplaceable(&app).await;
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0].1, "ITEM#sku 1");
    assert_eq!(left_on_completion(&app).await.as_deref(), Some("1"));
}

#[tokio::test]
async fn without_its_index_nothing_is_written_and_nothing_is_recorded_complete() {
    let app = TestApp::empty().await.expect("app");
    let client = app.engine.client();
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    };
    let attribute = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .expect("attribute")
    };
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .expect("key")
    };
    client
        .create_table()
        .table_name("NoGsi2")
        .attribute_definitions(attribute("PK"))
        .attribute_definitions(attribute("SK"))
        .key_schema(key("PK", KeyType::Hash))
        .key_schema(key("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("table");
    let old = order("old1", "c1", "2026-09-01T10:00:00Z");
    local_engine::seed::write_all(&client, "NoGsi2", pre_gsi2_order(&old, &["sku-1"]))
        .await
        .expect("written");
    let store = Store::new(client.clone(), "NoGsi2");
    let budget = Budget::new(None, None);
    let err = store
        .migrate(MIGRATION, &options(2), &budget, &Progress::default())
        .await
        .expect_err("refused");
    assert!(err.to_string().contains("no index GSI2"), "{err}");
    let items = client
        .scan()
        .table_name("NoGsi2")
        .send()
        .await
        .expect("scan")
        .items
        .unwrap_or_default();
    assert_eq!(items.len(), 3, "nothing written, no state recorded");
    assert!(items.iter().all(|item| !item.contains_key("GSI2PK")));
}

#[tokio::test]
async fn rerun_reopens_a_completed_migration() {
    let app = TestApp::empty().await.expect("app");
    write(
        &app,
        pre_gsi2_order(&order("old1", "c1", "2026-09-01T10:00:00Z"), &["sku-1"]),
    )
    .await;
    assert_eq!(migrate(&app.store, &options(2)).await.counts.changed, 1);
    // Old lines restored from a backup after the migration completed.
    write(
        &app,
        pre_gsi2_order(&order("old2", "c1", "2026-09-02T10:00:00Z"), &["sku-1"]),
    )
    .await;
    assert!(migrate(&app.store, &options(2)).await.already_complete);
    let rerun = migrate(
        &app.store,
        &Options {
            rerun: true,
            ..options(2)
        },
    )
    .await;
    assert!(!rerun.already_complete);
    assert_eq!(rerun.counts.changed, 1, "{rerun:?}");
    assert_eq!(listed(&app, "sku-1").await, ["old2", "old1"]);
}

#[test]
fn usage_errors_exit_2_with_a_plain_message_and_touch_nothing() {
    for args in [
        &["--table"][..],
        &["--max-rcu", "1e-30"],
        &["--max-wcu", "inf"],
        &["--segments"],
        &["--rerun", "--retry-unplaceable"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_store-migrate"))
            .args(args)
            // Nowhere to connect to: a usage error must be found before any request.
            .env("TABLE_NAME", "AppTable")
            .env("AWS_ENDPOINT_URL_DYNAMODB", "http://127.0.0.1:9")
            .env("AWS_REGION", "us-east-1")
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("store-migrate: "), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("Error(") && !stderr.contains('{'),
            "plain: {stderr}"
        );
    }
}
