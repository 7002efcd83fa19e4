//! make dev's client sends transactions without a ClientRequestToken (`WithoutRequestTokens`);
//! every other client keeps the SDK's token, and with it DynamoDB's replay of a resent one.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use local_engine::{Engine, LOCAL_TABLE};

/// The same conditional put, sent twice with one token: whether the second is a replay.
async fn second_send_replays(client: &Client, pk: &str) -> bool {
    let put = Put::builder()
        .table_name(LOCAL_TABLE)
        .item("PK", AttributeValue::S(pk.into()))
        .item("SK", AttributeValue::S("X".into()))
        .condition_expression("attribute_not_exists(PK)")
        .build()
        .expect("put");
    let send = || {
        client
            .transact_write_items()
            .transact_items(TransactWriteItem::builder().put(put.clone()).build())
            .client_request_token("one-token-for-both")
            .send()
    };
    send().await.expect("first");
    send().await.is_ok()
}

#[tokio::test]
async fn only_make_devs_client_leaves_the_token_out() {
    let engine = Engine::in_memory().await.expect("engine");
    assert!(second_send_replays(&engine.client(), "T#kept").await);
    assert!(
        !second_send_replays(&engine.dev_client(), "T#left-out").await,
        "without the token the second send runs again and meets its condition"
    );
}
