//! The built binary, driven through the Lambda Runtime API as Lambda's event source mapping and
//! `sam local invoke` drive it: the sample stream batch in, a partial-batch response out.

use std::path::Path;

use local_engine::runtime_api::LambdaProcess;
use local_engine::testing::TestApp;
use serde_json::{Value, json};
use shared::domain::customer::Customer;
use shared::domain::ids::CustomerId;

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_applies_its_sample_batch_once_however_often_it_is_delivered() {
    let app = TestApp::empty().await.expect("app");
    let c1 = CustomerId::parse("c1").expect("id");
    app.store
        .put_customer(&Customer::new(c1.clone(), "Ana", "ana@example.com").expect("customer"))
        .await
        .expect("profile");
    let lambda = LambdaProcess::start(
        Path::new(env!("CARGO_BIN_EXE_order-stats")),
        "order-stats",
        app.engine.endpoint(),
    )
    .await
    .expect("starts");
    let event = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../events/order-stats.json"
    ))
    .expect("event");

    for _ in 0..2 {
        let reply = lambda.invoke(event.clone()).await.expect("answers");
        assert!(reply.ok, "{}", String::from_utf8_lossy(&reply.body));
        let response: Value = serde_json::from_slice(&reply.body).expect("json");
        assert_eq!(response, json!({"batchItemFailures": []}));
    }
    lambda.stop().await.expect("stops");

    let c1 = app.store.get_customer(&c1).await.expect("get").expect("c1");
    // o900 placed for 12.50; o100, never counted before, arrives CANCELLED: counted, adds 0.
    assert_eq!(c1.stats.order_count, 2);
    assert_eq!(c1.stats.total_spent.to_string(), "12.50");
}
