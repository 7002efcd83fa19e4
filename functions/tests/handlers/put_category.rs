//! `PUT /categories/{categoryId}` through its handler: staff build the tree; a parent that does
//! not exist, a cycle and a branch too deep are refused with nothing written; customers and
//! callers without a token change nothing. `GET /categories` answers the tree.

use local_engine::testing::{TestApp, Who, dispatch, from_event_file, get, parts, send_json};
use serde_json::{Value, json};

pub(crate) async fn put(app: &TestApp, who: Who<'_>, id: &str, body: Value) -> (u16, Value) {
    let req = send_json(
        who,
        "PUT /categories/{categoryId}",
        &format!("/categories/{id}"),
        &[],
        &body.to_string(),
    );
    let (status, _, body) = parts(dispatch(&app.store, req, functions::put_category::handle).await);
    (status, body)
}

async fn tree(app: &TestApp) -> Value {
    let req = get(Who::Customer("c1"), "GET /categories", "/categories", "");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::list_categories::handle).await);
    assert_eq!(status, 200, "{body}");
    body["categories"].clone()
}

#[tokio::test]
async fn staff_build_the_tree_and_a_customer_reads_it_in_one_request() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = put(
        &app,
        Who::Staff,
        "tea",
        json!({"name": "Tea", "parentId": "kitchen"}),
    )
    .await;
    assert_eq!(
        (status, &body),
        (
            201,
            &json!({"categoryId": "tea", "name": "Tea", "parentId": "kitchen"})
        )
    );
    let (status, _) = put(
        &app,
        Who::Admin,
        "tea",
        json!({"name": "Teas", "parentId": "home"}),
    )
    .await;
    assert_eq!(status, 200, "renamed and moved");
    app.requests.reset();
    let tree = tree(&app).await;
    assert_eq!(app.requests.total(), 1, "one Query");
    assert_eq!(tree[0]["categoryId"], "home");
    let under_home: Vec<&str> = tree[0]["children"]
        .as_array()
        .expect("children")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(under_home, ["Kitchen", "Teas", "Textiles"], "by name");
}

#[tokio::test]
async fn a_missing_parent_a_cycle_and_a_branch_too_deep_write_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let before = tree(&app).await;
    let cases = [
        ("tea", json!({"name": "Tea", "parentId": "nowhere"})),
        ("home", json!({"name": "Home", "parentId": "coffee"})),
        ("home", json!({"name": "Home", "parentId": "home"})),
        ("tea", json!({"name": " "})),
        ("tea", json!({"name": "Tea", "colour": "green"})),
        ("tea", json!({"name": "Tea", "parentId": null})),
    ];
    for (id, body) in cases {
        let (status, problem) = put(&app, Who::Staff, id, body.clone()).await;
        assert_eq!(status, 400, "{body}: {problem}");
    }
    // home > kitchen > coffee > beans is four levels; a fifth is refused.
    assert_eq!(
        put(
            &app,
            Who::Staff,
            "beans",
            json!({"name": "Beans", "parentId": "coffee"})
        )
        .await
        .0,
        201
    );
    let (status, problem) = put(
        &app,
        Who::Staff,
        "roast",
        json!({"name": "Roast", "parentId": "beans"}),
    )
    .await;
    assert_eq!(status, 400, "{problem}");
    let after = tree(&app).await;
    assert_eq!(
        after[0]["children"][0]["children"][0]["children"][0]["categoryId"],
        "beans"
    );
    assert_eq!(
        before.as_array().map(Vec::len),
        after.as_array().map(Vec::len)
    );
}

#[tokio::test]
async fn customers_and_callers_without_a_token_change_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let body = json!({"name": "Mine"});
    assert_eq!(
        put(&app, Who::Customer("c1"), "mine", body.clone()).await.0,
        403
    );
    assert_eq!(put(&app, Who::Nobody, "mine", body).await.0, 401);
    assert!(!tree(&app).await.to_string().contains("mine"));
}

#[tokio::test]
async fn the_sample_events_are_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/put-category.json").expect("event");
    let (status, _, body) = parts(dispatch(&app.store, req, functions::put_category::handle).await);
    assert_eq!(
        (status, &body["parentId"]),
        (201, &json!("kitchen")),
        "{body}"
    );
    let req = from_event_file("../events/list-categories.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::list_categories::handle).await);
    assert_eq!(
        (status, &body["categories"][0]["categoryId"]),
        (200, &json!("home"))
    );
}
