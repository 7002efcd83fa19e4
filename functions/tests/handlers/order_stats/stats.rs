//! The stream consumer against its own engine: real stream records, delivered the way Lambda
//! delivers them, twice, interleaved, with poison, and under load.

use local_engine::declared::as_function;
use std::collections::BTreeMap;
use std::time::Instant;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::streams::{self, StreamSource};
use local_engine::testing::{self, dispatch};
use local_engine::testing::{
    TestApp, Who, all_items, change_status, get, parts, send_json, source_design, stock_catalog,
};
use local_engine::{LOCAL_TABLE, template};
use serde_json::Value;
use shared::Store;
use shared::domain::ids::{CustomerId, OrderId};
use shared::domain::money::{Decimal, Money};
use shared::domain::order::Order;
use shared::domain::status::OrderStatus;
use shared::domain::time::Timestamp;
use shared::dynamo::entities::order_listing;

fn source(app: &TestApp) -> StreamSource {
    let consumer = streams::consumers(&template::parse().expect("template"))
        .expect("consumers")
        .remove(0);
    StreamSource::open(app.engine.database(), LOCAL_TABLE, consumer, None).expect("stream")
}

/// The stream with nothing filtered out: what the consumer would see without its filter.
fn unfiltered_source(app: &TestApp) -> StreamSource {
    let mut consumer = streams::consumers(&template::parse().expect("template"))
        .expect("consumers")
        .remove(0);
    consumer.filters.clear();
    StreamSource::open(app.engine.database(), LOCAL_TABLE, consumer, None).expect("stream")
}

/// Delivers everything on the stream to the consumer, as Lambda would.
async fn drain(app: &TestApp, source: &mut StreamSource) {
    let drained = source
        .drain(|event| {
            as_function(
                "order-stats",
                functions::order_stats::handle(&app.store, event),
            )
        })
        .await
        .expect("drained");
    assert_eq!(drained.abandoned, 0);
}

/// An order listing as the source design's boto3 code writes it (no profile needed, no header): a put
/// over an existing listing is the source design's status change.
async fn write_listing(
    app: &TestApp,
    customer: &str,
    order: &str,
    at: &str,
    status: &str,
    total: &str,
) {
    let order = Order {
        order_id: OrderId::parse(order).expect("id"),
        customer_id: CustomerId::parse(customer).expect("id"),
        placed_at: Timestamp::parse(at).expect("t"),
        status: status.parse::<OrderStatus>().expect("status"),
        total: Money::parse_number(total).expect("money"),
        hold_until: None,
        payment_intent_id: None,
        payment_id: None,
        payment_error: None,
        dispute: None,
        withdrawn: None,
    };
    app.store
        .client()
        .put_item()
        .table_name(LOCAL_TABLE)
        .set_item(Some(order_listing::to_item(
            &order,
            shared::dynamo::keys::StatusShards::ONE,
        )))
        .send()
        .await
        .expect("put");
}

async fn put_profile(app: &TestApp, customer: &str) {
    let req = testing::put_profile(customer, &format!("Customer {customer}"));
    let (status, _, body) = parts(dispatch(&app.store, req, functions::put_customer::handle).await);
    assert!(status == 200 || status == 201, "{body}");
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
        // A hold waiting for payment, or one that ended unpaid, was never an order.
        if matches!(text("status").as_str(), "PENDING_PAYMENT" | "EXPIRED") {
            continue;
        }
        entry.0 += 1;
        if text("status") != "CANCELLED" {
            // What the customer kept: the total less the lines that never shipped or came back.
            let withdrawn = item.get("withdrawn").map_or(Decimal::ZERO, |v| {
                Money::parse_number(v.as_n().expect("withdrawn"))
                    .expect("n")
                    .amount()
            });
            entry.1 += total - withdrawn;
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
            Who::Staff,
            "GET /customers/{customerId}",
            &format!("/customers/{customer}"),
            "",
        );
        let (status, _, body) =
            parts(dispatch(&app.store, req, functions::get_customer::handle).await);
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
        Who::Staff,
        "POST /customers/{customerId}/orders",
        &format!("/customers/{customer}/orders"),
        &[],
        lines,
    );
    let (status, _, body) = parts(dispatch(store, req, functions::place_order::handle).await);
    assert_eq!(status, 201, "{body}");
    body
}

async fn set_status(store: &Store, order: &str, status: &str) {
    let req = change_status(Who::Staff, order, status);
    let (code, _, body) = parts(dispatch(store, req, functions::update_order_status::handle).await);
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
    // One unit of c3's three cancelled before it shipped: 5.14 of its 15.42 is not spent.
    let cancel = send_json(
        Who::Staff,
        "POST /orders/{orderId}/cancellations",
        &format!("/orders/{}/cancellations", placed[2]),
        &[("idempotency-key", "stats-1")],
        r#"{"lines":[{"sku":"sku-2","quantity":1}],"reason":"broken in the warehouse"}"#,
    );
    let (code, _, body) =
        parts(dispatch(&app.store, cancel, functions::cancel_lines::handle).await);
    assert_eq!(code, 201, "{body}");
    // c1's first order delivered, and its one unit (3.00) returned: not spent either.
    set_status(&app.store, &placed[0], "DELIVERED").await;
    return_one(&app.store, &placed[0], "sku-0").await;

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
            let response = as_function(
                "order-stats",
                functions::order_stats::handle(&app.store, event(batch.clone())),
            )
            .await;
            assert!(failures(&response).is_empty());
        }
    }
    // A whole replay, much later, changes nothing either.
    for batch in batches.iter().rev() {
        as_function(
            "order-stats",
            functions::order_stats::handle(&app.store, event(batch.clone())),
        )
        .await;
    }
    let truth = ground_truth(&app).await;
    assert_eq!(served(&app, truth.keys()).await, truth);
    // The truth took the cancelled unit out: the listing says what c3 did not keep.
    let listing = source_design::customer_orders(&app.engine.client(), "c3")
        .await
        .into_iter()
        .find(|item| item["orderId"].as_s().is_ok_and(|id| *id == placed[2]))
        .expect("c3's order");
    assert_eq!(
        listing["withdrawn"].as_n().ok().map(String::as_str),
        Some("5.14")
    );
    let returned = source_design::customer_orders(&app.engine.client(), "c1")
        .await
        .into_iter()
        .find(|item| item["orderId"].as_s().is_ok_and(|id| *id == placed[0]))
        .expect("c1's order");
    assert_eq!(
        returned["withdrawn"].as_n().ok().map(String::as_str),
        Some("3")
    );
}

/// Staff record a return of one unit of `sku` of `order`, approve it and receive it.
async fn return_one(store: &Store, order: &str, sku: &str) {
    let asked = send_json(
        Who::Staff,
        "POST /orders/{orderId}/returns",
        &format!("/orders/{order}/returns"),
        &[("idempotency-key", &format!("return-{order}-{sku}"))],
        &format!(r#"{{"lines":[{{"sku":"{sku}","quantity":1}}],"reason":"too small"}}"#),
    );
    let (code, _, body) = parts(dispatch(store, asked, functions::request_return::handle).await);
    assert_eq!(code, 201, "{body}");
    let id = body["returnId"].as_str().expect("id").to_owned();
    let approve = send_json(
        Who::Staff,
        "PATCH /orders/{orderId}/returns/{returnId}",
        &format!("/orders/{order}/returns/{id}"),
        &[],
        r#"{"status":"APPROVED"}"#,
    );
    let (code, _, body) = parts(dispatch(store, approve, functions::update_return::handle).await);
    assert_eq!(code, 200, "{body}");
    let receive = send_json(
        Who::Staff,
        "POST /orders/{orderId}/returns/{returnId}/receipt",
        &format!("/orders/{order}/returns/{id}/receipt"),
        &[],
        &format!(r#"{{"lines":[{{"sku":"{sku}","received":1}}],"refund":true}}"#),
    );
    let (code, _, body) = parts(dispatch(store, receive, functions::receive_return::handle).await);
    assert_eq!(code, 201, "{body}");
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
    // c5's statistics are known (their partition counted) before this test's batch.
    stock_catalog(&app.engine, &order(9)).await;
    place(&app.store, "c5", &order(9)).await;
    drain(&app, &mut source).await;
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

    let response = as_function(
        "order-stats",
        functions::order_stats::handle(&app.store, event(batch.clone())),
    )
    .await;
    let expected: Vec<String> = batch[2..]
        .iter()
        .map(|r| r.change.sequence_number.clone().expect("seq"))
        .collect();
    assert_eq!(failures(&response), expected);
    // The two records before it were counted, and nothing after it.
    let c5 = app
        .store
        .get_customer(&CustomerId::parse("c5").expect("id"))
        .await
        .expect("get")
        .expect("c5");
    let before = c5.stats.order_count - 2;
    assert_eq!(c5.stats.order_count, before + 2);
    // Redelivered from the poison on (as Lambda retries), with the poison fixed by bisection
    // and replay elsewhere: the rest now count, the first two still once.
    let mut retry = source_records_after(&batch, 2);
    retry.remove(0);
    let response = as_function(
        "order-stats",
        functions::order_stats::handle(&app.store, event([batch[..2].to_vec(), retry].concat())),
    )
    .await;
    assert!(failures(&response).is_empty());
    let c5 = app
        .store
        .get_customer(&CustomerId::parse("c5").expect("id"))
        .await
        .expect("get")
        .expect("c5");
    assert_eq!(c5.stats.order_count, before + 4);
}

fn source_records_after(batch: &[EventRecord], from: usize) -> Vec<EventRecord> {
    batch[from..].to_vec()
}

#[tokio::test]
async fn records_that_are_not_order_listings_are_ignored_by_the_consumer_itself() {
    let app = TestApp::seeded().await.expect("app");
    // Everything the seed wrote, unfiltered: profiles, headers, line items, products, catalog
    // entries, besides the listings.
    let all = unfiltered_source(&app).read_all().expect("records");
    let (listings, others): (Vec<EventRecord>, Vec<EventRecord>) = all.into_iter().partition(|r| {
        let keys: std::collections::HashMap<String, AttributeValue> = r.change.keys.clone().into();
        keys["SK"].as_s().expect("sk").starts_with("ORDER#")
    });
    assert!(!listings.is_empty());
    assert!(others.len() > 20, "{} other records", others.len());
    let before = all_items(&app).await;
    app.requests.reset();
    let response = as_function(
        "order-stats",
        functions::order_stats::handle(&app.store, event(others)),
    )
    .await;
    assert!(failures(&response).is_empty());
    assert_eq!(app.requests.total(), 0, "not one request for them");
    assert_eq!(all_items(&app).await, before);
}

#[tokio::test]
async fn the_filter_lets_only_order_listings_through_and_the_consumers_writes_never_trigger_it() {
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
    let response = as_function(
        "order-stats",
        functions::order_stats::handle(&app.store, event(all)),
    )
    .await;
    assert!(failures(&response).is_empty());
    let mut raw = unfiltered_source(&app);
    let written = raw.read_all().expect("records");
    assert!(
        written.iter().any(|r| {
            let keys: std::collections::HashMap<String, AttributeValue> =
                r.change.keys.clone().into();
            keys["SK"].as_s().expect("sk").starts_with("COUNTED#")
        }),
        "the consumer wrote shares"
    );
    let again = source.read_all().expect("records");
    assert!(
        again.is_empty(),
        "{} records came back from the consumer's own writes",
        again.len()
    );
}

#[tokio::test]
async fn the_sample_event_is_applied() {
    let app = TestApp::empty().await.expect("app");
    put_profile(&app, "c1").await;
    let text = std::fs::read_to_string("../events/order-stats.json").expect("event file");
    let sample: Event = serde_json::from_str(&text).expect("a DynamoDB stream event");
    let response = as_function(
        "order-stats",
        functions::order_stats::handle(&app.store, sample),
    )
    .await;
    assert!(failures(&response).is_empty());
    let c1 = app
        .store
        .get_customer(&CustomerId::parse("c1").expect("id"))
        .await
        .expect("get")
        .expect("c1");
    // o900 placed (12.50); o100, never counted before, arrives already CANCELLED: it counts
    // as an order and adds nothing.
    assert_eq!(c1.stats.order_count, 2);
    assert_eq!(c1.stats.total_spent.to_string(), "12.50");
    assert_eq!(
        c1.stats.last_order_at,
        Some(Timestamp::parse("2026-11-01T09:00:00Z").expect("t"))
    );
}

#[tokio::test]
async fn orders_written_before_the_profile_and_cancelled_before_they_were_counted_add_up() {
    let app = TestApp::empty().await.expect("app");
    let mut source = source(&app);
    // The source design's boto3 code: orders with no profile yet, one cancelled at once.
    write_listing(&app, "c9", "a1", "2026-11-01T09:00:00Z", "PLACED", "27.40").await;
    write_listing(&app, "c9", "a2", "2026-11-02T09:00:00Z", "PLACED", "10.00").await;
    write_listing(
        &app,
        "c9",
        "a1",
        "2026-11-01T09:00:00Z",
        "CANCELLED",
        "27.40",
    )
    .await;
    drain(&app, &mut source).await;
    // No customer yet: the statistics wait on an item that is not a profile.
    let (status, _, _) = parts(
        dispatch(
            &app.store,
            get(
                Who::Staff,
                "GET /customers/{customerId}",
                "/customers/c9",
                "",
            ),
            functions::get_customer::handle,
        )
        .await,
    );
    assert_eq!(status, 404);
    put_profile(&app, "c9").await;
    write_listing(
        &app,
        "c9",
        "a2",
        "2026-11-02T09:00:00Z",
        "CANCELLED",
        "10.00",
    )
    .await;
    drain(&app, &mut source).await;
    let truth = ground_truth(&app).await;
    assert_eq!(
        truth["c9"],
        (
            2,
            "0.00".to_owned(),
            Some("2026-11-02T09:00:00Z".to_owned())
        )
    );
    assert_eq!(served(&app, truth.keys()).await, truth);
}

#[tokio::test]
async fn orders_the_stream_never_showed_are_counted_the_first_time_their_customer_is_met() {
    let app = TestApp::seeded().await.expect("app");
    let mut source = source(&app);
    // The seed's records are gone from the stream (older than its 24 hours, say).
    source.read_all().expect("skipped");
    let body = r#"{"items":[{"sku":"sku-1","quantity":1}]}"#;
    place(&app.store, "c1", body).await;
    drain(&app, &mut source).await;
    let truth = ground_truth(&app).await;
    assert!(truth["c1"].0 > 25, "c1's seeded orders and the new one");
    let c1 = served(&app, ["c1".to_owned()].iter()).await;
    assert_eq!(c1["c1"], truth["c1"]);
}

#[tokio::test]
async fn a_removed_order_leaves_the_statistics() {
    let app = TestApp::empty().await.expect("app");
    put_profile(&app, "c1").await;
    let mut source = source(&app);
    write_listing(&app, "c1", "a1", "2026-11-01T09:00:00Z", "PLACED", "5.00").await;
    write_listing(&app, "c1", "a2", "2026-11-02T09:00:00Z", "PLACED", "7.25").await;
    drain(&app, &mut source).await;
    app.store
        .client()
        .delete_item()
        .table_name(LOCAL_TABLE)
        .key("PK", AttributeValue::S("CUSTOMER#c1".into()))
        .key(
            "SK",
            AttributeValue::S("ORDER#2026-11-01T09:00:00Z#a1".into()),
        )
        .send()
        .await
        .expect("delete");
    drain(&app, &mut source).await;
    let truth = ground_truth(&app).await;
    assert_eq!(truth["c1"].0, 1);
    assert_eq!(served(&app, truth.keys()).await, truth);
}

/// A small deterministic generator, so a failing split can be replayed from its seed.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[tokio::test]
async fn delivered_in_any_order_and_redelivered_the_statistics_never_go_negative_and_end_exact() {
    let app = TestApp::empty().await.expect("app");
    put_profile(&app, "c1").await;
    put_profile(&app, "c2").await;
    let mut source = source(&app);
    // Placed, cancelled, reinstated by the source design's boto3 code, removed; holds paid,
    // ended unpaid, and paid then cancelled: every kind of record.
    let steps: [(&str, &str, &str, &str, &str); 17] = [
        ("c1", "a1", "2026-11-01T09:00:00Z", "PLACED", "27.40"),
        ("c2", "b1", "2026-11-01T10:00:00Z", "PLACED", "3.10"),
        ("c1", "a1", "2026-11-01T09:00:00Z", "CANCELLED", "27.40"),
        ("c1", "a2", "2026-11-03T09:00:00Z", "PLACED", "1.00"),
        ("c2", "b1", "2026-11-01T10:00:00Z", "SHIPPED", "3.10"),
        ("c1", "a1", "2026-11-01T09:00:00Z", "PLACED", "27.40"),
        ("c2", "b2", "2026-11-04T10:00:00Z", "PLACED", "8.00"),
        ("c1", "a2", "2026-11-03T09:00:00Z", "CANCELLED", "1.00"),
        ("c2", "b2", "2026-11-04T10:00:00Z", "CANCELLED", "8.00"),
        ("c1", "a1", "2026-11-01T09:00:00Z", "CANCELLED", "27.40"),
        (
            "c1",
            "h1",
            "2026-11-05T09:00:00Z",
            "PENDING_PAYMENT",
            "5.00",
        ),
        (
            "c2",
            "h2",
            "2026-11-06T10:00:00Z",
            "PENDING_PAYMENT",
            "9.99",
        ),
        ("c1", "h1", "2026-11-05T09:00:00Z", "PLACED", "5.00"),
        ("c2", "h2", "2026-11-06T10:00:00Z", "EXPIRED", "9.99"),
        (
            "c2",
            "h3",
            "2026-11-07T10:00:00Z",
            "PENDING_PAYMENT",
            "4.20",
        ),
        ("c2", "h3", "2026-11-07T10:00:00Z", "PLACED", "4.20"),
        ("c2", "h3", "2026-11-07T10:00:00Z", "CANCELLED", "4.20"),
    ];
    for (customer, order, at, status, total) in steps {
        write_listing(&app, customer, order, at, status, total).await;
    }
    app.store
        .client()
        .delete_item()
        .table_name(LOCAL_TABLE)
        .key("PK", AttributeValue::S("CUSTOMER#c2".into()))
        .key(
            "SK",
            AttributeValue::S("ORDER#2026-11-01T10:00:00Z#b1".into()),
        )
        .send()
        .await
        .expect("delete");
    let records = source.read_all().expect("records");
    assert_eq!(records.len(), 18);
    let truth = ground_truth(&app).await;
    // c1: a1 and a2 cancelled, h1 paid; c2: b1 removed, b2 and h3 cancelled, h2 expired unpaid
    // (its later placedAt never becomes c2's last order).
    assert_eq!(
        truth["c1"],
        (
            3,
            "5.00".to_owned(),
            Some("2026-11-05T09:00:00Z".to_owned())
        )
    );
    assert_eq!(
        truth["c2"],
        (
            2,
            "0.00".to_owned(),
            Some("2026-11-07T10:00:00Z".to_owned())
        )
    );
    for seed in 1..=12u64 {
        let run = TestApp::empty().await.expect("app");
        put_profile(&run, "c1").await;
        put_profile(&run, "c2").await;
        let mut rng = Lcg(seed);
        let batches: Vec<Vec<EventRecord>> = if seed % 2 == 0 {
            // Lambda's way: a batch from where the last one was acknowledged; a failure reports
            // a suffix, which comes again (here: after the consumer applied it anyway).
            let mut batches = Vec::new();
            let mut next = 0;
            while next < records.len() {
                let end = (next + 1 + rng.below(4)).min(records.len());
                batches.push(records[next..end].to_vec());
                if rng.below(2) == 0 {
                    next += rng.below(end - next + 1);
                } else {
                    next = end;
                }
            }
            batches
        } else {
            // Any order at all: every record once or twice, shuffled, in batches of 1-4.
            let mut all: Vec<EventRecord> = records
                .iter()
                .flat_map(|r| std::iter::repeat_n(r.clone(), 1 + rng.below(2)))
                .collect();
            for i in (1..all.len()).rev() {
                all.swap(i, rng.below(i + 1));
            }
            let mut batches = Vec::new();
            while !all.is_empty() {
                let take = (1 + rng.below(4)).min(all.len());
                batches.push(all.drain(..take).collect());
            }
            batches
        };
        for batch in batches {
            let response = as_function(
                "order-stats",
                functions::order_stats::handle(&run.store, event(batch)),
            )
            .await;
            assert!(failures(&response).is_empty());
            for customer in ["c1", "c2"] {
                let stats = run
                    .store
                    .get_customer(&CustomerId::parse(customer).expect("id"))
                    .await
                    .expect("get")
                    .expect("profile")
                    .stats;
                assert!(
                    !stats.total_spent.amount().is_sign_negative(),
                    "seed {seed}: {customer} at {}",
                    stats.total_spent
                );
            }
        }
        let got = served(&run, truth.keys()).await;
        assert_eq!(got, truth, "seed {seed}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn consumers_meeting_a_new_customer_at_once_count_every_order_once() {
    let app = TestApp::empty().await.expect("app");
    put_profile(&app, "c1").await;
    let mut source = source(&app);
    source.read_all().expect("skipped");
    for i in 0..30 {
        write_listing(
            &app,
            "c1",
            &format!("p{i:02}"),
            "2026-11-01T09:00:00Z",
            "PLACED",
            "2.00",
        )
        .await;
    }
    let records = source.read_all().expect("records");
    // Six invocations at once over overlapping slices, each finding the statistics incomplete.
    let mut tasks = Vec::new();
    for k in 0..6 {
        let store = app.store.clone();
        let batch = records[k * 4..(k * 4 + 10).min(records.len())].to_vec();
        tasks.push(tokio::spawn(async move {
            failures(
                &as_function(
                    "order-stats",
                    functions::order_stats::handle(&store, event(batch)),
                )
                .await,
            )
        }));
    }
    for task in tasks {
        assert!(task.await.expect("task").is_empty());
    }
    let truth = ground_truth(&app).await;
    assert_eq!(truth["c1"].1, "60.00");
    assert_eq!(served(&app, truth.keys()).await, truth);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_orders_for_fifty_customers_placed_concurrently_count_exactly() {
    let app = TestApp::empty().await.expect("app");
    for c in 0..50 {
        let req = testing::put_profile(&format!("k{c}"), &format!("Customer {c}"));
        assert_eq!(
            parts(dispatch(&app.store, req, functions::put_customer::handle).await).0,
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
    // The fifty customers at once, each placing their twenty orders one after another (a
    // thousand requests at once would only queue inside the one-writer embedded engine until
    // the SDK's one-second attempt timeout).
    let mut tasks = Vec::new();
    for c in 0..50 {
        let store = app.store.clone();
        tasks.push(tokio::spawn(async move {
            let mut placed = Vec::new();
            for n in (c..1000).step_by(50) {
                placed.push(
                    place(&store, &format!("k{c}"), &body(n)).await["orderId"]
                        .as_str()
                        .expect("id")
                        .to_owned(),
                );
            }
            placed
        }));
    }
    let mut orders = Vec::new();
    for task in tasks {
        orders.extend(task.await.expect("task"));
    }
    let placing = started.elapsed();
    for order in orders.iter().step_by(7) {
        set_status(&app.store, order, "CANCELLED").await;
    }

    let mut source = source(&app);
    app.requests.reset();
    let started = Instant::now();
    let drained = source
        .drain(|event| {
            as_function(
                "order-stats",
                functions::order_stats::handle(&app.store, event),
            )
        })
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
