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
