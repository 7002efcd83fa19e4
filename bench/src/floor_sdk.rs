//! store-floor-sdk: the floor with the SDK in it, measured beside the functions and the floor by
//! `make bench` (docs/performance.md, "Cold starts as Lambda runs them").
//!
//! It is `store-floor` (bench/src/floor.rs) with its hand-written request replaced by the SDK's:
//! the same runtime loop and single-threaded tokio, and for each event one GetItem of the warm-up
//! key through the DynamoDB client exactly as the functions build it
//! (`shared::dynamo::client::sdk_client`: its credentials, timeouts, retries, TLS roots and
//! connector). Nothing else of the store: no logging, no configuration of its own, no HTTP
//! event, no routing, no handler. So a function's cold start splits in two: from the floor to
//! this binary is what the SDK costs, from this binary to the function what the store's own
//! code adds. With `BENCH_FIRST_REQUEST_IN_INIT=1` that GetItem is also sent in init, as the
//! functions' warm-up sends it.

use lambda_runtime::{Error, LambdaEvent, service_fn};
use serde_json::{Value, json};
use shared::dynamo::{codec, keys::warm_up};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let environment = shared::dynamo::client::Environment::of_process()?;
    let client = shared::dynamo::client::sdk_client(environment);
    let table = std::env::var("TABLE_NAME")?;
    let get_item = async || -> Result<bool, Error> {
        let key = codec::primary_key(warm_up::PK.to_owned(), warm_up::SK);
        let read = (client.get_item().table_name(&table))
            .set_key(Some(key))
            .send()
            .await?;
        Ok(read.item.is_some())
    };
    if std::env::var("BENCH_FIRST_REQUEST_IN_INIT").as_deref() == Ok("1") {
        get_item().await?;
    }
    let get_item = &get_item;
    lambda_runtime::run(service_fn(move |_: LambdaEvent<Value>| async move {
        let found = get_item().await?;
        Ok::<_, Error>(json!({ "statusCode": 200, "body": { "found": found } }))
    }))
    .await
}
