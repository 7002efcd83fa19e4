//! Checkout against DynamoDB's limits (`local_engine::limits`): a partition out of units and
//! transactions colliding on the stock item, as DynamoDB answers them. Nothing acknowledged is
//! lost, nothing is sold twice, and what is refused is a 409 or a 503 the client may retry,
//! never a 500.

use std::time::Duration;

use futures_util::future::join_all;
use local_engine::limits::Model;
use local_engine::testing::payments::hold_line;

use super::{cart_len, check_out};
use local_engine::testing::{TestApp, dispatch, parts, put_profile};
use shared::domain::ids::Sku;

/// `count` customers `fs-N` with `quantity` of `sku` in their carts, written without the limits.
pub(super) async fn buyers(app: &TestApp, count: usize, sku: &str, quantity: u32) -> Vec<String> {
    let store = app.direct_store();
    let mut ids = Vec::with_capacity(count);
    for i in 0..count {
        let id = format!("fs-{i:03}");
        let profile = put_profile(&id, &format!("Buyer {i}"));
        let (status, _, body) =
            parts(dispatch(&store, profile, functions::put_customer::handle).await);
        assert_eq!(status, 201, "{body}");
        let line = hold_line(&id, sku, quantity);
        let (status, _, body) = parts(dispatch(&store, line, functions::edit_cart::handle).await);
        assert_eq!(status, 200, "{body}");
        ids.push(id);
    }
    ids
}

/// A sale of one-variant product `sku` at 10.00: `count` buyers with one unit each in their
/// carts (stocked for them all, so each cart takes its line), then the stock cut to `left`;
/// written without the limits. The buyers' IDs.
async fn flash_sale(app: &TestApp, sku: &str, count: usize, left: i64) -> Vec<String> {
    let sku_id = Sku::parse(sku).expect("sku");
    let price = shared::domain::product::price("10.00").expect("price");
    let product = local_engine::testing::single_variant(&sku_id, "Flash", price);
    let direct = app.direct_store();
    let staff = local_engine::testing::staff();
    direct.put_product(&product, &staff).await.expect("product");
    let stocked = i64::try_from(count).expect("a count of buyers");
    direct
        .adjust_stock(&sku_id, stocked)
        .await
        .expect("stocked for the carts");
    let customers = buyers(app, count, sku, 1).await;
    direct
        .adjust_stock(&sku_id, left - stocked)
        .await
        .expect("cut to what is left");
    customers
}

#[tokio::test]
async fn a_checkout_whose_stock_item_is_out_of_capacity_is_a_503_and_writes_nothing() {
    // 0.2 write units a second a partition, fifty seconds' worth at once: five checkouts' takes
    // of one stock item (2 units each, transactional), then its partition is spent for far
    // longer than checkout retries, however loaded the machine. No collisions: capacity alone.
    let model = Model {
        burst: Duration::from_secs(50),
        ..Model::scaled(5000.0).with_transaction_service(Duration::ZERO)
    };
    let (app, limits) = TestApp::seeded_with_limits(model).await.expect("app");
    let customers = buyers(&app, 10, "sku-1", 1).await;
    let before = app.stock("sku-1").await;
    let mut accepted = Vec::new();
    let mut refused = Vec::new();
    for customer in &customers {
        let (status, body) = check_out(&app.store, customer, None).await;
        match status {
            201 => accepted.push(customer.clone()),
            _ => refused.push((customer.clone(), status, body)),
        }
    }
    assert!(
        !accepted.is_empty() && !refused.is_empty(),
        "{accepted:?} {refused:?}"
    );
    for (customer, status, body) in &refused {
        assert_eq!(
            (*status, body["type"].as_str()),
            (503, Some("/problems/unavailable")),
            "{body}"
        );
        // Nothing of the refused checkout was written: its cart still holds the line.
        assert_eq!(cart_len(&app, customer).await, 1, "{customer}");
    }
    assert_eq!(app.stock("sku-1").await, before - accepted.len() as u64);
    let held_now = app.held("sku-1").await;
    let (held_before, _) = {
        // The sample data's own orders of sku-1 were there before the sale.
        let fresh = TestApp::seeded().await.expect("app");
        fresh.held("sku-1").await
    };
    assert_eq!(held_now.0 - held_before, accepted.len() as u64);
    assert!(limits.refusals().throttled > 0);
}

#[tokio::test]
async fn buyers_at_once_under_the_limits_get_each_unit_once_and_none_is_lost() {
    // 50 write units a second a partition; a transaction holds its items 40 ms.
    let (app, limits) = TestApp::seeded_with_limits(Model::scaled(20.0))
        .await
        .expect("app");
    let customers = flash_sale(&app, "flash-1", 30, 5).await;
    let answers = join_all(customers.iter().map(|c| check_out(&app.store, c, None))).await;
    let accepted = answers.iter().filter(|(status, _)| *status == 201).count();
    for (status, body) in &answers {
        assert!(
            *status == 201
                || (*status == 409 && body["type"] == "/problems/out-of-stock")
                || (*status == 503 && body["type"] == "/problems/unavailable"),
            "{status} {body}"
        );
    }
    let (held_units, orders) = app.held("flash-1").await;
    assert!((1..=5).contains(&accepted), "{answers:?}");
    assert_eq!((held_units, orders), (accepted as u64, accepted));
    assert_eq!(app.stock("flash-1").await + held_units, 5);
    // They did collide: the model refused some of them for the item another held.
    assert!(limits.refusals().conflicts > 0, "{:?}", limits.refusals());
}

#[tokio::test]
async fn a_sold_out_sku_that_every_buyer_reads_at_once_is_a_409_from_a_read_that_never_throttles() {
    // 30 read units a second a partition, one second's worth at once. 40 buyers of a sold-out
    // SKU check out at once: read strongly consistent, their reads of its variant would take 40
    // units, past what its partition holds; eventually consistent (a checkout's first read of
    // its variants), 20.
    let (app, limits) = TestApp::seeded_with_limits(Model::scaled(100.0))
        .await
        .expect("app");
    let customers = flash_sale(&app, "flash-2", 40, 0).await;
    app.requests.reset();
    let answers = join_all(customers.iter().map(|c| check_out(&app.store, c, None))).await;
    for (status, body) in &answers {
        assert_eq!(
            (*status, body["type"].as_str()),
            (409, Some("/problems/out-of-stock")),
            "{body}"
        );
    }
    assert_eq!(limits.refusals().throttled, 0, "{:?}", limits.refusals());
    // Answered from the read: no transaction, and every cart as it was.
    let sent = app.requests.by_operation();
    assert!(!sent.contains_key("TransactWriteItems"), "{sent:?}");
    assert_eq!(app.stock("flash-2").await, 0);
    for customer in &customers {
        assert_eq!(cart_len(&app, customer).await, 1, "{customer}");
    }
}
