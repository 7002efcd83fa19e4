//! PUT /customers/{customerId} through API Gateway events, against its own engine.

use aws_sdk_dynamodb::types::AttributeValue;
use local_engine::LOCAL_TABLE;
use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, all_items, from_event_file, header, parts, send_json};
use serde_json::{Value, json};

const ROUTE: &str = "PUT /customers/{customerId}";

async fn put(app: &TestApp, id: &str, body: &str) -> (u16, Option<String>, String, Value) {
    let req = send_json(
        Who::Customer(id),
        ROUTE,
        &format!("/customers/{id}"),
        &[],
        body,
    );
    let response = dispatch(&app.store, req, functions::put_customer::handle).await;
    let location = header(&response, "location");
    let (status, ct, body) = parts(response);
    (status, location, ct, body)
}

#[tokio::test]
async fn a_new_customer_is_created_then_replaced() {
    let app = TestApp::empty().await.expect("app");
    app.requests.reset();
    let (status, location, ct, body) = put(
        &app,
        "c7",
        r#"{"name":"Gita Rao","email":"gita@example.com"}"#,
    )
    .await;
    assert_eq!((status, ct.as_str()), (201, "application/json"));
    assert_eq!(location.as_deref(), Some("/customers/c7"));
    assert_eq!(
        body,
        json!({"customerId": "c7", "name": "Gita Rao", "email": "gita@example.com"})
    );
    // The profile, then the mark on the cart's version that the customer is one.
    assert_eq!(
        app.requests.by_operation(),
        [("UpdateItem".to_owned(), 2)].into()
    );
    let version = shared::dynamo::entities::cart_version::key(
        &shared::domain::ids::CustomerId::parse("c7").expect("id"),
    );
    let marked = (app.engine.client().get_item())
        .table_name(local_engine::LOCAL_TABLE)
        .set_key(Some(version))
        .consistent_read(true)
        .send()
        .await
        .expect("read");
    let marked = marked.item.expect("the cart's version");
    assert_eq!(
        marked.get("profiled").and_then(|v| v.as_bool().ok()),
        Some(&true),
        "{marked:?}"
    );
    assert!(!marked.contains_key("version"), "no line was added");

    let (status, location, _, body) = put(
        &app,
        "c7",
        r#"{"name":"Gita Rao-Iyer","email":"gita@example.org"}"#,
    )
    .await;
    assert_eq!((status, location), (200, None));
    assert_eq!(body["name"], "Gita Rao-Iyer");

    // Read back the way the source design does: the item in its shape.
    let item = app
        .engine
        .client()
        .get_item()
        .table_name(LOCAL_TABLE)
        .key("PK", AttributeValue::S("CUSTOMER#c7".into()))
        .key("SK", AttributeValue::S("PROFILE".into()))
        .send()
        .await
        .expect("get")
        .item
        .expect("profile");
    assert_eq!(item["name"], AttributeValue::S("Gita Rao-Iyer".into()));
    assert_eq!(item["email"], AttributeValue::S("gita@example.org".into()));
}

#[tokio::test]
async fn replacing_keeps_what_else_the_profile_holds() {
    let app = TestApp::seeded().await.expect("app");
    app.engine
        .client()
        .update_item()
        .table_name(LOCAL_TABLE)
        .key("PK", AttributeValue::S("CUSTOMER#c1".into()))
        .key("SK", AttributeValue::S("PROFILE".into()))
        .update_expression("SET orderCount = :n")
        .expression_attribute_values(":n", AttributeValue::N("3".into()))
        .send()
        .await
        .expect("update");
    let (status, _, _, _) = put(&app, "c1", r#"{"name":"Ana T.","email":"ana@example.com"}"#).await;
    assert_eq!(status, 200);
    let item = all_items(&app)
        .await
        .into_iter()
        .find(|i| {
            i["PK"] == AttributeValue::S("CUSTOMER#c1".into())
                && i["SK"] == AttributeValue::S("PROFILE".into())
        })
        .expect("profile");
    assert_eq!(item["orderCount"], AttributeValue::N("3".into()));
    assert_eq!(item["name"], AttributeValue::S("Ana T.".into()));
}

#[tokio::test]
async fn bad_profiles_are_400_and_write_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let before = all_items(&app).await;
    let long_name = format!(
        r#"{{"name":"{}","email":"a@example.com"}}"#,
        "n".repeat(201)
    );
    for (id, body) in [
        ("c1", r#"{"name":"","email":"ana@example.com"}"#),
        ("c1", long_name.as_str()),
        // A terminal escape, and a right-to-left override that makes a name read as another.
        (
            "c1",
            r#"{"name":"Ana\u001b]0;x\u0007","email":"ana@example.com"}"#,
        ),
        (
            "c1",
            r#"{"name":"Ana\u202eserroT","email":"ana@example.com"}"#,
        ),
        ("c1", r#"{"name":"Ana","email":"not-an-email"}"#),
        ("c1", r#"{"name":"Ana","email":"ana@localhost"}"#),
        ("c1", r#"{"name":"Ana"}"#),
        (
            "c1",
            r#"{"name":"Ana","email":"ana@example.com","admin":true}"#,
        ),
        ("c1", r#"{"name":1,"email":"ana@example.com"}"#),
        ("c1", "nope"),
        ("c#1", r#"{"name":"Ana","email":"ana@example.com"}"#),
    ] {
        let (status, _, ct, problem) = put(&app, id, body).await;
        assert_eq!(
            (status, ct.as_str()),
            (400, "application/problem+json"),
            "{body:.60}: {problem}"
        );
    }
    assert_eq!(all_items(&app).await, before);
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/put-customer.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::put_customer::handle).await);
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["customerId"], "c7");
}

#[tokio::test]
async fn a_profile_keeps_a_checked_shipping_address_until_a_replacement_drops_it() {
    let app = TestApp::empty().await.expect("app");
    let with_address = json!({
        "name": "Ana Torres", "email": "ana@example.com",
        "address": {"name": "Ana Torres", "line1": "1 Market St", "city": "San Francisco",
                    "postalCode": "94105", "country": "us", "region": "ca"},
    });
    let (status, _, _, body) = put(&app, "c1", &with_address.to_string()).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        body["address"],
        json!({"name": "Ana Torres", "line1": "1 Market St", "city": "San Francisco",
               "postalCode": "94105", "country": "US", "region": "US-CA"})
    );
    let read = local_engine::testing::get(
        Who::Customer("c1"),
        "GET /customers/{customerId}",
        "/customers/c1",
        "",
    );
    let (_, _, profile) = parts(dispatch(&app.store, read, functions::get_customer::handle).await);
    assert_eq!(profile["address"]["region"], "US-CA", "{profile}");
    for (country, region) in [("XX", "CA"), ("US", "BY"), ("DE", "CA")] {
        let mut bad = with_address.clone();
        bad["address"]["country"] = json!(country);
        bad["address"]["region"] = json!(region);
        let (status, _, _, body) = put(&app, "c1", &bad.to_string()).await;
        assert_eq!(status, 400, "{country} {region}: {body}");
    }
    let without = json!({"name": "Ana Torres", "email": "ana@example.com"});
    let (status, _, _, body) = put(&app, "c1", &without.to_string()).await;
    assert_eq!(
        (status, body.get("address")),
        (200, None),
        "a replacement without one drops it"
    );
}
