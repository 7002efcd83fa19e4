//! DynamoDB's own faults, injected between the SDK and the engine (`local_engine::faults`):
//! every write path retries what is worth retrying with backoff, answers 503 with Retry-After
//! when the retries run out, and never leaves anything half-written or applied twice; reads
//! answer 503, never a wrong page.

use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::faults::{Fault, Faults};
use local_engine::testing::{
    TestApp, Who, all_items, call, change_status, get, header, parts, send_json,
};
use serde_json::Value;
use shared::retry::Backoff;

struct Answer {
    status: u16,
    retry_after: Option<String>,
    body: Value,
}

async fn run(app: &TestApp, binary: &str, req: lambda_http::Request) -> Answer {
    let response = local_dev::invoke(binary, &local_dev::Services::for_test(&app.store), req)
        .await
        .expect("known binary");
    let retry_after = header(&response, "retry-after");
    let (status, _, body) = parts(response);
    Answer {
        status,
        retry_after,
        body,
    }
}

/// Every write route, with a request that succeeds on the sample data (from staff).
fn writes() -> Vec<(&'static str, lambda_http::Request)> {
    vec![
        (
            "place-order",
            send_json(
                Who::Staff,
                "POST /customers/{customerId}/orders",
                "/customers/c1/orders",
                &[("idempotency-key", "fault-test-1")],
                r#"{"items":[{"sku":"sku-1","quantity":2},{"sku":"sku-2","quantity":1}]}"#,
            ),
        ),
        (
            "put-product",
            local_engine::testing::catalog::put_single(Who::Staff, "sku-3", "Renamed", "9.99"),
        ),
        (
            "adjust-stock",
            send_json(
                Who::Staff,
                "POST /variants/{sku}/stock",
                "/variants/sku-4/stock",
                &[],
                r#"{"delta":-7}"#,
            ),
        ),
        (
            "update-order-status",
            change_status(Who::Staff, "o100", "CANCELLED"),
        ),
    ]
}

/// The table's items, sorted, for before/after comparisons.
async fn snapshot(app: &TestApp) -> Vec<String> {
    let mut items: Vec<String> = all_items(app).await.iter().map(canonical).collect();
    items.sort();
    items
}

/// An item as text that is the same for the same item: its attributes, and a map's entries
/// (a fulfilment's lines), in name order.
fn canonical(item: &std::collections::HashMap<String, AttributeValue>) -> String {
    let mut pairs: Vec<String> = item
        .iter()
        .map(|(k, v)| match v {
            AttributeValue::M(map) => format!("{k}=M({})", canonical(map)),
            AttributeValue::L(list) => {
                let entries: Vec<String> = list
                    .iter()
                    .map(|entry| match entry {
                        AttributeValue::M(map) => canonical(map),
                        other => format!("{other:?}"),
                    })
                    .collect();
                format!("{k}=L({})", entries.join(", "))
            }
            other => format!("{k}={other:?}"),
        })
        .collect();
    pairs.sort();
    pairs.join(" ")
}

/// What each write did to the sample data, in a way a repeat would show.
async fn effects(app: &TestApp) -> (u64, u64, u64, usize) {
    let orders_of_c1 = all_items(app)
        .await
        .iter()
        .filter(|item| {
            item["PK"].as_s().is_ok_and(|pk| pk == "CUSTOMER#c1")
                && item["SK"].as_s().is_ok_and(|sk| sk.starts_with("ORDER#"))
        })
        .count();
    (
        app.stock("sku-1").await,
        app.stock("sku-2").await,
        app.stock("sku-4").await,
        orders_of_c1,
    )
}

#[tokio::test]
async fn conflicts_are_retried_with_backoff_and_applied_once() {
    for (binary, req) in writes() {
        let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
        let before = effects(&app).await;
        faults.inject("TransactWriteItems", Fault::TransactionConflict, 2);
        let answer = run(&app, binary, req).await;
        assert!(
            answer.status < 300,
            "{binary}: {} {}",
            answer.status,
            answer.body
        );
        assert_eq!(
            app.requests.by_operation()["TransactWriteItems"],
            3,
            "{binary}: two collisions, then the commit"
        );
        let after = effects(&app).await;
        match binary {
            "place-order" => assert_eq!(
                (after.0, after.1, after.3),
                (before.0 - 2, before.1 - 1, before.3 + 1)
            ),
            "adjust-stock" => assert_eq!(after.2, before.2 - 7),
            // o100's line (2 × sku-1) goes back to stock, once.
            "update-order-status" => assert_eq!((after.0, after.1), (before.0 + 2, before.1)),
            _ => assert_eq!((after.0, after.1, after.2, after.3), before),
        }
    }
}

#[tokio::test]
async fn collisions_that_never_stop_are_a_503_with_retry_after_and_write_nothing() {
    for (binary, req) in writes() {
        let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
        let before = snapshot(&app).await;
        faults.always("TransactWriteItems", Fault::TransactionConflict);
        let answer = run(&app, binary, req).await;
        assert_eq!(answer.status, 503, "{binary}: {}", answer.body);
        assert_eq!(answer.retry_after.as_deref(), Some("1"), "{binary}");
        assert_eq!(answer.body["type"], "/problems/unavailable", "{binary}");
        assert_eq!(
            app.requests.by_operation()["TransactWriteItems"],
            Backoff::TRANSACTION.attempts as usize,
            "{binary}: bounded"
        );
        assert_eq!(snapshot(&app).await, before, "{binary}: nothing written");
    }
}

#[tokio::test]
async fn throttling_and_dynamodb_failures_are_retried_then_a_503_with_nothing_written() {
    let operations = [
        ("place-order", "BatchGetItem"),
        ("place-order", "TransactWriteItems"),
        ("put-product", "GetItem"),
        ("put-product", "TransactWriteItems"),
        ("adjust-stock", "TransactWriteItems"),
        ("update-order-status", "Query"),
        ("update-order-status", "TransactWriteItems"),
    ];
    for fault in [
        Fault::Throttling,
        Fault::ThroughputExceeded,
        Fault::InternalServerError,
    ] {
        for (binary, operation) in operations {
            let req = writes()
                .into_iter()
                .find(|(b, _)| *b == binary)
                .expect("write")
                .1;
            // A passing fault: the SDK retries it and the write lands once.
            let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
            let before = effects(&app).await;
            faults.inject(operation, fault, 2);
            let answer = run(&app, binary, req).await;
            assert!(
                answer.status < 300,
                "{binary} {operation} {fault:?}: {}",
                answer.body
            );
            assert_eq!(
                app.requests.by_operation()[operation],
                3,
                "{binary} {operation} {fault:?}"
            );
            let after = effects(&app).await;
            if binary == "place-order" {
                assert_eq!(after.3, before.3 + 1, "{fault:?}: one order");
                assert_eq!(after.0, before.0 - 2, "{fault:?}: stock taken once");
            }
            if binary == "adjust-stock" {
                assert_eq!(after.2, before.2 - 7, "{fault:?}: changed once");
            }
            // A lasting one: four attempts (the SDK's bound), then 503 and nothing written.
            let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
            let before = snapshot(&app).await;
            faults.always(operation, fault);
            let req = writes()
                .into_iter()
                .find(|(b, _)| *b == binary)
                .expect("write")
                .1;
            let answer = run(&app, binary, req).await;
            assert_eq!(
                answer.status, 503,
                "{binary} {operation} {fault:?}: {}",
                answer.body
            );
            assert_eq!(answer.retry_after.as_deref(), Some("1"));
            assert_eq!(
                app.requests.by_operation()[operation],
                4,
                "{binary} {operation} {fault:?}"
            );
            assert_eq!(
                snapshot(&app).await,
                before,
                "{binary} {operation} {fault:?}"
            );
        }
    }
}

#[tokio::test]
async fn a_profile_write_is_retried_through_throttling_and_refused_whole_when_it_lasts() {
    let put = || {
        send_json(
            Who::Customer("c1"),
            "PUT /customers/{customerId}",
            "/customers/c1",
            &[],
            r#"{"name":"Ana T. Torres","email":"ana.t@example.com"}"#,
        )
    };
    for fault in [
        Fault::Throttling,
        Fault::ThroughputExceeded,
        Fault::InternalServerError,
    ] {
        let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
        faults.inject("UpdateItem", fault, 2);
        let answer = run(&app, "put-customer", put()).await;
        assert_eq!(answer.status, 200, "{fault:?}: {}", answer.body);
        // The profile's three tries, then the mark on the cart's version that it is written.
        assert_eq!(app.requests.by_operation()["UpdateItem"], 4, "{fault:?}");

        let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
        let before = snapshot(&app).await;
        faults.always("UpdateItem", fault);
        let answer = run(&app, "put-customer", put()).await;
        assert_eq!(answer.status, 503, "{fault:?}: {}", answer.body);
        assert_eq!(answer.retry_after.as_deref(), Some("1"));
        assert_eq!(app.requests.by_operation()["UpdateItem"], 4, "{fault:?}");
        assert_eq!(snapshot(&app).await, before, "{fault:?}: nothing written");
    }
}

#[tokio::test]
async fn an_answer_lost_after_the_write_is_retried_without_applying_it_twice() {
    for (binary, req) in writes() {
        let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
        let before = effects(&app).await;
        // Whichever request the write is made with loses its first answer.
        faults.inject("TransactWriteItems", Fault::TimeoutAfterApplying, 1);
        faults.inject("UpdateItem", Fault::TimeoutAfterApplying, 1);
        faults.inject("PutItem", Fault::TimeoutAfterApplying, 1);
        let answer = run(&app, binary, req).await;
        assert!(
            answer.status < 300,
            "{binary}: {} {}",
            answer.status,
            answer.body
        );
        assert_eq!(
            faults.injected().len(),
            1,
            "{binary}: its write lost an answer"
        );
        let after = effects(&app).await;
        match binary {
            "place-order" => assert_eq!(
                (after.0, after.1, after.3),
                (before.0 - 2, before.1 - 1, before.3 + 1),
                "one order, its stock taken once"
            ),
            "adjust-stock" => assert_eq!(after.2, before.2 - 7, "the stock changed once"),
            "update-order-status" => assert_eq!(after.0, before.0 + 2, "stock given back once"),
            _ => assert_eq!((after.0, after.1, after.2, after.3), before),
        }
    }
    // A profile write answered late is written once all the same (it sets, never adds).
    let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
    faults.inject("UpdateItem", Fault::TimeoutAfterApplying, 1);
    let req = send_json(
        Who::Customer("c77"),
        "PUT /customers/{customerId}",
        "/customers/c77",
        &[],
        r#"{"name":"Late Answer","email":"late@example.com"}"#,
    );
    let answer = run(&app, "put-customer", req).await;
    assert!(answer.status < 300, "{}", answer.body);
    let read = get(
        Who::Customer("c77"),
        "GET /customers/{customerId}",
        "/customers/c77",
        "",
    );
    let answer = run(&app, "get-customer", read).await;
    assert_eq!(answer.body["name"], "Late Answer");
}

#[tokio::test]
async fn reads_that_dynamodb_cannot_answer_are_a_503_never_a_wrong_page() {
    type Read = fn() -> lambda_http::Request;
    let reads: [(&str, &str, Read); 5] = [
        ("get-customer", "GetItem", || {
            get(
                Who::Customer("c1"),
                "GET /customers/{customerId}",
                "/customers/c1",
                "",
            )
        }),
        ("list-customer-orders", "Query", || {
            get(
                Who::Customer("c1"),
                "GET /customers/{customerId}/orders",
                "/customers/c1/orders",
                "limit=5",
            )
        }),
        ("get-order-items", "Query", || {
            get(
                Who::Staff,
                "GET /orders/{orderId}/items",
                "/orders/o100/items",
                "",
            )
        }),
        ("list-orders-by-status", "Query", || {
            get(
                Who::Staff,
                "GET /orders",
                "/orders",
                "status=PLACED&limit=5",
            )
        }),
        ("list-products", "Query", || {
            call(
                Who::Customer("c1"),
                "GET /products",
                "/products",
                "limit=5",
                &[],
                b"",
            )
        }),
    ];
    for (binary, operation, req) in reads {
        let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
        let clean = run(&app, binary, req()).await;
        assert_eq!(clean.status, 200, "{binary}: {}", clean.body);
        faults.inject(operation, Fault::InternalServerError, 1);
        faults.inject(operation, Fault::Throttling, 1);
        let retried = run(&app, binary, req()).await;
        assert_eq!(
            (retried.status, &retried.body),
            (200, &clean.body),
            "{binary}"
        );
        faults.always(operation, Fault::ThroughputExceeded);
        let refused = run(&app, binary, req()).await;
        assert_eq!(refused.status, 503, "{binary}: {}", refused.body);
        assert_eq!(refused.retry_after.as_deref(), Some("1"));
        assert_eq!(refused.body["type"], "/problems/unavailable");
    }
}

#[tokio::test]
async fn a_request_dynamodb_never_answers_times_out_and_is_tried_again() {
    let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
    let req = || {
        get(
            Who::Customer("c1"),
            "GET /customers/{customerId}",
            "/customers/c1",
            "",
        )
    };
    faults.inject("GetItem", Fault::TimeoutUnsent, 1);
    let started = std::time::Instant::now();
    let answer = run(&app, "get-customer", req()).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(1),
        "the attempt timed out"
    );
    faults.always("GetItem", Fault::TimeoutUnsent);
    let answer = run(&app, "get-customer", req()).await;
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert_eq!(answer.retry_after.as_deref(), Some("1"));
}

/// A sanity check on the fault layer itself: what it gave is what the test asked for.
#[tokio::test]
async fn the_fault_layer_injects_exactly_what_it_is_told() {
    let (app, faults) = TestApp::seeded_with_faults().await.expect("app");
    let _: &Faults = &faults;
    faults.inject("GetItem", Fault::Throttling, 1);
    let req = || {
        get(
            Who::Customer("c1"),
            "GET /customers/{customerId}",
            "/customers/c1",
            "",
        )
    };
    assert_eq!(run(&app, "get-customer", req()).await.status, 200);
    assert_eq!(
        faults.injected(),
        [("GetItem".to_owned(), Fault::Throttling)]
    );
    assert_eq!(app.requests.by_operation()["GetItem"], 2);
    assert_eq!(run(&app, "get-customer", req()).await.status, 200);
    assert_eq!(faults.injected().len(), 1);
}
