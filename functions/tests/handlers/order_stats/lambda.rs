//! The built binary, driven through the Lambda Runtime API as Lambda's event source mapping and
//! `sam local invoke` drive it: the sample stream batch in, a partial-batch response out.

use local_engine::runtime_api::LambdaProcess;
use local_engine::testing::TestApp;
use serde_json::{Value, json};
use shared::domain::customer::Customer;
use shared::domain::ids::CustomerId;

const BINARY: &str = env!("CARGO_BIN_EXE_order-stats");

/// An engine whose customer c1 (the sample batch's) has a profile.
async fn app_with_c1() -> TestApp {
    let app = TestApp::empty().await.expect("app");
    let c1 = CustomerId::parse("c1").expect("id");
    app.store
        .put_customer(&Customer::new(c1, "Ana", "ana@example.com").expect("customer"))
        .await
        .expect("profile");
    app
}

fn sample_event() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../events/order-stats.json"
    ))
    .expect("event")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_applies_its_sample_batch_once_however_often_it_is_delivered() {
    let app = app_with_c1().await;
    let c1 = CustomerId::parse("c1").expect("id");
    let lambda = LambdaProcess::start(BINARY.as_ref(), "order-stats", app.engine.endpoint())
        .await
        .expect("starts");
    let event = sample_event();

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

/// What the binary prints is what CloudWatch gets: one EMF line per invocation (the metrics),
/// and log lines that each carry the invocation's X-Ray trace ID.
#[tokio::test(flavor = "multi_thread")]
async fn the_binary_prints_its_metrics_as_emf_and_the_trace_id_on_every_invocation_log_line() {
    let app = app_with_c1().await;
    let lambda = LambdaProcess::start_logged(
        BINARY.as_ref(),
        "order-stats",
        app.engine.endpoint(),
        "DEBUG",
    )
    .await
    .expect("starts");
    let event = sample_event();
    for _ in 0..2 {
        let reply = lambda.invoke(event.clone()).await.expect("answers");
        assert!(reply.ok, "{}", String::from_utf8_lossy(&reply.body));
    }
    let lines = lambda.stop_and_read_output().await.expect("output");
    let json: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let emf: Vec<&Value> = json.iter().filter(|l| !l["_aws"].is_null()).collect();
    assert_eq!(emf.len(), 2, "one EMF line per invocation: {lines:#?}");
    let (first, second) = (emf[0], emf[1]);
    let directive = &first["_aws"]["CloudWatchMetrics"][0];
    assert_eq!(directive["Namespace"], "OnlineStore");
    assert_eq!(directive["Dimensions"], json!([["Function"]]));
    assert_eq!(first["Function"], "order-stats");
    let declared = |line: &Value| -> Vec<(String, String)> {
        line["_aws"]["CloudWatchMetrics"][0]["Metrics"]
            .as_array()
            .expect("metrics")
            .iter()
            .map(|m| {
                (
                    m["Name"].as_str().unwrap_or_default().to_owned(),
                    m["Unit"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    };
    // The sample batch's changes written, once: the redelivery finds them applied.
    assert!(first["RecordsApplied"].as_u64() >= Some(1), "{first}");
    assert_eq!(first["ColdStarts"], 1);
    assert!(declared(first).contains(&("RecordsApplied".into(), "Count".into())));
    assert!(declared(first).contains(&("ColdStarts".into(), "Count".into())));
    assert_eq!(
        second["RecordsSkipped"], first["RecordsApplied"],
        "{second}"
    );
    assert!(second["RecordsApplied"].is_null() && second["ColdStarts"].is_null());
    for line in &emf {
        assert!(
            line["traceId"]
                .as_str()
                .is_some_and(|t| t.starts_with("Root=")),
            "{line}"
        );
        assert!(line["requestId"].is_string(), "{line}");
    }
    // Every log line of an invocation names its trace.
    let in_invocation: Vec<&Value> = json
        .iter()
        .filter(|l| l["_aws"].is_null() && !l["span"]["requestId"].is_null())
        .collect();
    assert!(!in_invocation.is_empty(), "{lines:#?}");
    for line in in_invocation {
        assert!(
            line["span"]["xrayTraceId"]
                .as_str()
                .is_some_and(|t| t.starts_with("Root=")),
            "{line}"
        );
    }
}
