//! The limits as the SDK sees them: answered as DynamoDB answers, over the real SDK and engine.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes, TransactWriteItem, Update};

use super::*;
use crate::Engine;

/// A client through `limits` that does not retry: each refusal is seen as it is answered.
fn client(engine: &Engine, limits: &Limits) -> Client {
    let config = crate::config(engine.endpoint())
        .http_client(limits.client(shared::dynamo::client::http_client()))
        .retry_config(RetryConfig::disabled());
    Client::from_conf(config.build())
}

/// DynamoDB's limits `factor` times slower, a partition spending ten seconds' worth at once:
/// what it holds is the units of a second at `factor / 10`, and it takes ten seconds to refill,
/// far longer than a test between two requests however loaded the machine.
fn slow(factor: f64) -> Model {
    Model {
        burst: std::time::Duration::from_secs(10),
        ..Model::scaled(factor * 10.0).with_transaction_service(std::time::Duration::ZERO)
    }
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.to_owned())
}

async fn put(client: &Client, pk: &str, gsi3: Option<&str>) -> Result<(), String> {
    let mut put = client
        .put_item()
        .table_name(LOCAL_TABLE)
        .item("PK", s(pk))
        .item("SK", s("S"));
    if let Some(gsi3) = gsi3 {
        put = put.item("GSI3PK", s(gsi3)).item("GSI3SK", s(pk));
    }
    put.send().await.map(|_| ()).map_err(|err| {
        let err = err.into_service_error();
        let reasons = match &err {
            aws_sdk_dynamodb::operation::put_item::PutItemError::ProvisionedThroughputExceededException(e) => e
                .throttling_reasons()
                .iter()
                .map(|r| format!("{} {}", r.reason().unwrap_or(""), r.resource().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(","),
            _ => String::new(),
        };
        format!("{} {reasons}", err.code().unwrap_or("?"))
    })
}

fn take_one(pk: &str) -> TransactWriteItem {
    let update = Update::builder()
        .table_name(LOCAL_TABLE)
        .key("PK", s(pk))
        .key("SK", s("S"))
        .update_expression("ADD stock :n")
        .expression_attribute_values(":n", AttributeValue::N("-1".to_owned()))
        .build()
        .expect("an update");
    TransactWriteItem::builder().update(update).build()
}

/// Each action's cancellation reason, or "committed".
async fn transact(client: &Client, pks: &[&str]) -> Vec<String> {
    let items: Vec<TransactWriteItem> = pks.iter().map(|pk| take_one(pk)).collect();
    match client.transact_write_items().set_transact_items(Some(items)).send().await {
        Ok(_) => vec!["committed".to_owned()],
        Err(err) => match err.into_service_error() {
            aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(e) => e
                .cancellation_reasons()
                .iter()
                .map(|r| r.code().unwrap_or("?").to_owned())
                .collect(),
            other => vec![other.code().unwrap_or("?").to_owned()],
        },
    }
}

#[tokio::test]
async fn a_partition_out_of_write_units_is_throttled_with_the_key_range_reason() {
    let engine = Engine::in_memory().await.expect("an engine");
    // A partition holds 1 write unit: the first write spends it.
    let limits = Limits::new(engine.database(), slow(1000.0)).expect("limits");
    let client = client(&engine, &limits);
    put(&client, "A", None).await.expect("the first write");
    let refused = put(&client, "A", None)
        .await
        .expect_err("the partition is spent");
    assert_eq!(
        refused,
        "ProvisionedThroughputExceededException TableWriteKeyRangeThroughputExceeded \
         arn:aws:dynamodb:us-east-1:000000000000:table/AppTable"
    );
    // Another partition key is another partition.
    put(&client, "B", None).await.expect("another partition");
    // Two items of one index partition: the index is throttled, not the table.
    put(&client, "C", Some("P")).await.expect("into the index");
    let refused = put(&client, "D", Some("P"))
        .await
        .expect_err("the index partition is spent");
    assert!(
        refused.contains("IndexWriteKeyRangeThroughputExceeded")
            && refused.ends_with("table/AppTable/index/GSI3"),
        "{refused}"
    );
    assert_eq!(limits.refusals().throttled, 2);
    // Nothing refused was written.
    let stored = crate::scan_all(&engine.client(), LOCAL_TABLE)
        .await
        .expect("a scan");
    assert_eq!(stored.len(), 3);
}

#[tokio::test]
async fn a_transaction_on_an_item_another_holds_is_cancelled_with_transaction_conflict() {
    let engine = Engine::in_memory().await.expect("an engine");
    // A service time of 800 ms (within the SDK's 1 s attempt timeout): the first transaction
    // holds its items while the test acts.
    let service = std::time::Duration::from_millis(800);
    let model = Model::DYNAMODB.with_transaction_service(service);
    let limits = Limits::new(engine.database(), model).expect("limits");
    let client = client(&engine, &limits);
    let started = std::time::Instant::now();
    let first = tokio::spawn({
        let client = client.clone();
        async move { transact(&client, &["A", "B"]).await }
    });
    // Once the first holds B (its task may start late on a loaded machine: a plain write of B,
    // which holds nothing, is refused once it does)...
    while limits.refusals().conflicts == 0 {
        assert!(
            started.elapsed() < service,
            "the first transaction never held its items"
        );
        tokio::task::yield_now().await;
        let _ = put(&client, "B", None).await;
    }
    // ...another transaction on B is cancelled at B's action, whatever else it holds.
    assert_eq!(
        transact(&client, &["C", "B"]).await,
        ["None", "TransactionConflict"]
    );
    // A write outside a transaction is refused too; a read is not.
    assert_eq!(
        put(&client, "A", None).await.expect_err("held"),
        "TransactionConflictException "
    );
    client
        .get_item()
        .table_name(LOCAL_TABLE)
        .key("PK", s("A"))
        .key("SK", s("S"))
        .send()
        .await
        .expect("a read of a held item");
    // The first commits, and answers once its service time is over: its items are free then.
    assert_eq!(first.await.expect("the first"), ["committed"]);
    assert!(started.elapsed() >= service);
    assert_eq!(transact(&client, &["C", "B"]).await, ["committed"]);
    assert!(limits.refusals().conflicts >= 3);
}

#[tokio::test]
async fn a_transaction_sent_again_with_its_token_is_answered_as_the_first_was() {
    let engine = Engine::in_memory().await.expect("an engine");
    // The first holds its item 800 ms; the same request is sent again meanwhile, as the SDK
    // sends it again when an attempt's answer is late.
    let service = std::time::Duration::from_millis(800);
    let model = Model::DYNAMODB.with_transaction_service(service);
    let limits = Limits::new(engine.database(), model).expect("limits");
    let client = client(&engine, &limits);
    let send = |client: Client| async move {
        client
            .transact_write_items()
            .transact_items(take_one("A"))
            .client_request_token("the-same-checkout")
            .send()
            .await
            .map(|_| ())
            .map_err(|err| format!("{:?}", err.into_service_error()))
    };
    let stock = || async {
        let item = (client.get_item().table_name(LOCAL_TABLE))
            .key("PK", s("A"))
            .key("SK", s("S"))
            .consistent_read(true)
            .send()
            .await
            .expect("a read");
        item.item.and_then(|item| item.get("stock").cloned())
    };
    let first = tokio::spawn(send(client.clone()));
    // Once the first has written A (it holds A for its service time from then)...
    while stock().await.is_none() {
        tokio::task::yield_now().await;
    }
    // ...the same transaction with its token is no conflict with itself: answered once the
    // first is done, as the first was, and committed once.
    send(client.clone())
        .await
        .expect("the same transaction again");
    first.await.expect("the task").expect("the first");
    assert_eq!(stock().await, Some(AttributeValue::N("-1".to_owned())));
    assert_eq!(limits.refusals().conflicts, 0);
    // Another token is another transaction.
    assert_eq!(transact(&client, &["A"]).await, ["committed"]);
    assert_eq!(stock().await, Some(AttributeValue::N("-2".to_owned())));
}

#[tokio::test]
async fn a_transaction_out_of_units_is_cancelled_with_throttling_error_at_its_action() {
    let engine = Engine::in_memory().await.expect("an engine");
    // A partition holds 2 write units: one transactional write of an item spends them (and no
    // item is held past its transaction, so the next is refused for units, not for the item).
    let limits = Limits::new(engine.database(), slow(500.0)).expect("limits");
    let client = client(&engine, &limits);
    assert_eq!(transact(&client, &["A"]).await, ["committed"]);
    assert_eq!(
        transact(&client, &["B", "A"]).await,
        ["None", "ThrottlingError"]
    );
}

#[tokio::test]
async fn a_batch_get_answers_what_it_can_and_returns_the_rest_unprocessed() {
    let engine = Engine::in_memory().await.expect("an engine");
    let direct = engine.client();
    for pk in ["A", "B"] {
        put(&direct, pk, None).await.expect("written");
    }
    // A partition holds 3 read units: 3 consistent reads of A, then A is spent and B is not.
    let limits = Limits::new(engine.database(), slow(1000.0)).expect("limits");
    let client = client(&engine, &limits);
    let key = |pk: &str| {
        std::collections::HashMap::from([("PK".to_owned(), s(pk)), ("SK".to_owned(), s("S"))])
    };
    let batch = |pks: &[&str]| {
        let keys = KeysAndAttributes::builder()
            .set_keys(Some(pks.iter().map(|pk| key(pk)).collect()))
            .consistent_read(true)
            .build()
            .expect("keys");
        client.batch_get_item().request_items(LOCAL_TABLE, keys)
    };
    for _ in 0..3 {
        batch(&["A"]).send().await.expect("a read of A");
    }
    let answer = batch(&["A", "B"]).send().await.expect("a partial answer");
    let found = answer.responses.unwrap_or_default();
    assert_eq!(found[LOCAL_TABLE].len(), 1);
    assert_eq!(found[LOCAL_TABLE][0]["PK"], s("B"));
    let unprocessed = answer.unprocessed_keys.unwrap_or_default();
    assert_eq!(unprocessed[LOCAL_TABLE].keys(), &[key("A")]);
    let refused = batch(&["A"]).send().await.expect_err("nothing to answer");
    assert_eq!(
        refused.into_service_error().code(),
        Some("ProvisionedThroughputExceededException")
    );
}

#[tokio::test]
async fn a_query_spends_what_it_read_in_its_partition() {
    let engine = Engine::in_memory().await.expect("an engine");
    let direct = engine.client();
    let big = "x".repeat(3000);
    for sk in ["1", "2", "3", "4"] {
        direct
            .put_item()
            .table_name(LOCAL_TABLE)
            .item("PK", s("A"))
            .item("SK", s(sk))
            .item("blob", s(&big))
            .send()
            .await
            .expect("written");
    }
    // A partition holds 3 read units: a consistent Query of 12 KB spends 3.
    let limits = Limits::new(engine.database(), slow(1000.0)).expect("limits");
    let client = client(&engine, &limits);
    let query = || {
        client
            .query()
            .table_name(LOCAL_TABLE)
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", s("A"))
            .consistent_read(true)
            .send()
    };
    assert_eq!(query().await.expect("the first query").count, 4);
    let refused = query().await.expect_err("the partition is spent");
    assert_eq!(
        refused.into_service_error().code(),
        Some("ProvisionedThroughputExceededException")
    );
}

#[tokio::test]
async fn a_get_spends_the_units_of_the_item_it_found_once_it_has_answered() {
    let engine = Engine::in_memory().await.expect("an engine");
    let direct = engine.client();
    direct
        .put_item()
        .table_name(LOCAL_TABLE)
        .item("PK", s("A"))
        .item("SK", s("S"))
        .item("blob", s(&"x".repeat(9000)))
        .send()
        .await
        .expect("written");
    put(&direct, "B", None).await.expect("written");
    // A partition holds 3 read units. A consistent read of 9 KB is admitted with one and
    // spends three: the next read of A finds none, B's partition is untouched.
    let limits = Limits::new(engine.database(), slow(1000.0)).expect("limits");
    let client = client(&engine, &limits);
    let get = |pk: &str| {
        (client.get_item().table_name(LOCAL_TABLE))
            .key("PK", s(pk))
            .key("SK", s("S"))
            .consistent_read(true)
            .send()
    };
    assert!(get("A").await.expect("the first read").item.is_some());
    let refused = get("A").await.expect_err("the partition is spent");
    assert_eq!(
        refused.into_service_error().code(),
        Some("ProvisionedThroughputExceededException")
    );
    let keys = KeysAndAttributes::builder()
        .keys(std::collections::HashMap::from([
            ("PK".to_owned(), s("B")),
            ("SK".to_owned(), s("S")),
        ]))
        .consistent_read(true)
        .build()
        .expect("keys");
    let batch = client.batch_get_item().request_items(LOCAL_TABLE, keys);
    let answer = batch.send().await.expect("B's partition has its units");
    assert_eq!(answer.responses.unwrap_or_default()[LOCAL_TABLE].len(), 1);
}
