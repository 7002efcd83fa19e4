//! `PUT /promotions/{promotionId}` through its handler: staff create and replace promotions; a
//! code names one promotion, however many writes race for it; what breaks a rule is a 400 with
//! nothing written.

use local_engine::testing::{TestApp, Who, dispatch, from_event_file, parts};
use serde_json::{Value, json};

async fn put(app: &TestApp, id: &str, body: &Value) -> (u16, Value) {
    let req = local_engine::testing::catalog::put_promotion(id, &body.to_string());
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::put_promotion::handle).await);
    (status, body)
}

/// What a quote of c2's sample cart (sku-1 × 1, sku-3 × 2: 43.95) takes off with `code`.
async fn discount_with(app: &TestApp, code: &str) -> (u16, Value) {
    let req = local_engine::testing::get(
        Who::Customer("c2"),
        "GET /customers/{customerId}/cart/quote",
        "/customers/c2/cart/quote",
        &format!("code={code}"),
    );
    let (status, _, body) = parts(dispatch(&app.store, req, functions::quote_cart::handle).await);
    (status, body["discount"].clone())
}

#[tokio::test]
async fn staff_create_and_replace_a_promotion_and_its_code_moves_with_it() {
    let app = TestApp::seeded().await.expect("app");
    let winter = json!({"code": "winter5", "type": "fixed", "value": "5", "combinable": true});
    let (status, body) = put(&app, "winter", &winter).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(
        body,
        json!({
            "promotionId": "winter", "code": "WINTER5", "type": "fixed", "value": "5.00",
            "conditions": {"skus": [], "categories": []},
            "startsAt": null, "endsAt": null, "usageLimit": null, "perCustomerLimit": null,
            "combinable": true,
        })
    );
    assert_eq!(discount_with(&app, "WINTER5").await, (200, json!("5.00")));
    // The code changes: the old one names nothing, and another promotion may take it.
    let renamed = json!({"code": "WINTER6", "type": "fixed", "value": "6"});
    assert_eq!(put(&app, "winter", &renamed).await.0, 200);
    assert_eq!(discount_with(&app, "winter6").await, (200, json!("6.00")));
    assert_eq!(discount_with(&app, "WINTER5").await.0, 422);
    let other = json!({"code": "WINTER5", "type": "fixed", "value": "1"});
    assert_eq!(put(&app, "other", &other).await.0, 201);
    // A code another promotion holds is a 409, and nothing changes.
    let (status, body) = put(
        &app,
        "third",
        &json!({"code": "winter6", "type": "free-shipping"}),
    )
    .await;
    assert_eq!(
        (status, &body["type"]),
        (409, &json!("/problems/code-taken")),
        "{body}"
    );
    assert_eq!(discount_with(&app, "WINTER6").await, (200, json!("6.00")));
    // Automatic: the code given up, the promotion applies to every cart.
    let automatic = json!({"code": null, "type": "fixed", "value": "2"});
    assert_eq!(put(&app, "winter", &automatic).await.0, 200);
    assert_eq!(
        put(
            &app,
            "fourth",
            &json!({"code": "WINTER6", "type": "free-shipping"})
        )
        .await
        .0,
        201
    );
}

#[tokio::test]
async fn ten_promotions_racing_for_one_code_leave_it_to_exactly_one() {
    let app = TestApp::seeded().await.expect("app");
    let body = json!({"code": "RACE", "type": "percentage", "value": "5"});
    let writes = (0..10).map(|i| {
        let (app, body) = (&app, &body);
        async move { put(app, &format!("racer-{i}"), body).await }
    });
    let outcomes = futures_util::future::join_all(writes).await;
    let won: Vec<_> = outcomes.iter().filter(|(s, _)| *s == 201).collect();
    let taken = outcomes
        .iter()
        .filter(|(s, b)| *s == 409 && b["type"] == "/problems/code-taken")
        .count();
    assert_eq!((won.len(), taken), (1, 9), "{outcomes:?}");
}

#[tokio::test]
async fn a_broken_promotion_writes_nothing() {
    let app = TestApp::seeded().await.expect("app");
    for bad in [
        json!({"type": "percentage", "value": "120"}),
        json!({"type": "fixed"}),
        json!({"type": "buy-x-get-y", "buy": {"skus": ["sku-1"], "quantity": 1}}),
        json!({"type": "free-shipping", "code": "no spaces"}),
        json!({"type": "percentage", "value": "10", "usageLimit": -1}),
    ] {
        let (status, body) = put(&app, "broken", &bad).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    let (status, body) = put(&app, "bad#id", &json!({"type": "free-shipping"})).await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test]
async fn the_sample_event_is_answered() {
    let app = TestApp::seeded().await.expect("app");
    let req = from_event_file("../events/put-promotion.json").expect("event");
    let (status, _, body) =
        parts(dispatch(&app.store, req, functions::put_promotion::handle).await);
    assert_eq!(
        (status, &body["code"], &body["conditions"]["categories"]),
        (201, &json!("SPRING15"), &json!(["kitchen"])),
        "{body}"
    );
}
