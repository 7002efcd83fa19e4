//! The built binary, driven through the Lambda Runtime API as Lambda and `sam local invoke`
//! drive it: the sample event in, an API Gateway (payload 2.0) response out.

use std::path::Path;

use local_engine::relay::CountingRelay;
use local_engine::runtime_api::LambdaProcess;
use local_engine::testing::TestApp;
use serde_json::{Value, json};

fn response(reply: &[u8]) -> (Value, Value) {
    let response: Value = serde_json::from_slice(reply).expect("a JSON response");
    let body = response["body"].as_str().expect("a text body");
    let body = serde_json::from_str(body).expect("a JSON body");
    (response, body)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_answers_its_sample_event_as_api_gateway_expects() {
    let app = TestApp::seeded().await.expect("app");
    let lambda = LambdaProcess::start(
        Path::new(env!("CARGO_BIN_EXE_get-customer")),
        "get-customer",
        app.engine.endpoint(),
    )
    .await
    .expect("starts");
    let event = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../events/get-customer.json"
    ))
    .expect("event");

    let reply = lambda.invoke(event.clone()).await.expect("answers");
    assert!(reply.ok, "{}", String::from_utf8_lossy(&reply.body));
    let (head, body) = response(&reply.body);
    assert_eq!(head["statusCode"], 200);
    assert_eq!(head["headers"]["content-type"], "application/json");
    assert_eq!(head["isBase64Encoded"], false);
    assert_eq!(body["customerId"], "c1");
    assert_eq!(body["name"], "Ana Torres");

    // An event API Gateway would not send (a body flagged base64 that is not) is a 400 problem,
    // not a failed invocation, and the process serves on.
    let mut bad: Value = serde_json::from_slice(&event).expect("json");
    bad["body"] = json!("not base64!");
    bad["isBase64Encoded"] = json!(true);
    let reply = lambda
        .invoke(serde_json::to_vec(&bad).expect("json"))
        .await
        .expect("answers");
    assert!(reply.ok);
    let (head, body) = response(&reply.body);
    assert_eq!(head["statusCode"], 400);
    assert_eq!(head["headers"]["content-type"], "application/problem+json");
    assert_eq!(body["status"], 400);

    let reply = lambda.invoke(event).await.expect("answers");
    assert_eq!(response(&reply.body).0["statusCode"], 200);
    lambda.stop().await.expect("stops");
}

#[tokio::test(flavor = "multi_thread")]
async fn init_opens_the_connection_ahead_of_traffic_and_on_demand_at_a_small_size() {
    let app = TestApp::seeded().await.expect("app");
    let event = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../events/get-customer.json"
    ))
    .expect("event");
    // What Lambda names the kind of init in AWS_LAMBDA_INITIALIZATION_TYPE, the memory size, and
    // whether the connection to DynamoDB is then open when init ends. (`snap-start` is left out:
    // the runtime then asks Lambda's restore API, which SnapStart serves, and custom runtimes do
    // not get.)
    for (init_type, memory_mb, opened_in_init) in [
        ("on-demand", "128", true),
        ("on-demand", "1024", false),
        ("provisioned-concurrency", "1769", true),
        ("lambda-managed-instances", "1769", true),
    ] {
        let relay = CountingRelay::start(app.engine.endpoint())
            .await
            .expect("relay");
        let lambda = LambdaProcess::start_with(
            Path::new(env!("CARGO_BIN_EXE_get-customer")),
            "get-customer",
            &relay.url,
            &[
                ("AWS_LAMBDA_INITIALIZATION_TYPE", init_type),
                ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", memory_mb),
            ],
        )
        .await
        .expect("starts");
        lambda.initialised().await.expect("init ends");
        assert_eq!(
            relay.connections(),
            usize::from(opened_in_init),
            "{init_type} at {memory_mb} MB: connections opened by init"
        );
        for _ in 0..2 {
            let reply = lambda.invoke(event.clone()).await.expect("answers");
            assert_eq!(response(&reply.body).0["statusCode"], 200, "{init_type}");
        }
        assert_eq!(
            relay.connections(),
            1,
            "{init_type}: one connection in all, kept from request to request"
        );
        lambda.stop().await.expect("stops");
    }
}

#[test]
fn a_wrong_environment_is_one_clear_error_and_a_non_zero_exit_never_a_panic() {
    for (variable, value, expected) in [
        (
            "AWS_ENDPOINT_URL_DYNAMODB",
            Some(""),
            "AWS_ENDPOINT_URL_DYNAMODB is set but empty",
        ),
        (
            "AWS_ENDPOINT_URL_DYNAMODB",
            Some("localhost:8000"),
            "not an http:// or https:// URL",
        ),
        (
            "AWS_ENDPOINT_URL",
            Some(" "),
            "AWS_ENDPOINT_URL is set but empty",
        ),
        (
            "TABLE_NAME",
            None,
            "environment variable TABLE_NAME must be set",
        ),
        (
            "STATUS_SHARDS",
            Some("64"),
            "STATUS_SHARDS: the status shard count must be 1 to 32",
        ),
        (
            "AWS_ACCESS_KEY_ID",
            None,
            "environment variable AWS_ACCESS_KEY_ID must be set",
        ),
        (
            "AWS_REGION",
            None,
            "environment variable AWS_REGION must be set",
        ),
    ] {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_get-customer"));
        command
            .env_clear()
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ACCESS_KEY_ID", "local")
            .env("AWS_SECRET_ACCESS_KEY", "local")
            .env("AWS_LAMBDA_LOG_FORMAT", "JSON")
            .env("TABLE_NAME", "AppTable")
            // Nothing listens there: init must fail before it would be used.
            .env("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9");
        match value {
            Some(value) => command.env(variable, value),
            None => command.env_remove(variable),
        };
        let out = command.output().expect("runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(1), "{variable}: {text}");
        assert!(!text.contains("panicked"), "{variable}: {text}");
        // One JSON log line, at ERROR, that says what is wrong.
        let logged: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        assert_eq!(logged.len(), 1, "{variable}: {text}");
        assert_eq!(logged[0]["level"], "ERROR", "{text}");
        assert!(
            logged[0].to_string().contains(expected),
            "{variable}: {text}"
        );
    }
}
