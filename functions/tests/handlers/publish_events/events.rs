//! Every route and run that changes an order, a refund, a product or a variant publishes exactly
//! its events, numbered in order per subject; one that changes nothing publishes nothing.

use std::time::Duration;

use local_engine::heard::kinds;
use local_engine::testing::catalog::adjust_stock;
use local_engine::testing::payments::{briefly_held, pay_at_provider, succeeded};
use local_engine::testing::{
    Who, change_status, dispatch, parts, send_json, ship, update_fulfilment,
};
use serde_json::{Value, json};
use shared::Store;

use crate::flows::{held, provider_event, succeeded_event};
use crate::publish_events::Harness;

fn ks(pairs: &[(&str, u64)]) -> Vec<(String, u64)> {
    pairs.iter().map(|(k, n)| ((*k).to_owned(), *n)).collect()
}

/// Staff place `lines` for c1: the order's ID.
async fn place(store: &Store, lines: &str) -> (u16, Value) {
    let req = send_json(
        Who::Staff,
        "POST /customers/{customerId}/orders",
        "/customers/c1/orders",
        &[],
        &format!(r#"{{"items":{lines}}}"#),
    );
    let (status, _, body) = parts(dispatch(store, req, functions::place_order::handle).await);
    (status, body)
}

async fn move_to(store: &Store, order: &str, status: &str) {
    let (code, _, body) = parts(
        dispatch(
            store,
            change_status(Who::Staff, order, status),
            functions::update_order_status::handle,
        )
        .await,
    );
    assert_eq!(code, 200, "{body}");
}

/// The provider's event of `kind` about PaymentIntent `intent` of `order`.
fn intent_event(id: &str, kind: &str, intent: &str, amount: i64, order: &str) -> String {
    json!({
        "id": id, "object": "event", "type": kind,
        "data": {"object": {
            "id": intent, "object": "payment_intent", "amount": amount, "currency": "usd",
            "last_payment_error": {"message": "Your card was declined."},
            "metadata": {"orderId": order},
        }},
    })
    .to_string()
}

/// The customer pays `intent` at the provider (a card that succeeds), and its event arrives.
async fn pay(store: &Store, order: &str, amount: i64, intent: &str) {
    pay_at_provider(intent);
    let answer = succeeded_event(store, &format!("evt_{intent}"), intent, amount, order).await;
    assert_eq!(answer["outcome"], "placed", "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_placed_by_staff_then_shipped_and_delivered_is_three_events_in_order() {
    let mut h = Harness::new().await;
    let store = h.app.store.clone();
    let (status, placed) = place(
        &store,
        r#"[{"sku":"sku-1","quantity":2},{"sku":"sku-2","quantity":1}]"#,
    )
    .await;
    assert_eq!(status, 201, "{placed}");
    let order = placed["orderId"].as_str().expect("id").to_owned();
    move_to(&store, &order, "SHIPPED").await;
    move_to(&store, &order, "DELIVERED").await;
    h.publish().await;
    let subjects = h.subjects().await;
    let events = &subjects[&format!("order/{order}")];
    assert_eq!(
        kinds(events),
        ks(&[
            ("order.placed", 1),
            ("order.shipped", 2),
            ("order.delivered", 3)
        ])
    );
    let first = &events[0];
    assert_eq!(first["customerId"], "c1");
    assert_eq!(
        first["order"]["total"], placed["total"],
        "money as the API answers it"
    );
    assert_eq!(
        first["lines"], placed["items"],
        "what was ordered, as the order's answer lists it"
    );
    assert_eq!(events[1]["previousStatus"], "PLACED");
    assert_eq!(events[2]["order"]["status"], "DELIVERED");
    // SHIPPED is one fulfilment of everything, DELIVERED delivers it: its own two events.
    assert_eq!(subjects.len(), 2, "nothing else: {subjects:?}");
    let (subject, shipment) = subjects
        .iter()
        .find(|(subject, _)| subject.starts_with("fulfilment/"))
        .expect("the fulfilment's events");
    assert_eq!(
        kinds(shipment),
        ks(&[("fulfilment.shipped", 1), ("fulfilment.delivered", 2)]),
        "{subject}"
    );
    assert_eq!(
        shipment[0]["fulfilment"]["lines"],
        json!([{"sku": "sku-1", "quantity": 2}, {"sku": "sku-2", "quantity": 1}])
    );
    assert_eq!(shipment[0]["orderId"], order.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shipment_in_two_parts_is_each_fulfilments_events_and_the_orders() {
    let mut h = Harness::new().await;
    let store = h.app.store.clone();
    let (status, placed) = place(
        &store,
        r#"[{"sku":"sku-1","quantity":2},{"sku":"sku-2","quantity":1}]"#,
    )
    .await;
    assert_eq!(status, 201, "{placed}");
    let order = placed["orderId"].as_str().expect("id").to_owned();
    let shipped = |lines: &'static [(&'static str, u32)], tracking: &'static str| {
        let (store, order) = (store.clone(), order.clone());
        async move {
            let req = ship(Who::Staff, &order, lines, tracking);
            let (status, _, body) =
                parts(dispatch(&store, req, functions::ship_order::handle).await);
            assert_eq!(status, 201, "{body}");
            body["fulfilmentId"].as_str().expect("id").to_owned()
        }
    };
    let first = shipped(&[("sku-1", 2)], r#""carrier":"DHL","trackingNumber":"JD1""#).await;
    let second = shipped(&[("sku-2", 1)], "").await;
    let req = update_fulfilment(
        Who::Staff,
        &order,
        &first,
        r#"{"status":"IN_TRANSIT","trackingNumber":"JD2"}"#,
    );
    let (status, _, body) =
        parts(dispatch(&store, req, functions::update_fulfilment::handle).await);
    assert_eq!(status, 200, "{body}");
    h.publish().await;
    let subjects = h.subjects().await;
    assert_eq!(
        kinds(&subjects[&format!("order/{order}")]),
        ks(&[
            ("order.placed", 1),
            ("order.partially-shipped", 2),
            ("order.shipped", 3)
        ])
    );
    let first_events = &subjects[&format!("fulfilment/{first}")];
    assert_eq!(
        kinds(first_events),
        ks(&[
            ("fulfilment.shipped", 1),
            ("fulfilment.in-transit", 2),
            ("fulfilment.tracking-updated", 3)
        ])
    );
    assert_eq!(first_events[2]["fulfilment"]["trackingNumber"], "JD2");
    assert_eq!(
        first_events[2]["fulfilment"]["history"][0]["trackingNumber"], "JD1",
        "the tracking it replaced"
    );
    assert_eq!(
        kinds(&subjects[&format!("fulfilment/{second}")]),
        ks(&[("fulfilment.shipped", 1)])
    );
    assert_eq!(subjects.len(), 3, "nothing else: {subjects:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_cancellation_of_lines_is_one_event_and_the_last_cancels_the_order() {
    let mut h = Harness::new().await;
    let store = h.app.store.clone();
    let (status, placed) = place(
        &store,
        r#"[{"sku":"sku-1","quantity":2},{"sku":"sku-2","quantity":1}]"#,
    )
    .await;
    assert_eq!(status, 201, "{placed}");
    let order = placed["orderId"].as_str().expect("id").to_owned();
    let mut cancellations = Vec::new();
    for (key, sku, quantity) in [("c-1", "sku-1", 2), ("c-2", "sku-2", 1)] {
        let req = send_json(
            Who::Staff,
            "POST /orders/{orderId}/cancellations",
            &format!("/orders/{order}/cancellations"),
            &[("idempotency-key", key)],
            &format!(r#"{{"lines":[{{"sku":"{sku}","quantity":{quantity}}}],"reason":"broken"}}"#),
        );
        let (status, _, body) = parts(dispatch(&store, req, functions::cancel_lines::handle).await);
        assert_eq!(status, 201, "{body}");
        cancellations.push(body["cancellationId"].as_str().expect("id").to_owned());
    }
    h.publish().await;
    let subjects = h.subjects().await;
    assert_eq!(
        kinds(&subjects[&format!("order/{order}")]),
        ks(&[("order.placed", 1), ("order.cancelled", 2)]),
        "nothing left to ship and nothing shipped: the order's cancellation"
    );
    for (id, sku) in cancellations.iter().zip(["sku-1", "sku-2"]) {
        let events = &subjects[&format!("cancellation/{id}")];
        assert_eq!(kinds(events), ks(&[("cancellation.recorded", 1)]));
        assert_eq!(events[0]["cancellation"]["lines"][0]["sku"], sku);
        assert_eq!(events[0]["customerId"], "c1");
    }
    assert_eq!(
        subjects.len(),
        3,
        "nothing else (an unpaid order has no refund): {subjects:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_order_publishes_nothing() {
    let mut h = Harness::new().await;
    let (status, body) = place(&h.app.store, r#"[{"sku":"sku-1","quantity":10000}]"#).await;
    assert_eq!(status, 409, "{body}");
    h.publish().await;
    assert_eq!(h.heard().await, Vec::<Value>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkout_failed_paid_and_disputed_is_its_orders_four_events() {
    let mut h = Harness::new().await;
    let store = h.app.store.clone();
    let (order, amount, intent) = held(&store, "c2", &[("sku-1", 1)]).await;
    let failed = provider_event(
        &store,
        &intent_event(
            "evt_fail",
            "payment_intent.payment_failed",
            &intent,
            amount,
            &order,
        ),
    )
    .await;
    assert_eq!(failed["outcome"], "payment-failed", "{failed}");
    pay(&store, &order, amount, &intent).await;
    let disputed = json!({
        "id": "evt_dispute", "object": "event", "type": "charge.dispute.created",
        "data": {"object": {
            "id": "dp_1", "object": "dispute", "amount": amount, "currency": "usd",
            "charge": "ch_1", "payment_intent": intent, "reason": "fraudulent",
            "status": "warning_needs_response",
        }},
    });
    provider_event(&store, &disputed.to_string()).await;
    h.publish().await;
    let subjects = h.subjects().await;
    let events = &subjects[&format!("order/{order}")];
    assert_eq!(
        kinds(events),
        ks(&[
            ("order.hold-started", 1),
            ("order.payment-failed", 2),
            ("order.placed", 3),
            ("order.disputed", 4),
        ])
    );
    assert_eq!(
        events[1]["order"]["paymentError"],
        "Your card was declined."
    );
    assert_eq!(events[2]["previousStatus"], "PENDING_PAYMENT");
    assert_eq!(events[2]["lines"][0]["sku"], "sku-1");
    // What the order was charged, beside each line's discount and tax: c2's sample cart (a
    // mug and two candles, 43.95) with no promotion, no shipping and no tax (no address).
    assert_eq!(
        (
            &events[2]["charged"]["subtotal"],
            &events[2]["charged"]["shipping"],
            &events[2]["lines"][0]["tax"],
        ),
        (&json!("43.95"), &json!("0.00"), &json!("0.00"))
    );
    assert_eq!(events[3]["order"]["dispute"]["reason"], "fraudulent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hold_ended_by_the_expiry_or_by_the_provider_is_its_second_event() {
    let mut h = Harness::new().await;
    let store = h.app.store.clone();
    let brief = briefly_held(&store);
    let (expiring, _, _) = held(&brief, "c2", &[("sku-1", 1)]).await;
    let (canceled, amount, intent) = held(&store, "c3", &[("sku-2", 1)]).await;
    let ended = provider_event(
        &store,
        &intent_event(
            "evt_cancel",
            "payment_intent.canceled",
            &intent,
            amount,
            &canceled,
        ),
    )
    .await;
    assert_eq!(ended["outcome"], "hold-ended", "{ended}");
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let run = crate::flows::expire_holds(&store).await;
    assert_eq!(h.app.status_of(&expiring).await, "EXPIRED", "{run:?}");
    h.publish().await;
    let subjects = h.subjects().await;
    for order in [&expiring, &canceled] {
        let events = &subjects[&format!("order/{order}")];
        assert_eq!(
            kinds(events),
            ks(&[("order.hold-started", 1), ("order.hold-ended", 2)]),
            "{order}"
        );
        assert_eq!(events[1]["order"]["status"], "EXPIRED");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refunds_requested_and_paid_and_a_paid_orders_cancellation_are_published() {
    let mut h = Harness::new().await;
    let store = h.app.store.clone();
    let (order, amount, intent) = held(&store, "c2", &[("sku-1", 2)]).await;
    pay(&store, &order, amount, &intent).await;
    let req = send_json(
        Who::Staff,
        "POST /orders/{orderId}/refunds",
        &format!("/orders/{order}/refunds"),
        &[("idempotency-key", "events-refund-1")],
        r#"{"lines":[{"sku":"sku-1","quantity":1}],"reason":"arrived broken","restock":true}"#,
    );
    let (status, _, refund) = parts(dispatch(&store, req, functions::refund_order::handle).await);
    assert_eq!(status, 202, "{refund}");
    let payer = functions::pay_refunds::Payer {
        store: store.clone(),
        provider: local_engine::testing::provider(),
    };
    local_engine::declared::as_function(
        "pay-refunds",
        functions::pay_refunds::handle(&payer, Duration::from_secs(5)),
    )
    .await
    .expect("payer");
    move_to(&store, &order, "CANCELLED").await;
    h.publish().await;
    let subjects = h.subjects().await;
    let staff = &subjects[&format!("refund/{}", refund["refundId"].as_str().expect("id"))];
    assert_eq!(
        kinds(staff),
        ks(&[("refund.requested", 1), ("refund.succeeded", 2)])
    );
    assert_eq!(staff[0]["orderId"], order.as_str());
    assert_eq!(
        staff[1]["refund"]["amount"], refund["amount"],
        "the API's units"
    );
    assert_eq!(
        kinds(&subjects[&format!("order/{order}")]),
        ks(&[
            ("order.hold-started", 1),
            ("order.placed", 2),
            ("order.cancelled", 3)
        ])
    );
    let cancellation: Vec<_> = subjects
        .iter()
        .filter(|(subject, events)| {
            subject.starts_with("refund/") && events[0]["refund"]["kind"] == "cancellation"
        })
        .collect();
    assert_eq!(cancellation.len(), 1, "{subjects:?}");
    assert_eq!(kinds(cancellation[0].1), ks(&[("refund.requested", 1)]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payment_that_names_no_order_is_a_refund_without_an_order() {
    let mut h = Harness::new().await;
    let store = h.app.store.clone();
    let answer = provider_event(
        &store,
        &succeeded("evt_stray", "pi_stray", 500, "usd", "o-nowhere"),
    )
    .await;
    assert_eq!(answer["outcome"], "refund-due", "{answer}");
    h.publish().await;
    let subjects = h.subjects().await;
    let refunds: Vec<_> = subjects.values().collect();
    assert_eq!(refunds.len(), 1, "{subjects:?}");
    assert_eq!(kinds(refunds[0]), ks(&[("refund.requested", 1)]));
    assert!(
        refunds[0][0].get("orderId").is_none(),
        "{:?}",
        refunds[0][0]
    );
    assert_eq!(refunds[0][0]["refund"]["amount"], 500);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_products_stock_is_announced_low_once_per_crossing_of_the_threshold() {
    let mut h = Harness::new().await;
    let store = h.app.store.clone();
    let stock = h.app.stock("sku-3").await as i64;
    let adjust = |delta: i64| adjust_stock(Who::Staff, "sku-3", delta);
    // Down to the threshold (not below), then below it, then further below.
    for delta in [-(stock - crate::publish_events::LOW_STOCK as i64), -1, -2] {
        let (status, _, body) =
            parts(dispatch(&store, adjust(delta), functions::adjust_stock::handle).await);
        assert_eq!(status, 200, "{body}");
    }
    h.publish().await;
    let once: Vec<Value> = h.heard().await;
    assert_eq!(once.len(), 1, "{once:?}");
    let product = &once[0]["detail"]["product"];
    assert_eq!(
        (
            product["sku"].as_str(),
            product["stock"].as_u64(),
            product["previousStock"].as_u64()
        ),
        (
            Some("sku-3"),
            Some(crate::publish_events::LOW_STOCK - 1),
            Some(crate::publish_events::LOW_STOCK)
        )
    );
    // Back up, and down again: a second crossing, a second event.
    for delta in [10, -10] {
        let (status, _, body) =
            parts(dispatch(&store, adjust(delta), functions::adjust_stock::handle).await);
        assert_eq!(status, 200, "{body}");
    }
    h.publish().await;
    let again = h.heard().await;
    assert_eq!(again.len(), 1, "{again:?}");
    assert_ne!(again[0]["detail"]["eventId"], once[0]["detail"]["eventId"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_step_of_a_return_is_one_event_of_the_return() {
    let mut h = Harness::new().await;
    let store = h.app.store.clone();
    // o102 is c1's, DELIVERED (sample data): staff record a return for the customer.
    let req = send_json(
        Who::Staff,
        "POST /orders/{orderId}/returns",
        "/orders/o102/returns",
        &[("idempotency-key", "return-o102-1")],
        r#"{"lines":[{"sku":"sku-7","quantity":2}],"reason":"too strong"}"#,
    );
    let (status, _, asked) = parts(dispatch(&store, req, functions::request_return::handle).await);
    assert_eq!(status, 201, "{asked}");
    let id = asked["returnId"].as_str().expect("id").to_owned();
    let req = send_json(
        Who::Staff,
        "PATCH /orders/{orderId}/returns/{returnId}",
        &format!("/orders/o102/returns/{id}"),
        &[],
        r#"{"status":"APPROVED"}"#,
    );
    let (status, _, body) = parts(dispatch(&store, req, functions::update_return::handle).await);
    assert_eq!(status, 200, "{body}");
    let req = send_json(
        Who::Staff,
        "POST /orders/{orderId}/returns/{returnId}/receipt",
        &format!("/orders/o102/returns/{id}/receipt"),
        &[],
        r#"{"lines":[{"sku":"sku-7","received":2}],"refund":true}"#,
    );
    let (status, _, body) = parts(dispatch(&store, req, functions::receive_return::handle).await);
    assert_eq!(status, 201, "{body}");
    h.publish().await;
    let subjects = h.subjects().await;
    let events = &subjects[&format!("return/{id}")];
    assert_eq!(
        kinds(events),
        ks(&[
            ("return.requested", 1),
            ("return.approved", 2),
            ("return.received", 3)
        ]),
        "o102 was never paid: nothing refunded, so RECEIVED"
    );
    assert_eq!(events[2]["return"]["received"][0]["received"], 2);
    assert_eq!(events[0]["customerId"], "c1");
    assert_eq!(
        subjects.len(),
        1,
        "the order's status did not move: {subjects:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalog_is_published_as_it_changes_so_a_cache_can_follow_it_without_polling() {
    let mut h = Harness::new().await;
    let store = h.app.store.clone();
    let put = |body: Value| {
        let req = local_engine::testing::catalog::put_product(Who::Staff, "tee", &body.to_string());
        let store = store.clone();
        async move {
            let (status, _, answer) =
                parts(dispatch(&store, req, functions::put_product::handle).await);
            assert!(status == 201 || status == 200, "{status} {answer}");
        }
    };
    let stock = |sku: &'static str, delta: i64| {
        let store = store.clone();
        async move {
            let req = adjust_stock(Who::Staff, sku, delta);
            let (status, _, body) =
                parts(dispatch(&store, req, functions::adjust_stock::handle).await);
            assert_eq!(status, 200, "{body}");
        }
    };
    // A new draft tells nothing; publishing it does.
    put(crate::put_product::tee("DRAFT")).await;
    h.publish().await;
    assert_eq!(
        h.heard().await,
        Vec::<Value>::new(),
        "a draft is nobody's news"
    );
    put(crate::put_product::tee("PUBLISHED")).await;
    // Repriced; one variant back in stock, then sold out again.
    let mut repriced = crate::put_product::tee("PUBLISHED");
    repriced["variants"][3]["price"] = json!("21.00");
    put(repriced).await;
    stock("tee-s-red", 2).await;
    stock("tee-s-red", -2).await;
    put(crate::put_product::tee("ARCHIVED")).await;
    h.publish().await;
    let heard: Vec<Value> = h.heard().await;
    let told: Vec<(String, String)> = heard
        .iter()
        .map(|e| {
            let detail = &e["detail"];
            let about = detail["catalog"]["productId"]
                .as_str()
                .or(detail["variant"]["sku"].as_str())
                .unwrap_or_default();
            (
                detail["type"].as_str().unwrap_or_default().to_owned(),
                about.to_owned(),
            )
        })
        .collect();
    let mut sorted = told.clone();
    sorted.sort();
    let expected = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        let mut v: Vec<_> = pairs
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        sorted,
        expected(&[
            ("product.published", "tee"),
            // tee-m-blue 19.00 → 21.00, and back to 19.00 with the archiving write.
            ("variant.price-changed", "tee-m-blue"),
            ("variant.price-changed", "tee-m-blue"),
            ("variant.back-in-stock", "tee-s-red"),
            ("variant.sold-out", "tee-s-red"),
            ("product.unpublished", "tee"),
        ]),
        "{heard:?}"
    );
    let published = heard
        .iter()
        .map(|e| &e["detail"])
        .find(|d| d["type"] == "product.published")
        .expect("published");
    assert_eq!(
        (
            &published["catalog"]["status"],
            &published["catalog"]["previousStatus"]
        ),
        (&json!("PUBLISHED"), &json!("DRAFT"))
    );
    assert!(published.get("sequence").is_none(), "{published}");
    let repriced = heard
        .iter()
        .map(|e| &e["detail"])
        .find(|d| d["type"] == "variant.price-changed")
        .expect("repriced");
    assert_eq!(
        (
            &repriced["variant"]["price"],
            &repriced["variant"]["previousPrice"]
        ),
        (&json!("21.00"), &json!("19.00"))
    );
}
