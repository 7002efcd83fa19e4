//! Every request the client sends, held to the provider's published description of it: each
//! form field and query parameter exists for its operation, with the type it declares (an
//! integer, one of an enum's values, an array, metadata), every required one is sent, and
//! `Stripe-Version` names the API version that description is of. The description is
//! `stripe-params.json`, extracted by `local/stripe_params.py` from stripe-node's declarations,
//! which are generated from stripe/openapi (`make stripe-params` makes it again).
//!
//! The client talks to a server here that records each request and answers as the provider
//! would, so what is checked is what goes on the wire.

use std::sync::{Arc, Mutex};

use payment_provider::Provider;
use payment_provider::client::API_VERSION;
use serde_json::{Value, json};
use shared::domain::checkout::Currency;
use shared::domain::ids::{CustomerId, OrderId, PaymentId, ProviderRefundId, RefundId};
use shared::domain::refund::{Refund, RefundKind};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One request as it went on the wire.
#[derive(Debug, Clone)]
struct Sent {
    method: String,
    path: String,
    query: Vec<(String, String)>,
    form: Vec<(String, String)>,
    version: Option<String>,
}

/// What the provider answers `path`, as far as the client reads it.
fn answer(method: &str, path: &str) -> Value {
    let intent = |status: &str| {
        json!({"id": "pi_1", "object": "payment_intent", "amount": 4395, "currency": "usd",
               "status": status, "client_secret": "pi_1_secret_x"})
    };
    let refund = json!({"id": "re_1", "object": "refund", "amount": 100, "currency": "usd",
                        "payment_intent": "pi_1", "status": "succeeded",
                        "metadata": {"refundId": "rf_1"}});
    match (method, path) {
        ("POST", "/v1/payment_intents/pi_1/cancel") => intent("canceled"),
        (_, p) if p.starts_with("/v1/payment_intents") => intent("requires_payment_method"),
        ("GET", "/v1/refunds") => json!({"object": "list", "data": [refund]}),
        _ => refund,
    }
}

fn pairs(text: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(text.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// A server that records every request and answers it; its base URL.
async fn recorder() -> (String, Arc<Mutex<Vec<Sent>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let sent = Arc::new(Mutex::new(Vec::new()));
    let log = sent.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut raw = Vec::new();
            let mut buf = [0u8; 4096];
            let (head, body) = loop {
                let n = socket.read(&mut buf).await.unwrap_or(0);
                if n == 0 {
                    break (String::new(), String::new());
                }
                raw.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&raw).into_owned();
                if let Some((head, body)) = text.split_once("\r\n\r\n") {
                    let length = head
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if body.len() >= length {
                        break (head.to_owned(), body.to_owned());
                    }
                }
            };
            let mut lines = head.lines();
            let first: Vec<&str> = lines.next().unwrap_or("").split(' ').collect();
            let (method, target) = (first[0].to_owned(), first.get(1).copied().unwrap_or(""));
            let (path, query) = target.split_once('?').unwrap_or((target, ""));
            let version = lines.find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("stripe-version")
                    .then(|| value.trim().to_owned())
            });
            let reply = answer(&method, path).to_string();
            log.lock().expect("log").push(Sent {
                method: method.clone(),
                path: path.to_owned(),
                query: pairs(query),
                form: pairs(&body),
                version,
            });
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
            let _ = socket.write_all(response.as_bytes()).await;
        }
    });
    (base, sent)
}

/// The operation of the description a request is: its method and its path's template.
fn operation(sent: &Sent) -> String {
    let template = match sent.path.as_str() {
        "/v1/payment_intents/pi_1" => "/v1/payment_intents/{intent}",
        "/v1/payment_intents/pi_1/cancel" => "/v1/payment_intents/{intent}/cancel",
        "/v1/refunds/re_1" => "/v1/refunds/{refund}",
        other => other,
    };
    format!("{} {template}", sent.method)
}

/// What is wrong with `field` = `value` under `params` (none: it is as described).
fn wrong(params: &Value, field: &str, value: &str) -> Option<String> {
    let (top, rest) = field.split_once('[').map_or((field, ""), |(t, r)| (t, r));
    let Some(param) = params.get(top) else {
        return Some(format!("{field}: no such parameter"));
    };
    let kind = param["type"].as_str().unwrap_or("");
    let fine = match kind {
        "integer" => rest.is_empty() && value.parse::<i64>().is_ok(),
        "boolean" => rest.is_empty() && (value == "true" || value == "false"),
        "string" => {
            rest.is_empty()
                && param["enum"]
                    .as_array()
                    .is_none_or(|values| values.iter().any(|v| v == value))
        }
        "array" => {
            rest == "]" && wrong(&json!({ "item": param["items"] }), "item", value).is_none()
        }
        "metadata" => rest.ends_with(']') && !rest.contains('['),
        _ => false,
    };
    (!fine).then(|| format!("{field}={value}: not a {kind} as declared ({param})"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_is_one_the_providers_description_admits() {
    let description: Value =
        serde_json::from_str(include_str!("stripe-params.json")).expect("the description");
    assert_eq!(
        description["apiVersion"], API_VERSION,
        "the client pins the API version its requests are held to"
    );
    let (base, sent) = recorder().await;
    let provider = Provider::new(&base, "sk_test_x");
    let order = OrderId::parse("o1").expect("id");
    let intent = PaymentId::parse("pi_1").expect("id");
    let currency = Currency::parse("usd").expect("currency");
    let customer = CustomerId::parse("c1").expect("id");
    provider
        .create_payment_intent(&order, &customer, 4395, &currency)
        .await
        .expect("create");
    provider.warm_up().await;
    provider
        .retrieve_payment_intent(&intent)
        .await
        .expect("retrieve");
    provider
        .cancel_payment_intent(&intent)
        .await
        .expect("cancel");
    let refund = Refund::requested(
        RefundId::parse("rf_1").expect("id"),
        Some(order.clone()),
        intent.clone(),
        100,
        "usd",
        RefundKind::Staff,
        "damaged".into(),
    );
    provider.create_refund(&refund).await.expect("refund");
    provider.find_refund(&refund).await.expect("find");
    let made = ProviderRefundId::parse("re_1").expect("id");
    provider
        .retrieve_refund(&made)
        .await
        .expect("retrieve refund");

    let sent = sent.lock().expect("log").clone();
    assert!(
        sent.iter().any(|s| s.method == "GET"
            && s.path == "/v1/refunds"
            && s.query == [("limit".to_owned(), "1".to_owned())]),
        "the warm-up's list of one refund was sent: {sent:?}"
    );
    let operations = &description["operations"];
    let mut seen: Vec<String> = sent.iter().map(operation).collect();
    seen.sort();
    seen.dedup();
    let mut described: Vec<String> = operations
        .as_object()
        .expect("operations")
        .keys()
        .cloned()
        .collect();
    described.sort();
    assert_eq!(
        seen, described,
        "each operation the client sends, and only those"
    );
    let mut problems = Vec::new();
    for request in &sent {
        let op = operation(request);
        let params = &operations[&op];
        assert_eq!(request.version.as_deref(), Some(API_VERSION), "{op}");
        let fields: Vec<&(String, String)> = request.query.iter().chain(&request.form).collect();
        for (field, value) in &fields {
            if let Some(problem) = wrong(params, field, value) {
                problems.push(format!("{op}: {problem}"));
            }
        }
        for (name, param) in params.as_object().expect("params") {
            let sent_it = fields
                .iter()
                .any(|(f, _)| f == name || f.starts_with(&format!("{name}[")));
            if param["required"] == true && !sent_it {
                problems.push(format!("{op}: the required {name} is not sent"));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The check can fail: a field the description does not have, a value its enum does not
/// hold, a text where it declares an integer.
#[test]
fn what_the_description_does_not_admit_is_found() {
    let description: Value =
        serde_json::from_str(include_str!("stripe-params.json")).expect("the description");
    let create = &description["operations"]["POST /v1/payment_intents"];
    assert!(wrong(create, "amount", "4395").is_none());
    assert!(wrong(create, "metadata[orderId]", "o1").is_none());
    assert!(wrong(create, "payment_method_types[]", "card").is_none());
    assert!(wrong(create, "amount", "43.95").is_some());
    assert!(wrong(create, "capture_method", "whenever").is_some());
    assert!(
        wrong(create, "payment_method_types", "card").is_some(),
        "an array is sent as []"
    );
    assert!(wrong(create, "no_such_field", "x").is_some());
}
