//! Checkout through API Gateway events, against its own engine: the cart becomes an order
//! holding its stock, in one transaction, exactly once.

use local_engine::testing::dispatch;
use local_engine::testing::payments::{checkout, hold_line};
use local_engine::testing::{TestApp, Who, from_event_file, get, header, parts};
use serde_json::{Value, json};
use shared::Store;

mod codes;
mod held;
mod lambda;
mod limits;
mod priced;
mod shards;
mod stale;
mod variants;

async fn cart_len(app: &TestApp, customer: &str) -> usize {
    let cart = app
        .direct_store()
        .get_cart(&shared::domain::ids::CustomerId::parse(customer).expect("id"))
        .await
        .expect("cart");
    cart.items.len()
}

async fn check_out(store: &Store, customer: &str, key: Option<&str>) -> (u16, Value) {
    let (status, _, body) = parts(
        dispatch(
            &crate::flows::checkout_with(store),
            checkout(customer, key),
            functions::checkout::handle,
        )
        .await,
    );
    (status, body)
}

#[tokio::test]
async fn the_sample_event_holds_the_carts_stock_in_one_order_and_empties_the_cart() {
    let app = TestApp::seeded().await.expect("app");
    let (sku1, sku3) = (app.stock("sku-1").await, app.stock("sku-3").await);
    let req = from_event_file("../events/checkout.json").expect("event");
    let response = dispatch(
        &crate::flows::checkout_with(&app.store),
        req,
        functions::checkout::handle,
    )
    .await;
    let location = header(&response, "location");
    let (status, _, body) = parts(response);
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["status"], "PENDING_PAYMENT");
    assert_eq!(body["customerId"], "c2");
    // sku-1 at 19.95 and two of sku-3 at 12.00, from the catalog.
    assert_eq!(body["total"], "43.95");
    // What to pay, and with what: a PaymentIntent the store asked the provider for, for the
    // amount it computed, naming the order and the customer.
    assert_eq!(
        (&body["payment"]["amount"], &body["payment"]["currency"]),
        (&Value::from(4395), &Value::from("usd"))
    );
    let intent = body["payment"]["paymentIntentId"].as_str().expect("intent");
    assert!(
        body["payment"]["clientSecret"]
            .as_str()
            .is_some_and(|s| s.starts_with(&format!("{intent}_secret_")))
    );
    let at_provider = local_engine::testing::at_provider(&format!("/v1/payment_intents/{intent}"));
    assert_eq!(
        (
            &at_provider["amount"],
            &at_provider["currency"],
            &at_provider["metadata"]["orderId"],
            &at_provider["metadata"]["customerId"],
            &at_provider["status"],
        ),
        (
            &Value::from(4395),
            &Value::from("usd"),
            &body["orderId"],
            &Value::from("c2"),
            &Value::from("requires_payment_method"),
        )
    );
    assert_eq!(body["paymentIntentId"], intent, "the order records it");
    assert!(
        body["holdUntil"]
            .as_str()
            .is_some_and(|t| t > body["placedAt"].as_str().unwrap_or(""))
    );
    let order = body["orderId"].as_str().expect("id");
    assert_eq!(location, Some(format!("/orders/{order}")));
    assert_eq!(app.stock("sku-1").await, sku1 - 1);
    assert_eq!(app.stock("sku-3").await, sku3 - 2);
    assert_eq!(cart_len(&app, "c2").await, 0);
    assert_eq!(app.status_of(order).await, "PENDING_PAYMENT");
    // The customer's listing shows the hold as checkout answered it, when it ends included.
    let listing = get(
        Who::Customer("c2"),
        "GET /customers/{customerId}/orders",
        "/customers/c2/orders",
        "",
    );
    let (_, _, listed) =
        parts(dispatch(&app.store, listing, functions::list_customer_orders::handle).await);
    assert_eq!(
        listed["items"][0],
        json!({
            "orderId": order,
            "customerId": "c2",
            "placedAt": body["placedAt"],
            "status": "PENDING_PAYMENT",
            "total": "43.95",
            "holdUntil": body["holdUntil"],
        })
    );
    // The same key again: the first answer, and nothing taken twice.
    let req = from_event_file("../events/checkout.json").expect("event");
    let (status, _, again) = parts(
        dispatch(
            &crate::flows::checkout_with(&app.store),
            req,
            functions::checkout::handle,
        )
        .await,
    );
    assert_eq!((status, &again), (201, &body));
    assert_eq!(app.stock("sku-1").await, sku1 - 1);
}

#[tokio::test]
async fn an_empty_cart_or_an_expired_line_is_never_checked_out() {
    let app = TestApp::seeded().await.expect("app");
    let (status, body) = check_out(&app.store, "c1", None).await;
    assert_eq!(
        (status, body["type"].as_str()),
        (409, Some("/problems/cart-empty"))
    );
    // A line whose TTL has passed but which DynamoDB has not yet deleted.
    let past = (local_engine::testing::payments::now() - 60).to_string();
    app.engine
        .client()
        .put_item()
        .table_name(local_engine::LOCAL_TABLE)
        .item(
            "PK",
            aws_sdk_dynamodb::types::AttributeValue::S("CUSTOMER#c1".into()),
        )
        .item(
            "SK",
            aws_sdk_dynamodb::types::AttributeValue::S("CART#sku-4".into()),
        )
        .item(
            "quantity",
            aws_sdk_dynamodb::types::AttributeValue::N("1".into()),
        )
        .item(
            "expiresAt",
            aws_sdk_dynamodb::types::AttributeValue::N(past),
        )
        .send()
        .await
        .expect("put");
    let before = app.stock("sku-4").await;
    let (status, _) = check_out(&app.store, "c1", None).await;
    assert_eq!(status, 409, "only an expired line: nothing to check out");
    parts(
        dispatch(
            &app.store,
            hold_line("c1", "sku-2", 3),
            functions::edit_cart::handle,
        )
        .await,
    );
    let (status, body) = check_out(&app.store, "c1", None).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["items"].as_array().map(Vec::len), Some(1), "{body}");
    assert_eq!(body["items"][0]["sku"], "sku-2");
    assert_eq!(app.stock("sku-4").await, before);
    // A signed-in caller with no profile is no customer yet.
    let (status, body) = check_out(&app.store, "nobody", None).await;
    assert_eq!(
        (status, body["type"].as_str()),
        (404, Some("/problems/not-found"))
    );
}

#[tokio::test]
async fn a_cart_overfilled_by_edits_at_once_is_a_409_not_a_transaction_too_big() {
    use aws_sdk_dynamodb::types::AttributeValue;
    let app = TestApp::seeded().await.expect("app");
    let before = app.stock("sku-1").await;
    parts(
        dispatch(
            &app.store,
            hold_line("c1", "sku-1", 1),
            functions::edit_cart::handle,
        )
        .await,
    );
    // A cart an older store let edits at once overfill (written here around the API, which now
    // refuses it): 33 live lines of products the catalog has, more than a checkout's
    // transaction can carry (30).
    let lines: Vec<String> = (0..32)
        .map(|n| format!(r#"{{"sku":"extra-{n:02}","price":"1.00"}}"#))
        .collect();
    local_engine::testing::stock_catalog(
        &app.engine,
        &format!(r#"{{"items":[{}]}}"#, lines.join(",")),
    )
    .await;
    let future = (local_engine::testing::payments::now() + 3600).to_string();
    for n in 0..32 {
        app.engine
            .client()
            .put_item()
            .table_name(local_engine::LOCAL_TABLE)
            .item("PK", AttributeValue::S("CUSTOMER#c1".into()))
            .item("SK", AttributeValue::S(format!("CART#extra-{n:02}")))
            .item("quantity", AttributeValue::N("1".into()))
            .item("expiresAt", AttributeValue::N(future.clone()))
            .send()
            .await
            .expect("put");
    }
    assert_eq!(cart_len(&app, "c1").await, 33);
    let (status, body) = check_out(&app.store, "c1", None).await;
    assert_eq!(
        (status, body["type"].as_str()),
        (409, Some("/problems/cart-full")),
        "{body}"
    );
    assert_eq!(app.stock("sku-1").await, before, "nothing held");
    assert_eq!(cart_len(&app, "c1").await, 33, "the cart as it was");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_checkouts_of_one_cart_at_once_make_one_order() {
    let app = TestApp::seeded().await.expect("app");
    let before = app.stock("sku-1").await;
    let (a, b) = tokio::join!(
        check_out(&app.store, "c2", None),
        check_out(&app.store, "c2", None)
    );
    let mut statuses = [a.0, b.0];
    statuses.sort_unstable();
    assert_eq!(statuses, [201, 409], "{a:?} {b:?}");
    assert_eq!(app.stock("sku-1").await, before - 1);
    // With one key, both get the one order.
    parts(
        dispatch(
            &app.store,
            hold_line("c2", "sku-1", 1),
            functions::edit_cart::handle,
        )
        .await,
    );
    let (a, b) = tokio::join!(
        check_out(&app.store, "c2", Some("k-race")),
        check_out(&app.store, "c2", Some("k-race"))
    );
    assert_eq!((a.0, b.0), (201, 201), "{a:?} {b:?}");
    assert_eq!(a.1["orderId"], b.1["orderId"]);
    assert_eq!(app.stock("sku-1").await, before - 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_checkout_racing_an_edit_of_the_cart_has_one_outcome_and_exact_stock() {
    for round in 0..5 {
        let app = TestApp::seeded().await.expect("app");
        let before = app.stock("sku-3").await;
        let store = app.store.clone();
        let edit = async {
            parts(
                dispatch(
                    &store,
                    hold_line("c2", "sku-3", 5),
                    functions::edit_cart::handle,
                )
                .await,
            )
            .0
        };
        let ((status, body), edited) = tokio::join!(check_out(&app.store, "c2", None), edit);
        assert_eq!(edited, 200);
        assert_eq!(status, 201, "round {round}: {body}");
        let held = body["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|line| line["sku"] == "sku-3")
            .and_then(|line| line["quantity"].as_u64())
            .expect("sku-3 checked out");
        let left_in_cart = cart_len(&app, "c2").await;
        // Either the edit came first (5 checked out, cart empty) or after (2 checked out, the
        // edit a new cart of its own).
        assert!(
            (held == 5 && left_in_cart == 0) || (held == 2 && left_in_cart == 1),
            "round {round}: {held} held, {left_in_cart} left"
        );
        assert_eq!(app.stock("sku-3").await, before - held);
    }
}

#[tokio::test]
async fn holds_count_toward_the_cap_on_open_orders() {
    let app = TestApp::seeded().await.expect("app");
    let store = app.store.clone().with_max_open_orders(Some(1));
    let (status, body) = check_out(&store, "c2", None).await;
    assert_eq!(status, 201, "{body}");
    parts(
        dispatch(
            &store,
            hold_line("c2", "sku-1", 1),
            functions::edit_cart::handle,
        )
        .await,
    );
    let (status, body) = check_out(&store, "c2", None).await;
    assert_eq!(
        (status, body["type"].as_str()),
        (409, Some("/problems/too-many-open-orders")),
        "{body}"
    );
}

/// The same `Idempotency-Key` for a cart of other lines is another request: a 422, and the new
/// cart is left as it is for a checkout under a new key.
#[tokio::test]
async fn a_key_used_again_for_another_cart_is_a_422_and_holds_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let (status, first) = check_out(&app.store, "c2", Some("k-cart")).await;
    assert_eq!(status, 201, "{first}");
    let (status, _, body) = parts(
        dispatch(
            &app.store,
            hold_line("c2", "sku-2", 1),
            functions::edit_cart::handle,
        )
        .await,
    );
    assert_eq!(status, 200, "{body}");
    let before = app.stock("sku-2").await;
    let (status, body) = check_out(&app.store, "c2", Some("k-cart")).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["type"], "/problems/idempotency-key-reused");
    assert_eq!(cart_len(&app, "c2").await, 1, "the new cart untouched");
    assert_eq!(app.stock("sku-2").await, before);
    // Under a new key, the new cart is checked out.
    let (status, second) = check_out(&app.store, "c2", Some("k-cart-2")).await;
    assert_eq!(status, 201, "{second}");
    assert_ne!(second["orderId"], first["orderId"]);
}
