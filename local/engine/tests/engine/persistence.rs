//! `make dev` keeps its data across restarts and seeds only once.

use std::net::SocketAddr;

use local_engine::dynoxide::Database;
use local_engine::{Engine, LOCAL_TABLE, seed, template};

async fn count_items(engine: &Engine) -> usize {
    let mut count = 0;
    let mut start = None;
    loop {
        let out = engine
            .client()
            .scan()
            .table_name(LOCAL_TABLE)
            .select(aws_sdk_dynamodb::types::Select::Count)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("scan");
        count += out.count as usize;
        start = out.last_evaluated_key;
        if start.is_none() {
            return count;
        }
    }
}

#[tokio::test]
async fn a_restarted_store_keeps_its_data_and_does_not_seed_again() {
    let dir = std::env::temp_dir().join(format!("store-persistence-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("store.db");
    let path = path.to_str().expect("utf-8");
    let any_port = SocketAddr::from(([127, 0, 0, 1], 0));

    let engine = Engine::start(Database::new(path).expect("db"), any_port)
        .await
        .expect("engine");
    assert!(template::create_table(engine.database(), LOCAL_TABLE).expect("table"));
    assert!(
        seed::seed_if_empty(&engine.client(), LOCAL_TABLE)
            .await
            .expect("seed")
    );
    let expected = seed::items().expect("items").len();
    assert_eq!(count_items(&engine).await, expected);
    // A change made while running must survive the restart.
    engine
        .client()
        .delete_item()
        .table_name(LOCAL_TABLE)
        .key(
            "PK",
            aws_sdk_dynamodb::types::AttributeValue::S("ORDER#o100".into()),
        )
        .key(
            "SK",
            aws_sdk_dynamodb::types::AttributeValue::S("ITEM#sku-1".into()),
        )
        .send()
        .await
        .expect("delete");
    engine.stop().await.expect("stop");

    let engine = Engine::start(Database::new(path).expect("db"), any_port)
        .await
        .expect("engine");
    assert!(!template::create_table(engine.database(), LOCAL_TABLE).expect("table"));
    assert!(
        !seed::seed_if_empty(&engine.client(), LOCAL_TABLE)
            .await
            .expect("seed")
    );
    assert_eq!(count_items(&engine).await, expected - 1);
    engine.stop().await.expect("stop");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_long_lived_file_gets_indexed_stream_records_trimmed_to_the_streams_retention() {
    use local_engine::streams::{self, StreamSource};
    use local_engine::upkeep::{STREAM_RETENTION, stream_query_plans, upkeep};

    let dir = std::env::temp_dir().join(format!("store-upkeep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("store.db");
    let _ = std::fs::remove_file(&path);
    let any_port = SocketAddr::from(([127, 0, 0, 1], 0));
    let engine = Engine::start(
        Database::new(path.to_str().expect("utf-8")).expect("db"),
        any_port,
    )
    .await
    .expect("engine");
    template::create_table(engine.database(), LOCAL_TABLE).expect("table");
    seed::seed_if_empty(&engine.client(), LOCAL_TABLE)
        .await
        .expect("seed");

    // Beside the running engine: both stream queries now search an index.
    let now = chrono::Utc::now().timestamp();
    let kept = upkeep(&path, now, STREAM_RETENTION).expect("upkeep");
    assert_eq!(kept.trimmed, 0, "nothing is a day old yet");
    assert!(kept.kept > 100, "{kept:?}");
    for plan in stream_query_plans(&path).expect("plans") {
        assert!(plan.contains("USING") && plan.contains("INDEX"), "{plan}");
        assert!(!plan.contains("SCAN _stream_records"), "{plan}");
    }
    // Again: idempotent.
    assert_eq!(
        upkeep(&path, now, STREAM_RETENTION).expect("again").trimmed,
        0
    );

    // A day and more later, every record is past the retention and goes, as DynamoDB's do;
    // the engine writes and streams on as before.
    let later = now + STREAM_RETENTION.as_secs() as i64 + 1;
    let trimmed = upkeep(&path, later, STREAM_RETENTION).expect("trim");
    assert_eq!((trimmed.trimmed, trimmed.kept), (kept.kept, 0));
    let consumer = streams::consumers(&template::parse().expect("template"))
        .expect("consumers")
        .remove(0);
    let mut source =
        StreamSource::open(engine.database(), LOCAL_TABLE, consumer, None).expect("stream");
    assert!(source.read_all().expect("records").is_empty());
    seed::write_all(
        &engine.client(),
        LOCAL_TABLE,
        seed::order_items(&seed::SampleOrder {
            order_id: "o999".into(),
            customer_id: "c1".into(),
            placed_at: "2026-11-30T09:00:00Z".into(),
            status: shared::domain::status::OrderStatus::Placed,
            lines: vec![("sku-1".into(), 1, "19.95".into())],
        })
        .expect("items"),
    )
    .await
    .expect("written");
    let records = source.read_all().expect("records");
    assert_eq!(records.len(), 1, "the new order's listing");
    // The poller asks DescribeStream once, not on every drain.
    for _ in 0..5 {
        source
            .drain(|_| async { Default::default() })
            .await
            .expect("drained");
    }
    assert_eq!(source.describe_calls(), 1);
    engine.stop().await.expect("stops");
    let _ = std::fs::remove_dir_all(&dir);
}
