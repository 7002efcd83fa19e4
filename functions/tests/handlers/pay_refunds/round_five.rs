//! Round five of the review, the money's part: a signed `refund.updated` saying `canceled` of
//! a refund the provider paid leaves it SUCCEEDED (Stripe moves a succeeded refund to `failed`
//! only; `canceled` is for one that never succeeded).

use serde_json::{Value, json};

use super::round_four::{lines_refund, only_refund, paid, refund_event};
use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_canceled_report_of_a_refund_that_succeeded_reverses_nothing() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let (order, amount, intent) = paid(store, "c2", "sku-7", "evt_r5_4").await;
    let (status, asked) = refund(store, &order, "r5-4", &lines_refund("sku-7", 1, false)).await;
    assert_eq!(status, 202, "{asked}");
    assert_eq!(pay(store).await.succeeded, 1);
    let made = refunds_at_provider(&intent).remove(0);
    let before = ledger(store, &order).await;
    let paid_back = before["refunded"].as_i64().expect("refunded");
    assert!(paid_back > 0, "{before}");

    let canceled = json!({"status": "canceled"});
    let answer = refund_event(store, "evt_r5_4b", "refund.updated", &made, canceled).await;
    assert_eq!(answer["outcome"], "ignored", "{answer}");
    let after = ledger(store, &order).await;
    assert_eq!(
        (
            &only_refund(&after)["status"],
            &after["refunded"],
            &after["refundable"]
        ),
        (
            &Value::from("SUCCEEDED"),
            &Value::from(paid_back),
            &Value::from(amount - paid_back)
        ),
        "{after}"
    );
}
