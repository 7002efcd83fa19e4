//! `PUT /shipping-options/{optionId}` and `GET /shipping-options` through their handlers: staff
//! create and replace ways to ship; a storefront lists those that serve an address, signed in
//! or not; what breaks a rule is a 400 with nothing written.

use local_engine::testing::{TestApp, Who, dispatch, from_event_file, get, parts, send_json};
use serde_json::{Value, json};

async fn put(app: &TestApp, id: &str, body: &Value) -> (u16, Value) {
    let req = send_json(
        Who::Staff,
        "PUT /shipping-options/{optionId}",
        &format!("/shipping-options/{id}"),
        &[],
        &body.to_string(),
    );
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::put_shipping_option::handle).await);
    (status, body)
}

/// The IDs of the options that serve `query`'s address, signed in (`Who::Customer`) and not.
async fn serving(app: &TestApp, query: &str) -> Vec<String> {
    let mut answers = Vec::new();
    for (who, route, path) in [
        (
            Who::Customer("c1"),
            "GET /shipping-options",
            "/shipping-options",
        ),
        (
            Who::Nobody,
            "GET /storefront/shipping-options",
            "/storefront/shipping-options",
        ),
    ] {
        let req = get(who, route, path, query);
        let (status, _, body) =
            parts(dispatch(&app.store, req, functions::list_shipping_options::handle).await);
        assert_eq!(status, 200, "{query}: {body}");
        let ids: Vec<String> = body["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|o| o["optionId"].as_str().unwrap_or_default().to_owned())
            .collect();
        answers.push(ids);
    }
    assert_eq!(answers[0], answers[1], "the storefront lists the same");
    answers.remove(0)
}

#[tokio::test]
async fn a_storefront_lists_the_options_that_serve_an_address() {
    let app = TestApp::seeded().await.expect("app");
    // The sample data: standard (US, DE), express (US-CA, US-NY).
    assert_eq!(
        serving(&app, "country=US&region=US-CA").await,
        ["express", "standard"]
    );
    assert_eq!(
        serving(&app, "country=us&region=ny").await,
        ["express", "standard"]
    );
    assert_eq!(serving(&app, "country=US&region=US-TX").await, ["standard"]);
    assert_eq!(
        serving(&app, "country=US").await,
        ["standard"],
        "express needs its region"
    );
    assert_eq!(serving(&app, "country=DE").await, ["standard"]);
    assert!(serving(&app, "country=FR").await.is_empty());
    assert_eq!(serving(&app, "").await, ["express", "standard"]);
    for bad in ["country=XX", "country=US&region=ZZ", "region=US-CA"] {
        let req = get(
            Who::Customer("c1"),
            "GET /shipping-options",
            "/shipping-options",
            bad,
        );
        let (status, _, body) =
            parts(dispatch(&app.store, req, functions::list_shipping_options::handle).await);
        assert_eq!(
            (status, &body["type"]),
            (400, &json!("/problems/invalid-request")),
            "{bad}"
        );
    }
}

#[tokio::test]
async fn staff_create_and_replace_an_option_and_a_broken_one_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let pickup = json!({"name": "Pickup", "countries": ["FR"], "rate": {"flat": "0"}});
    let (status, body) = put(&app, "pickup", &pickup).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["rate"], json!({"flat": "0.00"}));
    assert_eq!(serving(&app, "country=FR").await, ["pickup"]);
    let moved = json!({"name": "Pickup", "countries": ["BE"], "rate": {"flat": "2.50"}, "freeAbove": "30.00"});
    assert_eq!(put(&app, "pickup", &moved).await.0, 200);
    assert!(serving(&app, "country=FR").await.is_empty());
    assert_eq!(serving(&app, "country=BE").await, ["pickup"]);
    for bad in [
        json!({"name": "X", "countries": [], "rate": {"flat": "1.00"}}),
        json!({"name": "X", "regions": {"FR": ["CA"]}, "rate": {"flat": "1.00"}}),
        json!({"name": "X", "countries": ["FR"], "rate": {"flat": "1.00", "byWeight": [{"upToGrams": 1, "amount": "1.00"}]}}),
        json!({"name": "X", "countries": ["FR"], "rate": {"byWeight": [{"upToGrams": 9, "amount": "1.00"}, {"upToGrams": 3, "amount": "2.00"}]}}),
    ] {
        let (status, answer) = put(&app, "broken", &bad).await;
        assert_eq!(status, 400, "{bad}: {answer}");
    }
    assert_eq!(
        serving(&app, "").await,
        ["express", "pickup", "standard"],
        "nothing broken was written"
    );
}

#[tokio::test]
async fn a_store_holds_at_most_fifty_options() {
    let app = TestApp::empty().await.expect("app");
    let option = json!({"name": "Zone", "countries": ["IT"], "rate": {"flat": "3.00"}});
    for i in 0..shared::domain::shipping::MAX_OPTIONS {
        assert_eq!(put(&app, &format!("o{i}"), &option).await.0, 201);
    }
    let (status, body) = put(&app, "one-more", &option).await;
    assert_eq!(
        (status, &body["type"]),
        (409, &json!("/problems/cap-reached"))
    );
    assert_eq!(
        put(&app, "o0", &option).await.0,
        200,
        "a replacement is not one more"
    );
}

#[tokio::test]
async fn the_sample_events_are_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/put-shipping-option.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::put_shipping_option::handle).await);
    assert_eq!(
        (status, &body["optionId"]),
        (200, &json!("standard")),
        "{body}"
    );
    for file in ["list-shipping-options", "list-shipping-options-storefront"] {
        let req = from_event_file(&format!("../events/{file}.json")).expect("event");
        let (status, _, body) =
            parts(dispatch(&app.store, req, functions::list_shipping_options::handle).await);
        assert_eq!(status, 200, "{file}: {body}");
        assert_eq!(body["items"][0]["optionId"], "express", "{file}");
    }
}
