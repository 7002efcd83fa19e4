//! `MaxHeldQuantity`: what one customer's open checkouts may hold of one product, counted in
//! the checkout's own transaction and given back as each order leaves the open statuses. The
//! review's case: one free account checked out a product's whole stock, and every other
//! customer got 409 out-of-stock until the hold ended.

use std::time::Duration;

use local_engine::testing::dispatch;
use local_engine::testing::payments::{briefly_held, hold_line};
use local_engine::testing::{TestApp, parts};
use serde_json::{Value, json};
use shared::Store;

use super::check_out;

async fn hold(store: &Store, customer: &str, sku: &str, quantity: u32) {
    let (status, _, body) = parts(
        dispatch(
            store,
            hold_line(customer, sku, quantity),
            functions::edit_cart::handle,
        )
        .await,
    );
    assert_eq!(status, 200, "{body}");
}

/// Waits out a brief hold, then ends it.
async fn end_holds(store: &Store) {
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let run = store
        .end_expired_holds(Duration::from_secs(10))
        .await
        .expect("expiry");
    assert!(run.failures.is_empty(), "{run:?}");
}

#[tokio::test]
async fn one_customer_may_not_hold_more_of_a_product_than_the_cap_and_the_rest_stays_for_others() {
    let app = TestApp::seeded().await.expect("app");
    let store = briefly_held(&app.store).with_max_held_quantity(Some(5));
    let stock = app.stock("sku-3").await;
    // The whole stock in one line: refused before anything is held.
    hold(&store, "c2", "sku-3", 6).await;
    let (status, body) = check_out(&store, "c2", None).await;
    assert_eq!(
        (status, &body["type"], &body["skus"]),
        (409, &json!("/problems/too-much-held"), &json!(["sku-3"])),
        "{body}"
    );
    assert_eq!(app.stock("sku-3").await, stock, "nothing held");
    // Four, then two more: the second checkout would make six.
    hold(&store, "c2", "sku-3", 4).await;
    let (status, body) = check_out(&store, "c2", None).await;
    assert_eq!(status, 201, "{body}");
    hold(&store, "c2", "sku-3", 2).await;
    hold(&store, "c2", "sku-1", 1).await;
    let (status, body) = check_out(&store, "c2", None).await;
    assert_eq!(
        (status, &body["type"], &body["skus"]),
        (409, &json!("/problems/too-much-held"), &json!(["sku-3"])),
        "{body}"
    );
    assert_eq!(
        app.stock("sku-3").await,
        stock - 4,
        "the refused checkout held nothing"
    );
    // Another customer still gets the rest.
    hold(&store, "c3", "sku-3", 5).await;
    let (status, body) = check_out(&store, "c3", None).await;
    assert_eq!(status, 201, "{body}");
    // One more fits within five.
    hold(&store, "c2", "sku-3", 1).await;
    let (status, body) = check_out(&store, "c2", None).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(app.stock("sku-3").await, stock - 10);
    // The holds end: their units are c2's to hold again, all five.
    end_holds(&store).await;
    assert_eq!(app.stock("sku-3").await, stock);
    hold(&store, "c2", "sku-3", 5).await;
    let (status, body): (u16, Value) = check_out(&store, "c2", None).await;
    assert_eq!(status, 201, "{body}");
}

/// A hold made before the cap counted units (here: by a store without it) still ends on time,
/// its stock back, when the store that ends it counts them.
#[tokio::test]
async fn a_hold_made_before_units_were_counted_ends_all_the_same() {
    let app = TestApp::seeded().await.expect("app");
    let uncounted = briefly_held(&app.store).with_max_open_orders(Some(3));
    let counting = uncounted.clone().with_max_held_quantity(Some(5));
    let stock = app.stock("sku-4").await;
    hold(&uncounted, "c4", "sku-4", 3).await;
    let (status, body) = check_out(&uncounted, "c4", None).await;
    assert_eq!(status, 201, "{body}");
    // The counting store's first checkout for c4 starts the map; the old hold is not in it.
    hold(&counting, "c4", "sku-4", 2).await;
    let (status, body) = check_out(&counting, "c4", None).await;
    assert_eq!(status, 201, "{body}");
    end_holds(&counting).await;
    assert_eq!(
        app.stock("sku-4").await,
        stock,
        "both holds ended, their stock back"
    );
    // Both places and the counted units are free again.
    hold(&counting, "c4", "sku-4", 5).await;
    let (status, body) = check_out(&counting, "c4", None).await;
    assert_eq!(status, 201, "{body}");
}
