//! The built binary through the Lambda Runtime API: which connections its init opens, by the
//! kind of init Lambda names, and that a checkout then uses one of each.

use std::path::Path;

use local_engine::relay::CountingRelay;
use local_engine::runtime_api::LambdaProcess;
use local_engine::testing::TestApp;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn init_opens_the_tables_and_the_providers_connections_ahead_of_traffic_and_on_demand_when_small()
 {
    let event = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../events/checkout.json"
    ))
    .expect("event");
    for (init_type, memory_mb, opened_in_init) in [
        ("on-demand", "128", 1),
        ("on-demand", "1024", 0),
        ("provisioned-concurrency", "1769", 1),
        ("lambda-managed-instances", "1769", 1),
    ] {
        let app = TestApp::seeded().await.expect("app");
        let table = CountingRelay::start(app.engine.endpoint())
            .await
            .expect("relay");
        let provider = CountingRelay::start(local_engine::testing::provider().base())
            .await
            .expect("relay");
        let lambda = LambdaProcess::start_with(
            Path::new(env!("CARGO_BIN_EXE_checkout")),
            "checkout",
            &table.url,
            &[
                ("AWS_LAMBDA_INITIALIZATION_TYPE", init_type),
                ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", memory_mb),
                ("PAYMENT_API_BASE", &provider.url),
                ("PAYMENT_API_KEY", local_engine::provider::LOCAL_API_KEY),
            ],
        )
        .await
        .expect("starts");
        lambda.initialised().await.expect("init ends");
        assert_eq!(
            (table.connections(), provider.connections()),
            (opened_in_init, opened_in_init),
            "{init_type} at {memory_mb} MB: the table's and the provider's connections opened by init"
        );

        let reply = lambda.invoke(event.clone()).await.expect("answers");
        let answer: Value = serde_json::from_slice(&reply.body).expect("a JSON response");
        assert_eq!(answer["statusCode"], 201, "{init_type}: {answer}");
        let body: Value =
            serde_json::from_str(answer["body"].as_str().expect("a body")).expect("JSON");
        assert!(
            body["payment"]["paymentIntentId"]
                .as_str()
                .is_some_and(|id| id.starts_with("pi_")),
            "{init_type}: {body}"
        );
        assert_eq!(
            (table.connections(), provider.connections()),
            (1, 1),
            "{init_type}: one connection to each, whichever opened it"
        );
        lambda.stop().await.expect("stops");
    }
}
