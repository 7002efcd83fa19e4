//! make dev's events over real HTTP: an order's events as `make events` reads them and its
//! customer's emails; and a SIGKILL of make dev while its publisher sends, against a moto
//! server that outlives it (`EVENTS_ENDPOINT`): after the restart every event is on the bus
//! with the same `eventId` however often it came, and every email was sent once.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use local_engine::bus::LocalBus;
use serde_json::Value;
use shared::domain::event::SOURCE;

use crate::dev::{Dev, exchange, staff_token, start_dev, start_dev_with};

/// Staff place an order of `sku` for c1 (its own Idempotency-Key): its ID.
fn place(dev: &Dev, token: &str, key: &str, sku: &str) -> String {
    let body = format!(r#"{{"items":[{{"sku":"{sku}","quantity":1}}]}}"#);
    let request = format!(
        "POST /customers/c1/orders HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nIdempotency-Key: {key}\r\nContent-Length: {}\r\n\r\n{body}",
        dev.api,
        body.len()
    );
    let (status, answer) = exchange(dev, &request);
    assert_eq!(status, 201, "{answer}");
    answer["orderId"].as_str().expect("id").to_owned()
}

fn ship(dev: &Dev, token: &str, order: &str) {
    let body = r#"{"status":"SHIPPED"}"#;
    let request = format!(
        "PATCH /orders/{order} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        dev.api,
        body.len()
    );
    let (status, answer) = exchange(dev, &request);
    assert_eq!(status, 200, "{answer}");
}

fn explorer_get(dev: &Dev, target: &str) -> Value {
    let request = format!(
        "GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        dev.api
    );
    let (status, body) = exchange(dev, &request);
    assert_eq!(status, 200, "{body}");
    body
}

/// Waits (up to `limit`) until `done` holds of what `fetch` returns; what it returned last.
fn until<T>(limit: Duration, mut fetch: impl FnMut() -> T, done: impl Fn(&T) -> bool) -> T {
    let started = Instant::now();
    loop {
        let value = fetch();
        if done(&value) || started.elapsed() > limit {
            return value;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn an_orders_events_reach_make_events_and_its_customer_is_emailed_once_each() {
    let (dev, banner) = start_dev("events", "127.0.0.1");
    assert!(
        banner.contains("events           moto http://127.0.0.1:"),
        "{banner}"
    );
    let staff = staff_token(&dev);
    let order = place(&dev, &staff, "events-1", "sku-1");
    ship(&dev, &staff, &order);
    let kinds = |events: &Value| -> Vec<String> {
        events["events"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["detail"]["orderId"] == order.as_str())
            .map(|e| e["detail"]["type"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let events = until(
        Duration::from_secs(60),
        || explorer_get(&dev, "/_explorer/api/events?after=0&wait=1"),
        |events| kinds(events).len() >= 3,
    );
    // The order's status and its one fulfilment (SHIPPED ships everything in one): within
    // one change, in no promised order.
    let mut heard = kinds(&events);
    heard.sort();
    assert_eq!(
        heard,
        ["fulfilment.shipped", "order.placed", "order.shipped"]
    );
    for envelope in events["events"].as_array().into_iter().flatten() {
        let broken = local_engine::contract::event_violations(envelope);
        assert!(broken.is_empty(), "{broken:?}");
    }
    let subjects = |emails: &Value| -> Vec<String> {
        emails["emails"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["to"][0] == "ana@example.com")
            .map(|e| e["subject"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let emails = until(
        Duration::from_secs(60),
        || explorer_get(&dev, "/_explorer/api/emails"),
        |emails| subjects(emails).len() >= 2,
    );
    assert_eq!(
        subjects(&emails),
        [
            format!("Your order {order} is placed"),
            format!("Your order {order} is on its way")
        ]
    );
    // `make events`, as a reader runs it.
    let printed = std::process::Command::new(env!("CARGO_BIN_EXE_store-events"))
        .args(["--wait", "1", "--order", &order])
        .env("API_PORT", dev.api.rsplit(':').next().expect("port"))
        .output()
        .expect("store-events runs");
    assert!(printed.status.success(), "{printed:?}");
    let text = String::from_utf8_lossy(&printed.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].contains("order.placed") && lines[0].contains(&format!("order/{order}/1")),
        "{text}"
    );
    let shipped = |kind: &str, fact: &str| {
        lines
            .iter()
            .filter(|line| line.contains(kind) && line.contains(fact))
            .count()
    };
    assert_eq!(shipped("order.shipped", "SHIPPED 19.95"), 1, "{text}");
    assert_eq!(
        shipped("fulfilment.shipped", "SHIPPED sku-1x1"),
        1,
        "{text}"
    );
}

#[test]
fn a_kill_of_make_dev_while_it_publishes_loses_no_event_and_emails_no_one_twice() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let bus = LocalBus::for_test().expect("moto");
    let template = local_engine::template::parse().expect("template");
    let sender = "orders@rust-store.example";
    // The bus made first, and a tap of the test's own on it: both outlive make dev.
    let tap = runtime.block_on(async {
        let made = bus
            .provision(&template, &[("EmailSender", sender)])
            .await
            .expect("the bus");
        bus.tap(&made.bus, "kill-test-tap", SOURCE)
            .await
            .expect("tap")
    });
    let (mut dev, _) = start_dev_with(
        "kill",
        "127.0.0.1",
        &[("EVENTS_ENDPOINT", &bus.base), ("MAX_OPEN_ORDERS", "100")],
    );
    let staff = staff_token(&dev);
    let orders: Vec<String> = (0..40)
        .map(|n| {
            place(
                &dev,
                &staff,
                &format!("kill-{n}"),
                ["sku-1", "sku-2", "sku-3"][n % 3],
            )
        })
        .collect();
    let mut heard: Vec<Value> = Vec::new();
    let take = |heard: &mut Vec<Value>, wait: Duration| {
        let bodies = runtime.block_on(bus.take(&tap, wait)).expect("the tap");
        heard.extend(
            bodies
                .iter()
                .map(|b| serde_json::from_str::<Value>(b).expect("json")),
        );
    };
    // Killed as soon as its publisher has sent something, and (most likely) not all.
    let started = Instant::now();
    while heard.is_empty() && started.elapsed() < Duration::from_secs(60) {
        take(&mut heard, Duration::from_millis(100));
    }
    let before_kill = heard.len();
    dev.kill_and_restart();
    let ids = |heard: &[Value]| -> BTreeSet<String> {
        heard
            .iter()
            .map(|e| {
                e["detail"]["eventId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    };
    let expected: BTreeSet<String> = orders.iter().map(|o| format!("order/{o}/1")).collect();
    let started = Instant::now();
    while !expected.is_subset(&ids(&heard)) && started.elapsed() < Duration::from_secs(90) {
        take(&mut heard, Duration::from_secs(1));
    }
    assert!(
        before_kill > 0,
        "make dev was killed before it published anything"
    );
    assert_eq!(
        ids(&heard),
        expected,
        "every order's event, none other ({before_kill} heard before the kill)"
    );
    // However often an event came, it is the same event.
    let mut details: BTreeMap<String, String> = BTreeMap::new();
    for envelope in &heard {
        let detail = envelope["detail"].clone();
        let id = detail["eventId"].as_str().unwrap_or_default().to_owned();
        let text = detail.to_string();
        assert_eq!(details.entry(id).or_insert_with(|| text.clone()), &text);
    }
    // Each placed order emailed once, across the kill. A message the killed process had taken
    // from the queue comes back after the queue's visibility timeout (90 s), and an email it
    // had claimed is taken over once its claim lapses (60 s): up to three minutes.
    let count_of = |emails: &[local_engine::bus::SentEmail]| -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for email in emails {
            *counts.entry(email.subject.clone()).or_insert(0) += 1;
        }
        counts
    };
    let emails = until(
        Duration::from_secs(200),
        || bus.emails().expect("emails"),
        |emails| count_of(emails).len() >= orders.len(),
    );
    let counts = count_of(&emails);
    for order in &orders {
        assert_eq!(
            counts.get(&format!("Your order {order} is placed")),
            Some(&1),
            "{counts:?}"
        );
    }
}
