//! `store-query` as an operator runs it: exit status 2 and nothing sent for what it refuses;
//! items, pages and capacity for what it reads.

use std::net::TcpListener;
use std::process::{Command, Output};

use local_engine::LOCAL_TABLE;
use local_engine::testing::TestApp;

fn store_query(endpoint: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_store-query"))
        .args(args)
        .env("TABLE_NAME", LOCAL_TABLE)
        .env("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
        .env("AWS_ACCESS_KEY_ID", "local")
        .env("AWS_SECRET_ACCESS_KEY", "local")
        .env("AWS_REGION", "us-east-1")
        .env_remove("AWS_PROFILE")
        .output()
        .expect("store-query runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_refused_statement_exits_2_without_a_request() {
    // An endpoint that records whether anything connected to it.
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let endpoint = format!("http://{}", listener.local_addr().expect("addr"));
    for (statement, says) in [
        (r#"SELECT * FROM "AppTable""#, "full scan"),
        (
            r#"UPDATE "AppTable" SET status = 'SHIPPED' WHERE PK = 'CUSTOMER#c1' AND SK = 'PROFILE'"#,
            "only SELECT",
        ),
        (
            r#"SELECT * FROM "AppTable" WHERE status = 'PLACED'"#,
            "does not name PK",
        ),
        (
            r#"SELECT * FROM "AppTable"."GSI9" WHERE GSI9PK = 'x'"#,
            "no index",
        ),
    ] {
        let output = store_query(&endpoint, &["--json", statement]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{statement}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(says),
            "{statement}: {}",
            stderr(&output)
        );
        assert!(output.stdout.is_empty());
    }
    let output = store_query(
        &endpoint,
        &["--limit", "0", r#"SELECT * FROM "AppTable" WHERE PK = 'a'"#],
    );
    assert_eq!(
        output.status.code(),
        Some(2),
        "a bad flag: {}",
        stderr(&output)
    );
    assert!(listener.accept().is_err(), "nothing was sent");
}

#[tokio::test]
async fn a_select_prints_its_items_pages_and_capacity() {
    let app = TestApp::seeded().await.expect("engine");
    let endpoint = app.engine.endpoint().to_string();
    let statement =
        r#"SELECT * FROM "AppTable" WHERE PK = 'CUSTOMER#c1' AND begins_with(SK, 'ORDER#')"#;
    let output = tokio::task::spawn_blocking({
        let endpoint = endpoint.clone();
        move || store_query(&endpoint, &["--json", statement])
    })
    .await
    .expect("ran");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let lines: Vec<serde_json::Value> = String::from_utf8(output.stdout.clone())
        .expect("utf-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 30, "c1's orders in the sample data");
    assert!(lines.iter().all(|item| item["PK"] == "CUSTOMER#c1"));
    // Money as stored, not through a float.
    assert!(lines.iter().all(|item| item["total"].is_number()));
    let summary = stderr(&output);
    assert!(
        summary.contains("30 items, 1 page (ExecuteStatement), read units"),
        "{summary}"
    );
    assert!(summary.contains("(table "), "{summary}");

    // --limit stops early and says so; a scan allowed says it was one.
    let output = tokio::task::spawn_blocking({
        let endpoint = endpoint.clone();
        move || {
            store_query(
                &endpoint,
                &[
                    "--json",
                    "--limit",
                    "3",
                    "--allow-scan",
                    r#"SELECT * FROM "AppTable""#,
                ],
            )
        }
    })
    .await
    .expect("ran");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 3);
    let summary = stderr(&output);
    assert!(
        summary.contains("stopped at --limit 3") && summary.contains("full scan of the table"),
        "{summary}"
    );

    // A statement DynamoDB refuses: its own words, exit 1.
    let output = tokio::task::spawn_blocking(move || {
        store_query(
            &endpoint,
            &[
                "--json",
                r#"SELECT orderId FROM "AppTable"."GSI2" WHERE GSI2PK = 'PRODUCT#sku-1'"#,
            ],
        )
    })
    .await
    .expect("ran");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("ValidationException"),
        "{}",
        stderr(&output)
    );
}
