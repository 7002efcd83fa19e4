//! The error paths' sample events (`events/cases/`): each, invoked as API Gateway delivers it
//! on the sample data, gets the status its name says and a problem document, and leaves the
//! table as it was, its answer held to `api/openapi.yaml` as every function test's is.
//! Each request they send is held to its binary's declaration (`local_engine::declared`).

use local_engine::testing::{TestApp, all_items, cases, from_event_file};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_case_answers_its_status_with_a_problem_and_writes_nothing() {
    let cases = cases().expect("events/cases/");
    assert!(cases.len() >= 10, "only {} cases", cases.len());
    let mut wrong = Vec::new();
    for case in &cases {
        let app = TestApp::seeded().await.expect("app");
        let before = all_items(&app).await;
        let req = from_event_file(case.path.to_str().expect("path")).expect("event");
        let route = req
            .extensions()
            .get::<shared::http::routes::RouteKey>()
            .map(|key| key.0.clone())
            .expect("the event's route");
        let response = local_dev::invoke(
            &case.binary,
            &local_dev::Services::for_test(&app.store),
            req,
        )
        .await
        .unwrap_or_else(|| panic!("{}: no such binary", case.binary));
        let body: Value = match response.body() {
            lambda_http::Body::Text(text) => serde_json::from_str(text).expect("json"),
            other => panic!("{}: {other:?}", case.what),
        };
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap_or_default();
        for broken in local_engine::contract::violations(
            &route,
            response.status().as_u16(),
            content_type,
            &body,
        ) {
            wrong.push(format!("{} {}: {broken}", case.binary, case.what));
        }
        if response.status().as_u16() != case.status {
            wrong.push(format!(
                "{} {}: {} {body}",
                case.binary,
                case.what,
                response.status()
            ));
            continue;
        }
        assert_eq!(
            response.headers()["content-type"],
            "application/problem+json",
            "{} {}",
            case.binary,
            case.what
        );
        assert!(
            body["type"]
                .as_str()
                .is_some_and(|t| t.starts_with("/problems/")),
            "{} {}: {body}",
            case.binary,
            case.what
        );
        assert_eq!(
            all_items(&app).await,
            before,
            "{} {}: the table changed",
            case.binary,
            case.what
        );
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
