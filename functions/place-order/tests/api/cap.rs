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
    let (status, _, body) = parts(dispatch(store, req, place_order::handle).await);
    (status, body)
}

async fn set_status(store: &Store, who: Who<'_>, order: &str, status: &str) -> u16 {
    let req = change_status(who, order, status);
    parts(dispatch(store, req, update_order_status::handle).await).0
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
