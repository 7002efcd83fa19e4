//! A code's uses are counted in the checkout's own transaction: a code limited to 3 uses and
//! ten checkouts racing for it make exactly three discounted holds, the others a 409 with
//! nothing held; a hold that ends unpaid gives its use back, and a customer limited to one use
//! gets one.

use std::time::Duration;

use local_engine::declared::as_function;
use local_engine::testing::payments::{briefly_held, checkout_with_body, hold_line};
use local_engine::testing::{TestApp, Who, dispatch, parts};
use serde_json::{Value, json};
use shared::Store;
use shared::domain::customer::Customer;
use shared::domain::ids::CustomerId;

use crate::flows::checkout_with;

/// A customer `id` with a mug (19.95) in their cart.
async fn shopper(app: &TestApp, store: &Store, id: &str) {
    let customer = Customer::new(
        CustomerId::parse(id).expect("id"),
        "Racing Shopper",
        &format!("{id}@example.com"),
    )
    .expect("customer");
    app.direct_store()
        .put_customer(&customer)
        .await
        .expect("profile");
    let req = hold_line(id, "sku-1", 1);
    let (status, _, body) = parts(dispatch(store, req, functions::edit_cart::handle).await);
    assert_eq!(status, 200, "{body}");
}

async fn promotion(app: &TestApp, body: Value) {
    crate::flows::put_promotion(&app.store, "three-uses", &body.to_string()).await;
}

async fn check_out(store: &Store, customer: &str, codes: &str) -> (u16, Value) {
    let req = checkout_with_body(customer, None, &format!(r#"{{"codes": [{codes}]}}"#));
    let (status, _, body) =
        parts(dispatch(&checkout_with(store), req, functions::checkout::handle).await);
    (status, body)
}

#[tokio::test]
async fn a_code_limited_to_three_uses_makes_three_discounted_holds_and_an_unpaid_one_gives_its_use_back()
 {
    let app = TestApp::seeded().await.expect("app");
    let store = briefly_held(&app.store);
    promotion(
        &app,
        json!({"code": "THREE", "type": "fixed", "value": "5.00", "usageLimit": 3}),
    )
    .await;
    let shoppers: Vec<String> = (0..10).map(|i| format!("racer-{i}")).collect();
    for id in &shoppers {
        shopper(&app, &store, id).await;
    }
    let stock = app.stock("sku-1").await;
    let races = shoppers
        .iter()
        .map(|id| check_out(&store, id, r#""THREE""#));
    let outcomes = futures_util::future::join_all(races).await;
    let held: Vec<&Value> = outcomes
        .iter()
        .filter(|(s, _)| *s == 201)
        .map(|(_, b)| b)
        .collect();
    let used_up = outcomes
        .iter()
        .filter(|(s, b)| *s == 409 && b["type"] == "/problems/code-used-up")
        .count();
    assert_eq!((held.len(), used_up), (3, 7), "{outcomes:?}");
    for hold in &held {
        // 19.95 less 5.00.
        assert_eq!(
            (&hold["total"], &hold["payment"]["amount"]),
            (&json!("14.95"), &json!(1495))
        );
    }
    assert_eq!(
        app.stock("sku-1").await,
        stock - 3,
        "only the three holds took stock"
    );
    // A quote reads the counts too: the code is used up for every cart now.
    let quote = local_engine::testing::get(
        Who::Customer("c2"),
        "GET /customers/{customerId}/cart/quote",
        "/customers/c2/cart/quote",
        "code=THREE",
    );
    let (status, _, body) = parts(dispatch(&app.store, quote, functions::quote_cart::handle).await);
    assert_eq!(
        (status, &body["type"]),
        (409, &json!("/problems/code-used-up")),
        "{body}"
    );
    // The holds end unpaid: each gives its use back, and the code is good again.
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let expiry = functions::expire_holds::Expiry {
        store: store.clone(),
        provider: local_engine::testing::provider(),
    };
    let run = as_function(
        "expire-holds",
        functions::expire_holds::handle(&expiry, Duration::from_secs(10)),
    )
    .await
    .expect("expiry");
    assert_eq!(
        (run.holds.expired, run.holds.failures.len()),
        (3, 0),
        "{:?}",
        run.holds
    );
    let late = shoppers
        .iter()
        .find(|id| !held.iter().any(|h| h["customerId"] == id.as_str()))
        .expect("a shopper without a hold");
    let (status, body) = check_out(&store, late, r#""three""#).await;
    assert_eq!((status, &body["total"]), (201, &json!("14.95")), "{body}");
}

#[tokio::test]
async fn a_customer_limited_to_one_use_gets_one_and_others_still_may() {
    let app = TestApp::seeded().await.expect("app");
    promotion(
        &app,
        json!({"code": "ONCE", "type": "percentage", "value": "10", "perCustomerLimit": 1}),
    )
    .await;
    for id in ["once-a", "once-b"] {
        shopper(&app, &app.store, id).await;
    }
    let (status, body) = check_out(&app.store, "once-a", r#""ONCE""#).await;
    assert_eq!((status, &body["total"]), (201, &json!("17.95")), "{body}");
    shopper(&app, &app.store, "once-a").await;
    let (status, body) = check_out(&app.store, "once-a", r#""ONCE""#).await;
    assert_eq!(
        (status, &body["type"]),
        (409, &json!("/problems/code-used-up")),
        "{body}"
    );
    let (status, _) = check_out(&app.store, "once-b", r#""ONCE""#).await;
    assert_eq!(status, 201, "another customer's first use");
}
