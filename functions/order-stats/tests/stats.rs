//! The stream consumer against its own engine: real stream records, delivered the way Lambda
//! delivers them, twice, interleaved, with poison, and under load.

use std::collections::BTreeMap;
use std::time::Instant;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::streams::{self, StreamSource};
use local_engine::testing::{TestApp, all_items, get, parts, send_json, stock_catalog};
use local_engine::{LOCAL_TABLE, template};
use serde_json::Value;
use shared::Store;
use shared::domain::money::{Decimal, Money};
use shared::domain::time::Timestamp;
use shared::http::serve::dispatch;

fn source(app: &TestApp) -> StreamSource {
    let consumer = streams::consumers(&template::parse().expect("template"))
        .expect("consumers")
        .remove(0);
    StreamSource::open(app.engine.database(), LOCAL_TABLE, consumer, None).expect("stream")
}

fn event(records: Vec<EventRecord>) -> Event {
    let mut event = Event::default();
    event.records = records;
    event
}

fn failures(response: &DynamoDbEventResponse) -> Vec<String> {
    response
        .batch_item_failures
        .iter()
        .filter_map(|f| f.item_identifier.clone())
        .collect()
}

/// The statistics as the table's order listings say they must be.
async fn ground_truth(app: &TestApp) -> BTreeMap<String, (u64, String, Option<String>)> {
    let mut truth: BTreeMap<String, (u64, Decimal, Option<String>)> = BTreeMap::new();
    for item in all_items(app).await {
        let text = |name: &str| {
            item.get(name)
                .and_then(|v| v.as_s().ok())
                .cloned()
                .unwrap_or_default()
        };
        let (pk, sk) = (text("PK"), text("SK"));
        let Some(customer) = pk.strip_prefix("CUSTOMER#") else {
            continue;
        };
        let Some(rest) = sk.strip_prefix("ORDER#") else {
            continue;
        };
        let placed_at = rest.rsplit_once('#').expect("listing sk").0.to_owned();
        let total = Money::parse_number(item["total"].as_n().expect("total"))
            .expect("n")
            .amount();
        let entry = truth
            .entry(customer.to_owned())
            .or_insert((0, Decimal::ZERO, None));
        entry.0 += 1;
        if text("status") != "CANCELLED" {
            entry.1 += total;
        }
        entry.2 = entry.2.clone().max(Some(placed_at));
    }
    truth
        .into_iter()
        .map(|(c, (n, spent, last))| (c, (n, Money::new(spent).to_string(), last)))
        .collect()
}

/// The statistics GET /customers/{customerId} shows, for the customers in `truth`.
async fn served(
    app: &TestApp,
    customers: impl Iterator<Item = &String>,
) -> BTreeMap<String, (u64, String, Option<String>)> {
    let mut out = BTreeMap::new();
    for customer in customers {
        let req = get(
            "GET /customers/{customerId}",
            &format!("/customers/{customer}"),
            "",
        );
        let (status, _, body) = parts(dispatch(&app.store, req, get_customer::handle).await);
        assert_eq!(status, 200, "{customer}: {body}");
        out.insert(
            customer.clone(),
            (
                body["orderCount"].as_u64().expect("orderCount"),
                body["totalSpent"].as_str().expect("totalSpent").to_owned(),
                body["lastOrderAt"].as_str().map(str::to_owned),
            ),
        );
    }
    out
}

async fn place(store: &Store, customer: &str, lines: &str) -> Value {
    let req = send_json(
        "POST /customers/{customerId}/orders",
        &format!("/customers/{customer}/orders"),
        &[],
        lines,
    );
    let (status, _, body) = parts(dispatch(store, req, place_order::handle).await);
    assert_eq!(status, 201, "{body}");
    body
}

async fn set_status(store: &Store, order: &str, status: &str) {
    let req = send_json(
        "PATCH /orders/{orderId}",
        &format!("/orders/{order}"),
        &[],
        &format!(r#"{{"status":"{status}"}}"#),
    );
    let (code, _, body) = parts(dispatch(store, req, update_order_status::handle).await);
    assert_eq!(code, 200, "{body}");
}

#[tokio::test]
async fn every_batch_twice_and_customers_interleaved_still_count_once() {
    let app = TestApp::seeded().await.expect("app");
    let mut placed = Vec::new();
    for (i, customer) in ["c1", "c2", "c3", "c2", "c1", "c4", "c2"]
        .iter()
        .enumerate()
    {
        let body = format!(
            r#"{{"items":[{{"sku":"sku-{i}","quantity":{},"price":"{}.{:02}"}}]}}"#,
            i + 1,
            3 + i,
            i * 7
        );
        stock_catalog(&app.engine, &body).await;
        placed.push(
            place(&app.store, customer, &body).await["orderId"]
                .as_str()
                .expect("id")
                .to_owned(),
        );
    }
    set_status(&app.store, &placed[1], "CANCELLED").await;
    set_status(&app.store, &placed[0], "SHIPPED").await;
    set_status(&app.store, "o100", "CANCELLED").await;

    let records = source(&app).read_all().expect("records");
    // Interleave customers: round-robin over each customer's records, keeping their order.
    let mut by_customer: BTreeMap<String, Vec<EventRecord>> = BTreeMap::new();
    for record in records {
        let pk = record.change.keys.clone();
        let pk: std::collections::HashMap<String, AttributeValue> = pk.into();
        by_customer
            .entry(pk["PK"].as_s().expect("pk").clone())
            .or_default()
            .push(record);
    }
    let mut interleaved = Vec::new();
    let mut queues: Vec<_> = by_customer.into_values().map(|v| v.into_iter()).collect();
    loop {
        let before = interleaved.len();
        for queue in &mut queues {
            interleaved.extend(queue.next());
        }
        if interleaved.len() == before {
            break;
        }
    }
    let batches: Vec<Vec<EventRecord>> = interleaved.chunks(7).map(<[_]>::to_vec).collect();
    assert!(batches.len() > 5);
    for batch in &batches {
        for _ in 0..2 {
            let response = order_stats::handle(&app.store, event(batch.clone())).await;
            assert!(failures(&response).is_empty());
        }
    }
    // A whole replay, much later, changes nothing either.
    for batch in batches.iter().rev() {
        order_stats::handle(&app.store, event(batch.clone())).await;
    }
    let truth = ground_truth(&app).await;
    assert_eq!(served(&app, truth.keys()).await, truth);
}

#[tokio::test]
async fn a_poison_record_is_reported_with_the_records_after_it_and_nothing_else() {
    let app = TestApp::seeded().await.expect("app");
    let order =
        |i: usize| format!(r#"{{"items":[{{"sku":"p{i}","quantity":1,"price":"10.00"}}]}}"#);
    for i in 0..5 {
        stock_catalog(&app.engine, &order(i)).await;
    }
    let mut source = source(&app);
    source.read_all().expect("seed records"); // the seed's own records are not this test's
    for i in 0..5 {
        place(&app.store, "c5", &order(i)).await;
    }
    let mut batch = source.read_all().expect("records");
    assert_eq!(batch.len(), 5);
    // Record 2 becomes unreadable: its total is not a number.
    let mut poison = batch[2].clone();
    let mut image: std::collections::HashMap<String, AttributeValue> =
        poison.change.new_image.clone().into();
    image.insert("total".into(), AttributeValue::S("lots".into()));
    poison.change.new_image = image.into();
    batch[2] = poison;

    let response = order_stats::handle(&app.store, event(batch.clone())).await;
    let expected: Vec<String> = batch[2..]
        .iter()
        .map(|r| r.change.sequence_number.clone().expect("seq"))
        .collect();
    assert_eq!(failures(&response), expected);
    // The two records before it were counted, and nothing after it.
    let c5 = app
        .store
        .get_customer(&shared::domain::ids::CustomerId::parse("c5").expect("id"))
        .await
        .expect("get")
        .expect("c5");
    assert_eq!(c5.stats.order_count, 2);
    assert_eq!(c5.stats.total_spent.to_string(), "20.00");
    // Redelivered from the poison on (as Lambda retries), with the poison fixed by bisection
    // and replay elsewhere: the rest now count, the first two still once.
    let mut retry = source_records_after(&batch, 2);
    retry.remove(0);
    let response =
        order_stats::handle(&app.store, event([batch[..2].to_vec(), retry].concat())).await;
    assert!(failures(&response).is_empty());
    let c5 = app
        .store
        .get_customer(&shared::domain::ids::CustomerId::parse("c5").expect("id"))
        .await
        .expect("get")
        .expect("c5");
    assert_eq!(c5.stats.order_count, 4);
}

fn source_records_after(batch: &[EventRecord], from: usize) -> Vec<EventRecord> {
    batch[from..].to_vec()
}

#[tokio::test]
async fn records_that_are_not_order_listings_are_ignored() {
    let app = TestApp::seeded().await.expect("app");
    let mut source = source(&app);
    let all = source.read_all().expect("records");
    assert!(
        all.iter().all(|r| {
            let keys: std::collections::HashMap<String, AttributeValue> =
                r.change.keys.clone().into();
            keys["SK"].as_s().expect("sk").starts_with("ORDER#")
        }),
        "the template's filter lets only order listings through"
    );
    order_stats::handle(&app.store, event(all)).await;
    // The consumer's own writes (profiles, markers) produce records the filter drops.
    let again = source.read_all().expect("records");
    assert!(
        again.is_empty(),
        "{} records came back from the consumer's own writes",
        again.len()
    );
}

#[tokio::test]
async fn the_sample_event_is_applied() {
    let app = TestApp::seeded().await.expect("app");
    let text = std::fs::read_to_string("../../events/order-stats.json").expect("event file");
    let sample: Event = serde_json::from_str(&text).expect("a DynamoDB stream event");
    let response = order_stats::handle(&app.store, sample).await;
    assert!(failures(&response).is_empty());
    let c1 = app
        .store
        .get_customer(&shared::domain::ids::CustomerId::parse("c1").expect("id"))
        .await
        .expect("get")
        .expect("c1");
    assert_eq!(c1.stats.order_count, 1);
    assert_eq!(
        c1.stats.total_spent.to_string(),
        "-27.40",
        "12.50 placed, 39.90 cancelled"
    );
    assert_eq!(
        c1.stats.last_order_at,
        Some(Timestamp::parse("2026-11-01T09:00:00Z").expect("t"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_orders_for_fifty_customers_placed_concurrently_count_exactly() {
    let app = TestApp::empty().await.expect("app");
    for c in 0..50 {
        let req = send_json(
            "PUT /customers/{customerId}",
            &format!("/customers/k{c}"),
            &[],
            &format!(r#"{{"name":"Customer {c}","email":"k{c}@example.com"}}"#),
        );
        assert_eq!(
            parts(dispatch(&app.store, req, put_customer::handle).await).0,
            201
        );
    }
    // Every SKU is named after its one price: s<units>_<cents>, 100 of them.
    let body = |n: usize| {
        format!(
            r#"{{"items":[{{"sku":"s{0}_{1:02}","quantity":{2},"price":"{0}.{1:02}"}}]}}"#,
            1 + n % 50,
            n % 100,
            1 + n % 4,
        )
    };
    for n in 0..100 {
        stock_catalog(&app.engine, &body(n)).await;
    }
    let started = Instant::now();
    let mut tasks = Vec::new();
    for n in 0..1000 {
        let store = app.store.clone();
        tasks.push(tokio::spawn(async move {
            place(&store, &format!("k{}", n % 50), &body(n)).await["orderId"]
                .as_str()
                .expect("id")
                .to_owned()
        }));
    }
    let mut orders = Vec::new();
    for task in tasks {
        orders.push(task.await.expect("task"));
    }
    let placing = started.elapsed();
    for order in orders.iter().step_by(7) {
        set_status(&app.store, order, "CANCELLED").await;
    }

    let mut source = source(&app);
    app.requests.reset();
    let started = Instant::now();
    let drained = source
        .drain(|event| order_stats::handle(&app.store, event))
        .await
        .expect("drained");
    let elapsed = started.elapsed();
    let requests = app.requests.total();
    assert_eq!(drained.abandoned, 0);
    assert_eq!(drained.records, 1000 + orders.iter().step_by(7).count());
    eprintln!(
        "placed 1000 orders in {:.2?}; consumer: {} records in {} batches, {:.2?}, {:.0} records/s, {} requests, {:.3} requests/record",
        placing,
        drained.records,
        drained.batches,
        elapsed,
        drained.records as f64 / elapsed.as_secs_f64(),
        requests,
        requests as f64 / drained.records as f64
    );
    let truth = ground_truth(&app).await;
    assert_eq!(truth.len(), 50);
    assert_eq!(served(&app, truth.keys()).await, truth);
}
