//! A flash sale through make dev under DynamoDB's limits (`DYNAMODB_LIMITS`), its stock in the
//! variant's one item or split over stock shards, killed (SIGKILL)
//! while buyers check out and started again: every unit is in stock or held by exactly one
//! order, every checkout answered 201 has its order, and a buyer who sends their checkout
//! again with the same Idempotency-Key is never sold a second unit.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::dev::{exchange, http, request_text, staff_token, start_dev_with, token};

const SKU: &str = "flash-1";
/// Units on sale; fewer than the buyers.
const UNITS: i64 = 12;
const BUYERS: usize = 40;

/// Buyer `i`'s checkout, under their own Idempotency-Key.
fn checkout_text(api: &str, i: usize, token: &str) -> String {
    let target = format!("/customers/{}/checkout", buyer(i));
    request_text(
        api,
        "POST",
        &target,
        token,
        &format!("flash-{}", buyer(i)),
        "",
    )
}

fn buyer(i: usize) -> String {
    format!("fs-{i:02}")
}

type Answer = Option<(u16, Value)>;

/// Each buyer's checkout with their own key, all at once; each answer sent on as it comes
/// (None: no answer), with the buyer's number.
fn check_out_all(api: &str, tokens: &[String]) -> std::sync::mpsc::Receiver<(usize, Answer)> {
    let (tx, rx) = std::sync::mpsc::channel();
    for (i, token) in tokens.iter().enumerate() {
        let (api, token, tx) = (api.to_owned(), token.clone(), tx.clone());
        std::thread::spawn(move || {
            let text = checkout_text(&api, i, &token);
            let answer = local_engine::plain_http::exchange(&api, text.as_bytes(), "make dev")
                .ok()
                .map(|(status, body)| (status, serde_json::from_str(&body).unwrap_or(Value::Null)));
            let _ = tx.send((i, answer));
        });
    }
    rx
}

/// Every answer of `rx`, by buyer.
fn all(
    rx: &std::sync::mpsc::Receiver<(usize, Answer)>,
    mut got: Vec<Answer>,
    left: usize,
) -> Vec<Answer> {
    for _ in 0..left {
        let (i, answer) = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("every buyer ends");
        got[i] = answer;
    }
    got
}

#[test]
fn a_kill_mid_sale_loses_no_unit_and_sells_none_twice() {
    kill_mid_sale("flash", None);
}

#[test]
fn a_kill_mid_sale_of_stock_split_over_shards_loses_no_unit_and_sells_none_twice() {
    kill_mid_sale("flash-shards", Some(4));
}

/// The sale, its stock in `shards` stock shards (`None`: the variant's one item).
fn kill_mid_sale(name: &str, shards: Option<u64>) {
    // The provider is the test's own, so that, like the real one, it outlives make dev.
    let provider = local_engine::testing::provider();
    let (mut dev, _) = start_dev_with(
        name,
        "127.0.0.1",
        &[
            ("DYNAMODB_LIMITS", "20"),
            ("EVENTS_PORT", "off"),
            ("PAYMENT_PORT", "off"),
            ("PAYMENT_API_BASE", provider.base()),
            ("PAYMENT_API_KEY", local_engine::provider::LOCAL_API_KEY),
        ],
    );
    let staff = staff_token(&dev);
    let product = format!(
        r#"{{"title":"Flash","status":"PUBLISHED","variants":[{{"sku":"{SKU}","options":{{}},"price":"10.00"}}]}}"#
    );
    let (status, body) = http(&dev, "PUT", &format!("/products/{SKU}"), &staff, &product);
    assert!(status == 200 || status == 201, "{status} {body}");
    let stock = |dev: &crate::dev::Dev, change: String| {
        let target = format!("/variants/{SKU}/stock");
        let (status, body) = http(dev, "POST", &target, &staff, &change);
        assert_eq!(status, 200, "{body}");
    };
    // Enough for every cart line, then the sale's units only.
    stock(&dev, format!(r#"{{"delta":{BUYERS}}}"#));
    let tokens: Vec<String> = (0..BUYERS).map(|i| token(&dev, &buyer(i))).collect();
    for (i, token) in tokens.iter().enumerate() {
        let profile = format!(
            r#"{{"name":"Buyer {i}","email":"{}@example.com"}}"#,
            buyer(i)
        );
        let (status, body) = http(
            &dev,
            "PUT",
            &format!("/customers/{}", buyer(i)),
            &staff,
            &profile,
        );
        assert_eq!(status, 201, "{body}");
        let line = format!("/customers/{}/cart/items/{SKU}", buyer(i));
        let (status, body) = http(&dev, "PUT", &line, token, r#"{"quantity":1}"#);
        assert_eq!(status, 200, "{body}");
    }
    stock(&dev, format!(r#"{{"delta":{}}}"#, UNITS - BUYERS as i64));
    if let Some(shards) = shards {
        stock(&dev, format!(r#"{{"shards":{shards}}}"#));
    }

    // The buyers at once; make dev killed as soon as one of them has their order.
    let answers = check_out_all(&dev.api, &tokens);
    let mut first: Vec<Answer> = vec![None; BUYERS];
    let mut received = 0;
    while received < BUYERS && !first.iter().flatten().any(|(status, _)| *status == 201) {
        let (i, answer) = answers
            .recv_timeout(Duration::from_secs(60))
            .expect("an answer");
        first[i] = answer;
        received += 1;
    }
    dev.kill_and_restart();
    let first = all(&answers, first, BUYERS - received);
    let accepted: BTreeMap<String, String> = first
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match a {
            Some((201, body)) => Some((buyer(i), body["orderId"].as_str()?.to_owned())),
            _ => None,
        })
        .collect();
    for answer in first.iter().flatten() {
        let (status, body) = answer;
        assert!(
            [201, 409, 503].contains(status),
            "only an order, a refusal or a retry later: {status} {body}"
        );
    }
    let unanswered = first.iter().filter(|a| a.is_none()).count();
    // The kill came mid-sale: one item serves about 25 checkouts a second at this scale (four
    // shards about 100), and it came right after the first was accepted.
    assert!(
        unanswered > 0,
        "every checkout was answered before the kill"
    );

    // Every buyer sends theirs again with the same key, at once, and again while the store
    // says it is busy: a buyer whose first checkout held a unit gets that order back, never a
    // second.
    let mut again = all(
        &check_out_all(&dev.api, &tokens),
        vec![None; BUYERS],
        BUYERS,
    );
    for _ in 0..20 {
        let busy: Vec<usize> = (0..BUYERS)
            .filter(|i| again[*i].as_ref().is_none_or(|(status, _)| *status == 503))
            .collect();
        if busy.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
        for i in busy {
            let text = checkout_text(&dev.api, i, &tokens[i]);
            again[i] = Some(exchange(&dev, &text));
        }
    }
    for (i, answer) in again.iter().enumerate() {
        let (status, body) = answer.as_ref().expect("make dev answers after its restart");
        assert!([201, 409].contains(status), "{status} {body}");
        if let Some(order) = accepted.get(&buyer(i)) {
            assert_eq!(
                (*status, body["orderId"].as_str()),
                (201, Some(order.as_str())),
                "{body}"
            );
        }
    }

    // The orders each buyer holds, as they list them, and the stock as staff read it.
    let mut held = 0;
    for (i, token) in tokens.iter().enumerate() {
        let target = format!("/customers/{}/orders", buyer(i));
        let (status, body) = http(&dev, "GET", &target, token, "");
        assert_eq!(status, 200, "{body}");
        let orders: Vec<&Value> = body["items"].as_array().expect("items").iter().collect();
        assert!(
            orders.len() <= 1,
            "{} holds {} orders: {body}",
            buyer(i),
            orders.len()
        );
        if let Some(order) = accepted.get(&buyer(i)) {
            assert_eq!(
                orders.first().and_then(|o| o["orderId"].as_str()),
                Some(order.as_str())
            );
        }
        held += orders.len() as i64;
    }
    let (status, body) = http(&dev, "GET", &format!("/variants/{SKU}"), &staff, "");
    assert_eq!(status, 200, "{body}");
    let left = body["stock"].as_i64().expect("staff see the stock");
    assert_eq!(
        left + held,
        UNITS,
        "{left} in stock and {held} held ({} accepted, {unanswered} unanswered before the kill)",
        accepted.len()
    );
    assert!(held <= UNITS && left >= 0);
}
