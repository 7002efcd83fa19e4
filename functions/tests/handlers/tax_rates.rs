//! `PUT /tax-rates/{country}` and `GET /tax-rates/{country}` through their handlers: staff set a
//! country's rate and its regions' own; a broken rate is a 400 with nothing written.

use local_engine::testing::{TestApp, Who, dispatch, from_event_file, get, parts, send_json};
use serde_json::{Value, json};

async fn put(app: &TestApp, country: &str, body: &Value) -> (u16, Value) {
    let req = send_json(
        Who::Staff,
        "PUT /tax-rates/{country}",
        &format!("/tax-rates/{country}"),
        &[],
        &body.to_string(),
    );
    let (status, _, body) = parts(dispatch(&app.store, req, functions::put_tax_rate::handle).await);
    (status, body)
}

async fn read(app: &TestApp, country: &str) -> (u16, Value) {
    let req = get(
        Who::Staff,
        "GET /tax-rates/{country}",
        &format!("/tax-rates/{country}"),
        "",
    );
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_tax_rate::handle).await);
    (status, body)
}

#[tokio::test]
async fn staff_set_a_countrys_rate_and_its_regions_own() {
    let app = TestApp::seeded().await.expect("app");
    assert_eq!(read(&app, "CA").await.0, 404, "no rate: no tax");
    let canada = json!({"rate": "0.05", "regions": {"QC": "0.14975", "CA-ON": "0.13"}, "shippingTaxed": true});
    let (status, body) = put(&app, "ca", &canada).await;
    assert_eq!(status, 201, "{body}");
    let expected = json!({
        "country": "CA", "rate": "0.05", "regions": {"CA-ON": "0.13", "CA-QC": "0.14975"}, "shippingTaxed": true,
    });
    assert_eq!(body, expected);
    assert_eq!(read(&app, "CA").await, (200, expected));
    assert_eq!(
        put(&app, "CA", &json!({"rate": "0.050"})).await.0,
        200,
        "replaced"
    );
    assert_eq!(
        read(&app, "CA").await.1,
        json!({"country": "CA", "rate": "0.05", "shippingTaxed": false})
    );
}

#[tokio::test]
async fn a_broken_rate_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    for (country, body) in [
        ("XX", json!({"rate": "0.05"})),
        ("FR", json!({"rate": "20"})),
        ("FR", json!({"rate": "1.2"})),
        ("FR", json!({"rate": "0.05", "regions": {"US-CA": "0.07"}})),
        ("FR", json!({"rate": 0.05})),
    ] {
        let (status, answer) = put(&app, country, &body).await;
        assert_eq!(status, 400, "{country} {body}: {answer}");
    }
    assert_eq!(read(&app, "FR").await.0, 404);
}

#[tokio::test]
async fn the_sample_events_are_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/put-tax-rate.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::put_tax_rate::handle).await);
    assert_eq!((status, &body["rate"]), (201, &json!("0.2")), "{body}");
    let req = from_event_file("../events/get-tax-rate.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::get_tax_rate::handle).await);
    assert_eq!(
        (status, &body["regions"]["US-NY"]),
        (200, &json!("0.08875")),
        "{body}"
    );
}
