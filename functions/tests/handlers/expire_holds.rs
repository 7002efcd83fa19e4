//! The holds' expiry against its own engine: holds past their time end, their stock goes back
//! and their place under the cap is freed; a hold still running is left alone; and a payment
//! racing the expiry has exactly one outcome.

use local_engine::declared::as_function;
use std::time::Duration;

use functions::payment_webhook::Webhook;
use local_engine::testing::dispatch;
use local_engine::testing::payments::{briefly_held, succeeded, webhook};
use local_engine::testing::{TestApp, parts, webhook_secrets};
use shared::Store;

const BUDGET: Duration = Duration::from_secs(5);

/// PaymentIntent `intent`'s status at the provider.
fn intent_status(intent: &str) -> String {
    local_engine::testing::at_provider(&format!("/v1/payment_intents/{intent}"))["status"]
        .as_str()
        .expect("a status")
        .to_owned()
}

/// The expiry on `store`, canceling at this test binary's payment provider.
fn expiry(store: &Store) -> functions::expire_holds::Expiry {
    functions::expire_holds::Expiry {
        store: store.clone(),
        provider: local_engine::testing::provider(),
    }
}

#[tokio::test]
async fn holds_past_their_time_end_with_their_stock_back_and_running_ones_stay() {
    let app = TestApp::seeded().await.expect("app");
    let store = briefly_held(&app.store).with_max_open_orders(Some(1));
    let before = app.stock("sku-5").await;
    let (ended, _, ended_intent) = crate::flows::held(&store, "c3", &[("sku-5", 1)]).await;
    let (running, _, running_intent) = crate::flows::held(&app.store, "c4", &[("sku-5", 1)]).await;
    assert_eq!(app.stock("sku-5").await, before - 2);
    let run = crate::flows::expire_holds(&store).await;
    assert_eq!(run.holds.expired, 0, "nothing due yet: {run:?}");
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let run = crate::flows::expire_holds(&store).await;
    assert_eq!(
        (run.holds.expired, run.holds.unfinished),
        (1, false),
        "{run:?}"
    );
    assert_eq!(app.status_of(&ended).await, "EXPIRED");
    assert_eq!(app.status_of(&running).await, "PENDING_PAYMENT");
    assert_eq!(app.stock("sku-5").await, before - 1);
    // The ended hold's PaymentIntent is canceled at the provider: nobody can pay it any more.
    assert_eq!(
        (run.intents_canceled, run.intents_not_canceled.len()),
        (1, 0),
        "{run:?}"
    );
    assert_eq!(intent_status(&ended_intent), "canceled");
    assert_eq!(intent_status(&running_intent), "requires_payment_method");
    // Run again: nothing twice.
    let run = crate::flows::expire_holds(&store).await;
    assert_eq!(run.holds.expired, 0);
    // c3's place under the cap of one is free again.
    crate::flows::held(&store, "c3", &[("sku-5", 1)]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_payment_racing_the_expiry_either_places_the_order_or_is_recorded_for_refund() {
    let app = TestApp::seeded().await.expect("app");
    let store = briefly_held(&app.store);
    let hook = Webhook {
        store: app.store.clone(),
        secrets: webhook_secrets(),
    };
    let customers = ["c1", "c3", "c4", "c5", "c6"];
    let ending = expiry(&app.store);
    let before = app.stock("sku-7").await;
    let mut orders = Vec::new();
    for customer in customers {
        orders.push(crate::flows::held(&store, customer, &[("sku-7", 1)]).await);
    }
    // At the end of the holds, the payments and the expiry at once, at staggered moments.
    tokio::time::sleep(Duration::from_millis(900)).await;
    let mut placed = 0;
    for (i, (order, amount, intent)) in orders.iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(150 * i as u64)).await;
        let pay = async {
            let body = succeeded(&format!("evt_race_{i}"), intent, *amount, "usd", order);
            parts(dispatch(&hook, webhook(&body), functions::payment_webhook::handle).await)
        };
        let ((status, _, answer), run) = tokio::join!(
            pay,
            as_function(
                "expire-holds",
                functions::expire_holds::handle(&ending, BUDGET)
            )
        );
        run.expect("expiry");
        assert_eq!(status, 200, "{answer}");
        let outcome = answer["outcome"].as_str().expect("outcome").to_owned();
        if outcome == "placed" {
            placed += 1;
        } else {
            assert_eq!(outcome, "refund-due", "{answer}");
        }
        // The expiry may not have reached an ended hold in that run: the next one does.
        crate::flows::expire_holds(&app.store).await;
        let status = app.status_of(order).await;
        match outcome.as_str() {
            "placed" => assert_eq!(status, "PLACED"),
            _ => assert_eq!(status, "EXPIRED", "refunded, so the hold must have ended"),
        }
    }
    assert_eq!(app.stock("sku-7").await, before - placed);
}

/// The review's case: one item under `STATUS#PENDING_PAYMENT` with its `total` stored as a
/// string. The run reports it by key, and ends the real hold beside it all the same.
#[tokio::test]
async fn an_item_the_expiry_cannot_read_is_reported_and_every_other_hold_still_ends() {
    use aws_sdk_dynamodb::types::AttributeValue;
    let app = TestApp::seeded().await.expect("app");
    let store = briefly_held(&app.store);
    let before = app.stock("sku-5").await;
    let (ended, ..) = crate::flows::held(&store, "c3", &[("sku-5", 1)]).await;
    let s = |v: &str| AttributeValue::S(v.to_owned());
    app.engine
        .client()
        .put_item()
        .table_name(local_engine::LOCAL_TABLE)
        .item("PK", s("CUSTOMER#c9"))
        .item("SK", s("ORDER#2026-01-01T00:00:00Z#obad"))
        .item("GSI1PK", s("STATUS#PENDING_PAYMENT"))
        .item("GSI1SK", s("2026-01-01T00:00:00Z"))
        .item("orderId", s("obad"))
        .item("customerId", s("c9"))
        .item("status", s("PENDING_PAYMENT"))
        .item("total", s("12.00"))
        .send()
        .await
        .expect("put");
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let run = crate::flows::expire_holds(&store).await;
    assert_eq!(run.holds.expired, 1, "{run:?}");
    assert_eq!(app.status_of(&ended).await, "EXPIRED");
    assert_eq!(app.stock("sku-5").await, before);
    assert_eq!(run.holds.failures.len(), 1, "{run:?}");
    assert_eq!(
        run.holds.failures[0].key,
        "CUSTOMER#c9 / ORDER#2026-01-01T00:00:00Z#obad"
    );
    assert!(run.holds.failures[0].reason.contains("total"), "{run:?}");
    // The next run reports it again, and nothing else.
    let run = crate::flows::expire_holds(&store).await;
    assert_eq!(
        (run.holds.expired, run.holds.failures.len()),
        (0, 1),
        "{run:?}"
    );
}
