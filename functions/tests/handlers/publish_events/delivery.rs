//! At least once, never blocked: a batch delivered twice gives the same events; what the bus
//! does not take is sent again, and only that; a record that cannot be published goes to the
//! dead-letter queue with its reason while the records after it are published.

use std::collections::BTreeSet;
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::faults::Fault;
use local_engine::testing::{Who, change_status, dispatch, parts, send_json};
use serde_json::Value;

use crate::publish_events::{Harness, batch, failures, handle};

/// Three orders placed by staff and one shipped: five events (the shipped order's status and
/// its fulfilment's) over five records.
async fn five_events(h: &Harness) -> Vec<String> {
    let mut orders = Vec::new();
    for sku in ["sku-1", "sku-2", "sku-3"] {
        let req = send_json(
            Who::Staff,
            "POST /customers/{customerId}/orders",
            "/customers/c1/orders",
            &[],
            &format!(r#"{{"items":[{{"sku":"{sku}","quantity":1}}]}}"#),
        );
        let (status, _, body) =
            parts(dispatch(&h.app.store, req, functions::place_order::handle).await);
        assert_eq!(status, 201, "{body}");
        orders.push(body["orderId"].as_str().expect("id").to_owned());
    }
    let (status, _, body) = parts(
        dispatch(
            &h.app.store,
            change_status(Who::Staff, &orders[0], "SHIPPED"),
            functions::update_order_status::handle,
        )
        .await,
    );
    assert_eq!(status, 200, "{body}");
    orders
}

fn ids(envelopes: &[Value]) -> Vec<String> {
    let mut ids: Vec<String> = envelopes
        .iter()
        .map(|e| e["detail"]["eventId"].as_str().expect("id").to_owned())
        .collect();
    ids.sort();
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_delivered_twice_gives_the_same_events_twice() {
    let mut h = Harness::new().await;
    five_events(&h).await;
    let records = h.records();
    let first = handle(&h.publisher, batch(records.clone())).await;
    assert_eq!(failures(&first), Vec::<String>::new());
    let once = h.heard().await;
    let again = handle(&h.publisher, batch(records)).await;
    assert_eq!(failures(&again), Vec::<String>::new());
    let twice = h.heard().await;
    assert_eq!(ids(&once).len(), 5);
    assert_eq!(ids(&once), ids(&twice), "the same eventIds on redelivery");
    let details = |envelopes: &[Value]| {
        let mut d: Vec<String> = envelopes.iter().map(|e| e["detail"].to_string()).collect();
        d.sort();
        d
    };
    assert_eq!(details(&once), details(&twice), "and the same events");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_500_and_throttling_are_sent_again_until_the_bus_takes_them() {
    let mut h = Harness::new().await;
    five_events(&h).await;
    // More than the SDK's own four attempts: the publisher's resend has to finish the job.
    h.faults
        .inject("PutEvents", Fault::InternalServerError, 3)
        .inject("PutEvents", Fault::Throttling, 3);
    let records = h.records();
    let response = handle(&h.publisher, batch(records)).await;
    assert_eq!(failures(&response), Vec::<String>::new());
    assert_eq!(h.faults.injected().len(), 6);
    let heard = h.heard().await;
    assert_eq!(ids(&heard).len(), 5);
    assert_eq!(h.dead_letters().await, Vec::<Value>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_a_partly_failed_call_only_the_entries_not_taken_are_sent_again() {
    let mut h = Harness::new().await;
    five_events(&h).await;
    h.faults.inject(
        "PutEvents",
        Fault::FirstEntryFailed("ThrottlingException"),
        1,
    );
    let records = h.records();
    let response = handle(&h.publisher, batch(records)).await;
    assert_eq!(failures(&response), Vec::<String>::new());
    let heard = h.heard().await;
    let unique: BTreeSet<String> = ids(&heard).into_iter().collect();
    assert_eq!(unique.len(), 5, "every event on the bus");
    assert_eq!(
        heard.len(),
        5,
        "and none twice: the four taken were not sent again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bus_that_stays_down_leaves_the_records_to_be_delivered_again_not_lost() {
    let mut h = Harness::new().await;
    five_events(&h).await;
    let records = h.records();
    h.faults.always("PutEvents", Fault::Throttling);
    // Too short a budget for a resend: the SDK's own attempts, then the records are reported.
    let response = as_publisher(&h, batch(records.clone()), Duration::from_secs(1)).await;
    assert_eq!(
        failures(&response),
        sequence_numbers(&records[first_with_events(&records)..]),
        "every record from the first not published (the stock's before it give no event)"
    );
    assert_eq!(h.heard().await, Vec::<Value>::new());
    assert_eq!(
        h.dead_letters().await,
        Vec::<Value>::new(),
        "a passing fault is no dead letter"
    );
    h.faults.clear();
    let retried = handle(&h.publisher, batch(records)).await;
    assert_eq!(failures(&retried), Vec::<String>::new());
    assert_eq!(ids(&h.heard().await).len(), 5);
}

async fn as_publisher(
    h: &Harness,
    event: aws_lambda_events::event::dynamodb::Event,
    budget: Duration,
) -> aws_lambda_events::event::streams::DynamoDbEventResponse {
    local_engine::declared::as_function(
        "publish-events",
        functions::publish_events::handle(&h.publisher, event, budget),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_the_bus_refuses_for_good_goes_to_the_dead_letter_queue_with_its_reason() {
    let mut h = Harness::new().await;
    let orders = five_events(&h).await;
    h.faults
        .inject("PutEvents", Fault::FirstEntryFailed("MalformedDetail"), 1);
    let records = h.records();
    let response = handle(&h.publisher, batch(records)).await;
    assert_eq!(
        failures(&response),
        Vec::<String>::new(),
        "the shard moves on"
    );
    assert_eq!(ids(&h.heard().await).len(), 4, "the other records' events");
    let dead = h.dead_letters().await;
    assert_eq!(dead.len(), 1, "{dead:?}");
    let letter = &dead[0];
    assert!(
        letter["reason"]
            .as_str()
            .expect("reason")
            .starts_with("MalformedDetail"),
        "{letter}"
    );
    assert_eq!(letter["events"][0]["orderId"], orders[0].as_str());
    assert_eq!(letter["keys"]["SK"], "HEADER");
    assert!(
        letter["sequenceNumber"].is_string() && letter["record"].is_object(),
        "{letter}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_the_publisher_cannot_read_is_dead_lettered_and_the_records_after_it_published() {
    let mut h = Harness::new().await;
    let orders = five_events(&h).await;
    // A write that moved an order's event counter and changed nothing else: no event explains
    // it, and guessing one would publish something that did not happen.
    h.app
        .engine
        .client()
        .update_item()
        .table_name(local_engine::LOCAL_TABLE)
        .key("PK", AttributeValue::S(format!("ORDER#{}", orders[1])))
        .key("SK", AttributeValue::S("HEADER".into()))
        .update_expression("ADD eventSequence :one")
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .send()
        .await
        .expect("a bad write");
    let (status, _, body) = parts(
        dispatch(
            &h.app.store,
            change_status(Who::Staff, &orders[2], "SHIPPED"),
            functions::update_order_status::handle,
        )
        .await,
    );
    assert_eq!(status, 200, "{body}");
    let records = h.records();
    let response = handle(&h.publisher, batch(records)).await;
    assert_eq!(
        failures(&response),
        Vec::<String>::new(),
        "never blocks the shard"
    );
    let heard = h.heard().await;
    assert_eq!(
        ids(&heard).len(),
        7,
        "every event but the unreadable record's"
    );
    let dead = h.dead_letters().await;
    assert_eq!(dead.len(), 1, "{dead:?}");
    let reason = dead[0]["reason"].as_str().expect("reason");
    assert!(reason.contains("counter moved by 1"), "{reason}");
    assert_eq!(dead[0]["events"], Value::Array(Vec::new()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_the_dead_letter_queue_does_not_take_is_delivered_again_not_dropped() {
    let mut h = Harness::new().await;
    five_events(&h).await;
    h.publisher.dead_letters = functions::publish_events::DeadLetters::new(
        h.bus.sqs(),
        format!("{}/123456789012/no-such-queue", h.bus.base),
    );
    h.faults
        .inject("PutEvents", Fault::FirstEntryFailed("MalformedDetail"), 1);
    let records = h.records();
    let response = handle(&h.publisher, batch(records.clone())).await;
    assert_eq!(
        failures(&response),
        sequence_numbers(&records[first_with_events(&records)..]),
        "reported, from the record not dead-lettered on"
    );
}

/// Where the first record that gives events is (an order's header; a product's stock taken
/// by an order gives none above the threshold).
fn first_with_events(records: &[aws_lambda_events::event::dynamodb::EventRecord]) -> usize {
    records
        .iter()
        .position(|r| {
            let keys: shared::dynamo::codec::Item = r.change.keys.clone().into();
            keys.get("SK")
                .and_then(|v| v.as_s().ok())
                .is_some_and(|sk| sk == "HEADER")
        })
        .expect("a header's record")
}

fn sequence_numbers(records: &[aws_lambda_events::event::dynamodb::EventRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| r.change.sequence_number.clone())
        .collect()
}
