//! POST /customers/{customerId}/orders through API Gateway events, against its own engine.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::testing::dispatch;
use local_engine::testing::{
    TestApp, Who, all_items, from_event_file, header, parts, send_json, source_design,
    stock_catalog,
};
use serde_json::{Value, json};
use shared::domain::status::OrderStatus;

const ROUTE: &str = "POST /customers/{customerId}/orders";
const TWO_LINES: &str = r#"{"items":[{"sku":"sku-1","quantity":2,"price":"19.95"},{"sku":"sku-2","quantity":1,"price":"4.50"}]}"#;

async fn post(
    app: &TestApp,
    customer: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Option<String>, String, Value) {
    // Staff (or a machine client) place an order directly; a customer checks out.
    let req = send_json(
        Who::Staff,
        ROUTE,
        &format!("/customers/{customer}/orders"),
        headers,
        body,
    );
    let response = dispatch(&app.store, req, functions::place_order::handle).await;
    let location = header(&response, "location");
    let (status, ct, body) = parts(response);
    (status, location, ct, body)
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

#[tokio::test]
async fn a_placed_order_is_found_by_the_source_designs_own_queries() {
    let app = TestApp::seeded().await.expect("app");
    app.requests.reset();
    let (status, location, ct, body) = post(&app, "c1", &[], TWO_LINES).await;
    assert_eq!((status, ct.as_str()), (201, "application/json"), "{body}");
    assert_eq!(
        app.requests.by_operation(),
        // The catalog's prices and stock, then the one transaction.
        [
            ("BatchGetItem".to_owned(), 1),
            ("TransactWriteItems".to_owned(), 1)
        ]
        .into()
    );
    let order_id = body["orderId"].as_str().expect("orderId").to_owned();
    assert_eq!(
        location.as_deref(),
        Some(format!("/orders/{order_id}").as_str())
    );
    assert_eq!(body["status"], "PLACED");
    assert_eq!(body["total"], "44.40");
    assert_eq!(body["customerId"], "c1");
    assert_eq!(
        body["items"],
        json!([
            {"sku":"sku-1","quantity":2,"price":"19.95","title":"Stoneware mug"},
            {"sku":"sku-2","quantity":1,"price":"4.50","title":"Tea towel"}
        ])
    );
    let placed_at = body["placedAt"].as_str().expect("placedAt").to_owned();
    let client = app.engine.client();

    // 2. A customer's orders, newest first: Key("PK").eq(...) & Key("SK").begins_with("ORDER#").
    let orders = source_design::customer_orders(&client, "c1").await;
    let newest = &orders[0];
    assert_eq!(newest["SK"], s(&format!("ORDER#{placed_at}#{order_id}")));
    assert_eq!(newest["orderId"], s(&order_id));
    assert_eq!(newest["status"], s("PLACED"));
    // DynamoDB gives numbers back normalised: 44.40 is 44.4.
    assert_eq!(newest["total"], AttributeValue::N("44.4".into()));
    assert_eq!(newest["GSI1PK"], s("STATUS#PLACED"));
    assert_eq!(newest["GSI1SK"], s(&placed_at));
    assert_eq!(
        newest.len(),
        7,
        "the listing item holds the source design's attributes only"
    );

    // 3. Line items: Key("PK").eq("ORDER#...") & Key("SK").begins_with("ITEM#").
    let lines: Vec<_> = source_design::order_items(&client, &order_id)
        .await
        .iter()
        .map(|i| (i["SK"].clone(), i["quantity"].clone(), i["price"].clone()))
        .collect();
    assert_eq!(
        lines,
        [
            (
                s("ITEM#sku-1"),
                AttributeValue::N("2".into()),
                AttributeValue::N("19.95".into())
            ),
            (
                s("ITEM#sku-2"),
                AttributeValue::N("1".into()),
                AttributeValue::N("4.5".into())
            ),
        ]
    );

    // 4. Orders by status on GSI1: Key("GSI1PK").eq("STATUS#PLACED").
    let placed = source_design::orders_with_status(&client, OrderStatus::Placed).await;
    assert!(placed.iter().any(|i| i["orderId"] == s(&order_id)));
}

#[tokio::test]
async fn an_order_for_an_unknown_customer_is_a_404_and_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let before = all_items(&app).await.len();
    let (status, _, ct, body) = post(&app, "c404", &[], TWO_LINES).await;
    assert_eq!(
        (status, ct.as_str()),
        (404, "application/problem+json"),
        "{body}"
    );
    assert_eq!(all_items(&app).await.len(), before);
}

#[tokio::test]
async fn bad_requests_are_4xx_problems_and_write_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let before = all_items(&app).await;
    let line = |sku: &str, qty: &str, price: &str| {
        format!(r#"{{"sku":{sku},"quantity":{qty},"price":{price}}}"#)
    };
    let order = |lines: Vec<String>| format!(r#"{{"items":[{}]}}"#, lines.join(","));
    let ninety_seven: Vec<String> = (0..97)
        .map(|i| line(&format!("\"s{i}\""), "1", "\"1.00\""))
        .collect();
    let ten_mb = format!(
        r#"{{"items":[{{"sku":"a","quantity":1,"price":"1.00","pad":"{}"}}]}}"#,
        "x".repeat(10 * 1024 * 1024)
    );
    let cases: Vec<(&str, String, u16)> = vec![
        ("c1", "{not json".into(), 400),
        ("c1", "".into(), 400),
        ("c1", "[]".into(), 400),
        ("c1", r#"{"items":[]}"#.into(), 400),
        ("c1", r#"{"lines":[]}"#.into(), 400),
        (
            "c1",
            order(vec![
                line("\"a\"", "1", "\"1.00\"").replace('}', r#","color":"red"}"#),
            ]),
            400,
        ),
        ("c1", order(vec![line("\"a\"", "1", "19.95")]), 400),
        ("c1", order(vec![line("\"a\"", "1", "\"-1.00\"")]), 400),
        ("c1", order(vec![line("\"a\"", "1", "\"0.00\"")]), 400),
        ("c1", order(vec![line("\"a\"", "1", "\"1.999\"")]), 400),
        ("c1", order(vec![line("\"a\"", "0", "\"1.00\"")]), 400),
        ("c1", order(vec![line("\"a\"", "-1", "\"1.00\"")]), 400),
        ("c1", order(vec![line("\"a\"", "10001", "\"1.00\"")]), 400),
        ("c1", order(vec![line("\"a#b\"", "1", "\"1.00\"")]), 400),
        (
            "c1",
            order(vec![
                line("\"a\"", "1", "\"1.00\""),
                line("\"a\"", "2", "\"1.00\""),
            ]),
            400,
        ),
        ("c1", order(ninety_seven), 400),
        ("c#1", TWO_LINES.into(), 400),
        ("c1", ten_mb, 413),
    ];
    for (customer, body, expected) in cases {
        let (status, _, ct, problem) = post(&app, customer, &[], &body).await;
        let shown: String = body.chars().take(80).collect();
        assert_eq!(
            (status, ct.as_str()),
            (expected, "application/problem+json"),
            "{shown}: {problem}"
        );
        assert_eq!(problem["status"], expected);
    }
    let (status, _, _, _) = post(&app, "c1", &[("idempotency-key", "a#b")], TWO_LINES).await;
    assert_eq!(status, 400);
    let req = local_engine::testing::call(
        Who::Staff,
        ROUTE,
        "/customers/c1/orders",
        "",
        &[("content-type", "text/plain")],
        TWO_LINES.as_bytes(),
    );
    let (status, _, _) = parts(dispatch(&app.store, req, functions::place_order::handle).await);
    assert_eq!(status, 415);
    assert_eq!(all_items(&app).await, before, "nothing was written");
}

#[tokio::test]
async fn the_largest_valid_order_fits_dynamodbs_limits() {
    let app = TestApp::seeded().await.expect("app");
    let lines: Vec<String> = (0..48)
        .map(|i| {
            format!(
                r#"{{"sku":"{}","quantity":10000,"price":"1000000.00"}}"#,
                format!("{i:02}").repeat(32)
            )
        })
        .collect();
    let order = format!(r#"{{"items":[{}]}}"#, lines.join(","));
    stock_catalog(&app.engine, &order).await;
    let (status, _, _, body) = post(
        &app,
        "c1",
        &[("idempotency-key", &"k".repeat(128))],
        &format!(r#"{{"items":[{}]}}"#, lines.join(",")),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["total"], "480000000000.00");
    assert_eq!(body["items"].as_array().expect("items").len(), 48);

    // One line more does not fit one transaction: refused before any request.
    let lines: Vec<String> = (0..49)
        .map(|i| format!(r#"{{"sku":"x{i}","quantity":1}}"#))
        .collect();
    app.requests.reset();
    let req = send_json(
        Who::Staff,
        ROUTE,
        "/customers/c1/orders",
        &[],
        &format!(r#"{{"items":[{}]}}"#, lines.join(",")),
    );
    let (status, _, body) = parts(dispatch(&app.store, req, functions::place_order::handle).await);
    assert_eq!(status, 400, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .expect("detail")
            .contains("at most 48")
    );
    assert_eq!(app.requests.total(), 0);
}

#[tokio::test]
async fn a_retried_post_returns_the_first_answer_without_a_second_order() {
    let app = TestApp::seeded().await.expect("app");
    let key = [("idempotency-key", "3f1c9a2e-6b7d-4c1e-9f00-0a1b2c3d4e5f")];
    let (status, location, _, first) = post(&app, "c1", &key, TWO_LINES).await;
    assert_eq!(status, 201);
    let req = send_json(Who::Staff, ROUTE, "/customers/c1/orders", &key, TWO_LINES);
    let response = dispatch(&app.store, req, functions::place_order::handle).await;
    assert_eq!(
        header(&response, "idempotent-replayed").as_deref(),
        Some("true")
    );
    assert_eq!(header(&response, "location"), location);
    let (status, _, again) = parts(response);
    assert_eq!((status, &again), (201, &first));
    // The same content, spelled differently, is the same request.
    let respelled = TWO_LINES.replace("\"4.50\"", "\"4.5\"");
    let (status, _, _, again) = post(&app, "c1", &key, &respelled).await;
    assert_eq!((status, &again), (201, &first));
    let listings = count_listings(&app, "c1").await;
    assert_eq!(listings, 31, "30 sample orders and one placed");
}

#[tokio::test]
async fn the_same_key_with_another_body_is_a_422() {
    let app = TestApp::seeded().await.expect("app");
    let key = [("idempotency-key", "k-1")];
    let (status, _, _, _) = post(&app, "c1", &key, TWO_LINES).await;
    assert_eq!(status, 201);
    let other = TWO_LINES.replace("\"quantity\":2", "\"quantity\":3");
    let (status, _, ct, body) = post(&app, "c1", &key, &other).await;
    assert_eq!(
        (status, ct.as_str()),
        (422, "application/problem+json"),
        "{body}"
    );
    // Keys belong to a customer: another customer may use the same one.
    let (status, _, _, _) = post(&app, "c2", &key, &other).await;
    assert_eq!(status, 201);
}

async fn count_listings(app: &TestApp, customer: &str) -> usize {
    all_items(app)
        .await
        .iter()
        .filter(|i| {
            i.get("PK") == Some(&s(&format!("CUSTOMER#{customer}")))
                && i.get("SK")
                    .and_then(|v| v.as_s().ok())
                    .is_some_and(|sk| sk.starts_with("ORDER#"))
        })
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_concurrent_retries_with_one_key_make_one_order() {
    let app = TestApp::seeded().await.expect("app");
    let mut tasks = Vec::new();
    for _ in 0..100 {
        let store = app.store.clone();
        tasks.push(tokio::spawn(async move {
            let req = send_json(
                Who::Staff,
                ROUTE,
                "/customers/c3/orders",
                &[("idempotency-key", "one-key")],
                TWO_LINES,
            );
            parts(dispatch(&store, req, functions::place_order::handle).await)
        }));
    }
    let mut order_ids = HashMap::new();
    for task in tasks {
        let (status, _, body) = task.await.expect("task");
        assert_eq!(status, 201, "{body}");
        *order_ids
            .entry(body["orderId"].as_str().expect("id").to_owned())
            .or_insert(0) += 1;
    }
    assert_eq!(order_ids.len(), 1, "{order_ids:?}");
    assert_eq!(count_listings(&app, "c3").await, 5 + 1);
    let order_id = order_ids.keys().next().expect("one");
    let headers = all_items(&app)
        .await
        .into_iter()
        .filter(|i| i.get("PK") == Some(&s(&format!("ORDER#{order_id}"))))
        .count();
    assert_eq!(headers, 3, "one header and two line items");
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/place-order.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::place_order::handle).await);
    assert_eq!(status, 201, "{body}");
    // Priced from the catalog: 2 × sku-1 at 19.95 and 1 × sku-2 at 4.50.
    assert_eq!(body["total"], "44.40");
    assert_eq!(body["customerId"], "c1");
}

/// The first read is eventually consistent. A read that has not yet seen the customer, the
/// products or the first answer under an Idempotency-Key must never refuse or duplicate an
/// order: what it would refuse is read again strongly consistent.
#[tokio::test]
async fn a_stale_first_read_never_refuses_or_duplicates_an_order() {
    use local_engine::faults::Fault;
    let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
    let orders_of = |items: &[HashMap<String, AttributeValue>]| {
        items
            .iter()
            .filter(|i| i["SK"].as_s().is_ok_and(|sk| sk.starts_with("ORDER#")))
            .count()
    };
    let before = orders_of(&all_items(&app).await);

    // Nothing seen: no customer, no products. The consistent read sees them; one order.
    faults.inject("BatchGetItem", Fault::StaleRead, 1);
    app.requests.reset();
    let key = [("idempotency-key", "stale-1")];
    let (status, _, _, body) = post(&app, "c1", &key, TWO_LINES).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        faults.injected(),
        [("BatchGetItem".to_owned(), Fault::StaleRead)]
    );
    assert_eq!(
        app.requests.by_operation(),
        [
            ("BatchGetItem".to_owned(), 2),
            ("TransactWriteItems".to_owned(), 1)
        ]
        .into()
    );
    assert_eq!(orders_of(&all_items(&app).await), before + 1);

    // The retry's stale read misses the first answer: it is found, not placed again.
    faults.inject("BatchGetItem", Fault::StaleRead, 1);
    let (status, _, _, replayed) = post(&app, "c1", &key, TWO_LINES).await;
    assert_eq!(status, 201, "{replayed}");
    assert_eq!(replayed["orderId"], body["orderId"]);
    assert_eq!(orders_of(&all_items(&app).await), before + 1);

    // A customer that really does not exist: 404 after the consistent read, nothing written.
    faults.inject("BatchGetItem", Fault::StaleRead, 1);
    app.requests.reset();
    let (status, _, _, problem) = post(&app, "nobody", &[], TWO_LINES).await;
    assert_eq!(status, 404, "{problem}");
    assert_eq!(
        app.requests.by_operation(),
        [("BatchGetItem".to_owned(), 2)].into()
    );
    assert_eq!(orders_of(&all_items(&app).await), before + 1);
}

/// The metrics an order leaves: placed, its value exact, the conflicts and throttling it went
/// through (retried, so nothing else shows them), and a replay.
#[tokio::test]
async fn an_order_records_its_metrics_through_conflicts_and_throttling() {
    use local_engine::faults::Fault;
    use shared::metrics::{Invocation, recorded};
    let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
    faults.inject("BatchGetItem", Fault::Throttling, 1);
    faults.inject("TransactWriteItems", Fault::TransactionConflict, 2);
    let key = [("idempotency-key", "metrics-1")];
    let text = |recorder: &shared::metrics::Recorder| -> String {
        recorder
            .line(Invocation {
                function: "place-order",
                request_id: "r",
                trace_id: None,
                timestamp_ms: 0,
            })
            .expect("a line")
    };
    let line = |recorder: &shared::metrics::Recorder| -> Value {
        serde_json::from_str(&text(recorder)).expect("JSON")
    };
    let ((status, _, _, body), recorder) = recorded(false, post(&app, "c1", &key, TWO_LINES)).await;
    assert_eq!(status, 201, "{body}");
    let emf = line(&recorder);
    assert_eq!(emf["OrdersPlaced"], 1);
    assert!(text(&recorder).contains(r#""OrderValue":44.40"#), "{emf}");
    assert_eq!(emf["TransactionConflicts"], 2);
    assert_eq!(emf["Throttles"], 1);
    assert!(emf["IdempotentReplays"].is_null());

    let ((status, _, _, _), recorder) = recorded(false, post(&app, "c1", &key, TWO_LINES)).await;
    assert_eq!(status, 201);
    let emf = line(&recorder);
    assert_eq!(emf["IdempotentReplays"], 1);
    assert!(
        emf["OrdersPlaced"].is_null(),
        "a replay places nothing: {emf}"
    );
}
