//! The cap on a customer's open orders (`MAX_OPEN_ORDERS`): decided inside each order's
//! transaction, so racing orders cannot pass it; shipping or cancelling an order frees its place.

use local_engine::testing::dispatch;
use local_engine::testing::{TestApp, Who, change_status, parts, send_json};
use serde_json::Value;
use shared::Store;

async fn place(store: &Store, customer: &str) -> (u16, Value) {
    let req = send_json(
        Who::Staff,
        "POST /customers/{customerId}/orders",
        &format!("/customers/{customer}/orders"),
        &[],
        r#"{"items":[{"sku":"sku-3","quantity":1}]}"#,
    );
    let (status, _, body) = parts(dispatch(store, req, functions::place_order::handle).await);
    (status, body)
}

async fn set_status(store: &Store, who: Who<'_>, order: &str, status: &str) -> u16 {
    let req = change_status(who, order, status);
    parts(dispatch(store, req, functions::update_order_status::handle).await).0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_orders_place_exactly_the_cap_and_shipping_or_cancelling_frees_a_place() {
    let app = TestApp::seeded().await.expect("app");
    let store = app.store.clone().with_max_open_orders(Some(3));
    let racing: Vec<_> = (0..20)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { place(&store, "c2").await })
        })
        .collect();
    let mut placed = Vec::new();
    for task in racing {
        let (status, body) = task.await.expect("task");
        match status {
            201 => placed.push(body["orderId"].as_str().expect("id").to_owned()),
            409 => {
                assert_eq!(body["type"], "/problems/too-many-open-orders", "{body}");
                assert!(
                    body["detail"]
                        .as_str()
                        .is_some_and(|d| d.contains("3 open orders")),
                    "{body}"
                );
            }
            other => panic!("{other}: {body}"),
        }
    }
    assert_eq!(placed.len(), 3, "exactly the cap, whatever the race");
    assert_eq!(place(&store, "c2").await.0, 409);
    // Another customer has places of their own.
    assert_eq!(place(&store, "c3").await.0, 201);

    // The owner cancels one: a place is free, and taken again.
    assert_eq!(
        set_status(&store, Who::Customer("c2"), &placed[0], "CANCELLED").await,
        200
    );
    assert_eq!(place(&store, "c2").await.0, 201);
    assert_eq!(place(&store, "c2").await.0, 409);
    // Staff ship one: the same; delivering it later frees nothing more.
    assert_eq!(
        set_status(&store, Who::Staff, &placed[1], "SHIPPED").await,
        200
    );
    assert_eq!(place(&store, "c2").await.0, 201);
    assert_eq!(
        set_status(&store, Who::Staff, &placed[1], "DELIVERED").await,
        200
    );
    assert_eq!(place(&store, "c2").await.0, 409);
}

#[tokio::test]
async fn an_order_placed_before_the_cap_changes_status_and_frees_no_place_it_never_took() {
    let app = TestApp::seeded().await.expect("app");
    let store = app.store.clone().with_max_open_orders(Some(1));
    // o100 was written before the cap counted anything: shipping it gives nothing back.
    assert_eq!(set_status(&store, Who::Staff, "o100", "SHIPPED").await, 200);
    assert_eq!(place(&store, "c1").await.0, 201);
    assert_eq!(place(&store, "c1").await.0, 409, "still one place, not two");
}

/// `POST /orders/{orderId}/fulfilments` of `quantity` sku-3 by staff: its status.
async fn ship_some(store: &Store, order: &str, quantity: u32) -> u16 {
    let req = local_engine::testing::ship(Who::Staff, order, &[("sku-3", quantity)], "");
    parts(dispatch(store, req, functions::ship_order::handle).await).0
}

/// `POST /orders/{orderId}/cancellations` of `quantity` sku-3 by staff: its status.
async fn cancel_some(store: &Store, order: &str, quantity: u32, key: &str) -> u16 {
    let req = send_json(
        Who::Staff,
        "POST /orders/{orderId}/cancellations",
        &format!("/orders/{order}/cancellations"),
        &[("idempotency-key", key)],
        &format!(r#"{{"lines":[{{"sku":"sku-3","quantity":{quantity}}}],"reason":"damaged"}}"#),
    );
    parts(dispatch(store, req, functions::cancel_lines::handle).await).0
}

#[tokio::test]
async fn an_order_shipped_or_cancelled_in_parts_frees_its_place_with_its_last_unit() {
    let app = TestApp::seeded().await.expect("app");
    let store = app.store.clone().with_max_open_orders(Some(1));
    let body = r#"{"items":[{"sku":"sku-3","quantity":2}]}"#;
    let two = |customer: &str| {
        send_json(
            Who::Staff,
            "POST /customers/{customerId}/orders",
            &format!("/customers/{customer}/orders"),
            &[],
            body,
        )
    };

    let (status, _, order) =
        parts(dispatch(&store, two("c2"), functions::place_order::handle).await);
    assert_eq!(status, 201, "{order}");
    let shipped = order["orderId"].as_str().expect("id").to_owned();
    assert_eq!(ship_some(&store, &shipped, 1).await, 201);
    assert_eq!(
        place(&store, "c2").await.0,
        409,
        "half shipped is still open"
    );
    assert_eq!(ship_some(&store, &shipped, 1).await, 201);
    let (status, _, order) =
        parts(dispatch(&store, two("c2"), functions::place_order::handle).await);
    assert_eq!(
        status, 201,
        "the last unit shipped freed the place: {order}"
    );

    let cancelled = order["orderId"].as_str().expect("id").to_owned();
    assert_eq!(cancel_some(&store, &cancelled, 1, "first").await, 201);
    assert_eq!(
        place(&store, "c2").await.0,
        409,
        "one unit left is still open"
    );
    assert_eq!(cancel_some(&store, &cancelled, 1, "second").await, 201);
    assert_eq!(
        place(&store, "c2").await.0,
        201,
        "the last unit cancelled freed it"
    );
}

#[tokio::test]
async fn a_paid_order_refunded_by_all_its_lines_before_shipping_frees_its_place() {
    use aws_sdk_dynamodb::types::AttributeValue::{N, S};
    let app = TestApp::seeded().await.expect("app");
    let store = app.store.clone().with_max_open_orders(Some(1));
    let (status, _, order) = parts(
        dispatch(
            &store,
            send_json(
                Who::Staff,
                "POST /customers/{customerId}/orders",
                "/customers/c2/orders",
                &[],
                r#"{"items":[{"sku":"sku-3","quantity":2}]}"#,
            ),
            functions::place_order::handle,
        )
        .await,
    );
    assert_eq!(status, 201, "{order}");
    let id = order["orderId"].as_str().expect("id").to_owned();
    let cents: i64 = order["total"]
        .as_str()
        .and_then(|t| t.replace('.', "").parse().ok())
        .expect("a total in cents");
    // What a payment's transaction leaves on the header.
    app.direct_store()
        .client()
        .update_item()
        .table_name(store.table())
        .key("PK", S(format!("ORDER#{id}")))
        .key("SK", S("HEADER".into()))
        .update_expression("SET paymentId = :p, paid = :a, refundable = :a")
        .expression_attribute_values(":p", S(format!("pi_{id}")))
        .expression_attribute_values(":a", N(cents.to_string()))
        .send()
        .await
        .expect("paid");
    let refund = |quantity: u32, key: &'static str| {
        send_json(
            Who::Staff,
            "POST /orders/{orderId}/refunds",
            &format!("/orders/{id}/refunds"),
            &[("idempotency-key", key)],
            &format!(
                r#"{{"lines":[{{"sku":"sku-3","quantity":{quantity}}}],"reason":"lost","restock":true}}"#
            ),
        )
    };
    let (status, _, first) =
        parts(dispatch(&store, refund(1, "r-1"), functions::refund_order::handle).await);
    assert_eq!(status, 202, "{first}");
    assert_eq!(place(&store, "c2").await.0, 409, "one unit left to ship");
    let (status, _, last) =
        parts(dispatch(&store, refund(1, "r-2"), functions::refund_order::handle).await);
    assert_eq!(status, 202, "{last}");
    assert_eq!(app.status_of(&id).await, "CANCELLED");
    assert_eq!(
        place(&store, "c2").await.0,
        201,
        "nothing left to ship frees the place"
    );
}
