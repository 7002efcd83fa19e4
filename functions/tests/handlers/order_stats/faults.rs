//! The stream consumer under DynamoDB's own faults (`local_engine::faults`): collisions and
//! throttling are retried, a batch that cannot be written is reported for redelivery with
//! nothing half-written, and the statistics end exact.

use local_engine::declared::as_function;
use std::collections::BTreeMap;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use local_engine::faults::Fault;
use local_engine::streams::{self, StreamSource};
use local_engine::testing::dispatch;
use local_engine::testing::{
    TestApp, Who, all_items, change_status, parts, send_json, stock_catalog,
};
use local_engine::{LOCAL_TABLE, template};
use shared::domain::ids::CustomerId;

fn source(app: &TestApp) -> StreamSource {
    let consumer = streams::consumers(&template::parse().expect("template"))
        .expect("consumers")
        .remove(0);
    StreamSource::open(app.engine.database(), LOCAL_TABLE, consumer, None).expect("stream")
}

/// Orders for c1 and c2 (placed and one cancelled), and their records.
async fn orders(app: &TestApp) -> Vec<EventRecord> {
    let mut source = source(app);
    source
        .read_all()
        .expect("the seed's records are not this test's");
    let body = r#"{"items":[{"sku":"f-1","quantity":1,"price":"4.25"}]}"#;
    stock_catalog(&app.engine, body).await;
    let mut placed = Vec::new();
    for customer in ["c1", "c2", "c1", "c2", "c1"] {
        let req = send_json(
            Who::Staff,
            "POST /customers/{customerId}/orders",
            &format!("/customers/{customer}/orders"),
            &[],
            body,
        );
        let (status, _, body) =
            parts(dispatch(&app.store, req, functions::place_order::handle).await);
        assert_eq!(status, 201, "{body}");
        placed.push(body["orderId"].as_str().expect("id").to_owned());
    }
    let req = change_status(Who::Staff, &placed[0], "CANCELLED");
    assert_eq!(
        parts(dispatch(&app.store, req, functions::update_order_status::handle).await).0,
        200
    );
    source.read_all().expect("records")
}

fn event(records: Vec<EventRecord>) -> Event {
    let mut event = Event::default();
    event.records = records;
    event
}

/// orderCount and totalSpent of c1 and c2 (the customers this test's records are about) as
/// GET /customers shows them, and as their listings say.
async fn stats_and_truth(
    app: &TestApp,
) -> (
    BTreeMap<String, (u64, String)>,
    BTreeMap<String, (u64, String)>,
) {
    let mut truth: BTreeMap<String, (u64, shared::domain::money::Decimal)> = BTreeMap::new();
    for item in all_items(app).await {
        let (Ok(pk), Ok(sk)) = (item["PK"].as_s(), item["SK"].as_s()) else {
            continue;
        };
        let (Some(customer @ ("c1" | "c2")), true) =
            (pk.strip_prefix("CUSTOMER#"), sk.starts_with("ORDER#"))
        else {
            continue;
        };
        let entry = truth.entry(customer.to_owned()).or_default();
        entry.0 += 1;
        if item["status"].as_s().expect("status") != "CANCELLED" {
            entry.1 += item["total"]
                .as_n()
                .expect("total")
                .parse::<shared::domain::money::Decimal>()
                .expect("n");
        }
    }
    let store = app.direct_store();
    let mut shown = BTreeMap::new();
    let mut expected = BTreeMap::new();
    for (customer, (count, spent)) in truth {
        let profile = store
            .get_customer(&CustomerId::parse(&customer).expect("id"))
            .await
            .expect("read")
            .expect("profile");
        shown.insert(
            customer.clone(),
            (
                profile.stats.order_count,
                profile.stats.total_spent.to_string(),
            ),
        );
        expected.insert(
            customer,
            (count, shared::domain::money::Money::new(spent).to_string()),
        );
    }
    (shown, expected)
}

#[tokio::test]
async fn collisions_throttling_and_failures_are_retried_and_the_statistics_end_exact() {
    let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
    let records = orders(&app).await;
    assert_eq!(records.len(), 6);
    faults
        .inject("Query", Fault::Throttling, 1)
        .inject("TransactWriteItems", Fault::TransactionConflict, 2)
        .inject("TransactWriteItems", Fault::ThroughputExceeded, 1)
        .inject("TransactWriteItems", Fault::InternalServerError, 1)
        .inject("TransactWriteItems", Fault::TimeoutAfterApplying, 1);
    let response = as_function(
        "order-stats",
        functions::order_stats::handle(&app.store, event(records)),
    )
    .await;
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(faults.injected().len(), 6, "every planned fault was met");
    let (shown, truth) = stats_and_truth(&app).await;
    assert_eq!(shown, truth);
}

#[tokio::test]
async fn a_batch_dynamodb_will_not_take_is_reported_whole_and_writes_nothing_until_redelivered() {
    let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
    let records = orders(&app).await;
    let before = all_items(&app).await.len();
    let (shown_before, _) = stats_and_truth(&app).await;
    faults.always("TransactWriteItems", Fault::Throttling);
    let response = as_function(
        "order-stats",
        functions::order_stats::handle(&app.store, event(records.clone())),
    )
    .await;
    let reported: Vec<String> = response
        .batch_item_failures
        .iter()
        .filter_map(|f| f.item_identifier.clone())
        .collect();
    let all: Vec<String> = records
        .iter()
        .map(|r| r.change.sequence_number.clone().expect("seq"))
        .collect();
    assert_eq!(reported, all, "every record, for Lambda to deliver again");
    assert_eq!(all_items(&app).await.len(), before, "no share written");
    assert_eq!(
        stats_and_truth(&app).await.0,
        shown_before,
        "no statistic moved"
    );
    faults.clear();
    let response = as_function(
        "order-stats",
        functions::order_stats::handle(&app.store, event(records)),
    )
    .await;
    assert!(response.batch_item_failures.is_empty());
    let (shown, truth) = stats_and_truth(&app).await;
    assert_eq!(shown, truth);
}
