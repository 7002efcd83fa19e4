//! The runtime backstop of the declarations in `shared::permissions`: each function's handler
//! runs its sample events (and the other requests it can make: a cancellation, a replaced
//! product, a hold paid; and each error path's sample in `events/cases/`) on the embedded engine through make dev's journaled client, and every
//! request it sent, reads included and one action of a transaction at a time, must be one its
//! binary declares: the operation, the entity its key names (or the index partition it reads),
//! and for a write the attributes it names. `grants.rs` holds template.yaml to the same
//! declarations, so a request sent here that passes is a request IAM allows.

use std::collections::BTreeSet;

use local_engine::journal::{Calls, DynamoCall};
use local_engine::testing::{Case, TestApp, cases, from_event_file, from_event_text};
use local_engine::{LOCAL_TABLE, seed};
use serde_json::Value;
use shared::Store;
use shared::dynamo::keys::{self, Entity};
use shared::dynamo::query::Index;
use shared::permissions;
use template_tests as template;
use template_tests::functions;

use crate::grants::{TABLE, index_arn, needed};

/// One request as IAM sees it: the action, the resource, the partition key, the sort key (for
/// an item), and the attributes a write names.
#[derive(Debug, Clone)]
struct Sent {
    action: &'static str,
    resource: String,
    pk: String,
    sk: Option<String>,
    attributes: BTreeSet<String>,
}

/// The requests of one call: a read, a write, each key of a BatchGetItem, or each action of a
/// TransactWriteItems (which IAM authorizes as the PutItem, UpdateItem, ... it holds).
fn sent_of(call: &DynamoCall) -> Vec<Sent> {
    let item = |action: &'static str, request: &Value, keys: &Value| -> Option<Sent> {
        let text = |name: &str| keys[name]["S"].as_str().map(str::to_owned);
        let mut attributes: BTreeSet<String> = keys
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, _)| name.clone())
            .collect();
        attributes.extend(top_level_names(request));
        Some(Sent {
            action,
            resource: TABLE.to_owned(),
            pk: text(keys::PK)?,
            sk: Some(text(keys::SK)?),
            attributes,
        })
    };
    let request = &call.request;
    match call.operation.as_str() {
        "GetItem" => item("dynamodb:GetItem", request, &request["Key"])
            .into_iter()
            .collect(),
        "PutItem" => item("dynamodb:PutItem", request, &request["Item"])
            .into_iter()
            .collect(),
        "UpdateItem" => item("dynamodb:UpdateItem", request, &request["Key"])
            .into_iter()
            .collect(),
        "DeleteItem" => item("dynamodb:DeleteItem", request, &request["Key"])
            .into_iter()
            .collect(),
        "BatchGetItem" => request["RequestItems"]
            .as_object()
            .into_iter()
            .flatten()
            .flat_map(|(_, table)| table["Keys"].as_array().cloned().unwrap_or_default())
            .filter_map(|keys| item("dynamodb:BatchGetItem", &Value::Null, &keys))
            .collect(),
        "Query" => {
            let index = match request["IndexName"].as_str() {
                None => Index::Table,
                Some(keys::GSI1) => Index::Gsi1,
                Some(keys::GSI2) => Index::Gsi2,
                Some(other) => panic!("a Query on an unknown index {other}"),
            };
            let pk = request["ExpressionAttributeValues"][":pk"]["S"]
                .as_str()
                .unwrap_or_else(|| panic!("a Query without :pk: {request}"));
            vec![Sent {
                action: "dynamodb:Query",
                resource: index_arn(index),
                pk: pk.to_owned(),
                sk: None,
                attributes: BTreeSet::new(),
            }]
        }
        "TransactWriteItems" => request["TransactItems"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|action| {
                for (kind, iam, keys) in [
                    ("Put", "dynamodb:PutItem", "Item"),
                    ("Update", "dynamodb:UpdateItem", "Key"),
                    ("Delete", "dynamodb:DeleteItem", "Key"),
                    ("ConditionCheck", "dynamodb:ConditionCheckItem", "Key"),
                ] {
                    if !action[kind].is_null() {
                        return item(iam, &action[kind], &action[kind][keys]);
                    }
                }
                None
            })
            .collect(),
        other => panic!("an operation the declarations cannot say: {other}"),
    }
}

/// The attributes a request's expressions name, as IAM's `dynamodb:Attributes` counts them: the
/// first name of each document path (`#held.#held_0` names `held`; the entry's key is no
/// attribute).
fn top_level_names(request: &Value) -> Vec<String> {
    let names = &request["ExpressionAttributeNames"];
    let mut out = Vec::new();
    for field in [
        "UpdateExpression",
        "ConditionExpression",
        "ProjectionExpression",
    ] {
        let text = request[field].as_str().unwrap_or_default();
        let mut previous = ' ';
        for (at, c) in text.char_indices() {
            if c == '#' && previous != '.' {
                let rest = &text[at..];
                let end = rest[1..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(rest.len(), |end| end + 1);
                let name = names[&rest[..end]]
                    .as_str()
                    .unwrap_or_else(|| panic!("{} unbound in {request}", &rest[..end]));
                out.push(name.to_owned());
            }
            previous = c;
        }
    }
    out
}

/// `pk` is one that a LeadingKeys pattern (`CUSTOMER#*`) admits.
fn admits(pattern: &str, pk: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => pk.starts_with(prefix),
        None => pk == pattern,
    }
}

/// Whether `binary`'s declaration covers `sent`: a declared request of the same action and
/// resource, whose partitions admit its key, of the entity its key names, naming no attribute
/// the declaration does not.
fn declared(function: &permissions::Function, sent: &Sent) -> bool {
    if sent.action == "dynamodb:GetItem" && sent.pk == keys::warm_up::PK {
        return true;
    }
    function.sends.iter().any(|sends| {
        let entity_fits = match (&sent.sk, sends.entity()) {
            (Some(sk), Some(entity)) => Entity::of(&sent.pk, sk) == Some(entity),
            (None, _) => true,
            (Some(_), None) => false,
        };
        entity_fits
            && needed(*sends).iter().any(|need| {
                need.action == sent.action
                    && need.resource == sent.resource
                    && need
                        .leading_keys
                        .as_deref()
                        .is_some_and(|pattern| admits(pattern, &sent.pk))
                    && need
                        .attributes
                        .as_ref()
                        .is_none_or(|names| sent.attributes.iter().all(|a| names.contains(a)))
            })
    })
}

/// What the function behind `binary` sends, request by request, over its scenarios; a
/// scenario's setup requests (another function's) are run unrecorded.
async fn observed(binary: &str) -> Vec<Sent> {
    let mut writes = Vec::new();
    for scenario in scenarios(binary) {
        let app = TestApp::empty().await.expect("engine");
        seed::seed_if_empty(&app.engine.client(), LOCAL_TABLE)
            .await
            .expect("seed");
        // The template caps open orders and units held: the places and units taken and given
        // back are written too.
        let store = Store::new(app.engine.dev_client(), LOCAL_TABLE)
            .with_max_open_orders(Some(10))
            .with_max_held_quantity(Some(100));
        let calls = Calls::default();
        for step in &scenario {
            // What a step reads to build its request (the hold a payment pays) is not the
            // function's own request.
            let prepared = prepare(&store, step).await;
            if step.binary == binary {
                calls.record(run(&store, step, prepared)).await;
            } else {
                run(&store, step, prepared).await;
            }
        }
        let recorded = calls.take();
        writes.extend(
            recorded
                .iter()
                .filter(|c| c.error.is_none())
                .flat_map(sent_of),
        );
    }
    writes
}

/// One request of a scenario: a sample event (`events/<event>.json`), with its body replaced
/// when asked, or an error path's (`events/cases/`).
#[derive(Clone)]
struct Step {
    event: String,
    body: Option<&'static str>,
    /// The binary that serves the event's route (the stream consumer's event has none).
    binary: &'static str,
    /// An error path's event and the status it answers.
    case: Option<Case>,
}

impl Step {
    fn file(&self) -> String {
        match &self.case {
            Some(case) => case.path.to_string_lossy().into_owned(),
            None => format!(
                "{}/../events/{}.json",
                env!("CARGO_MANIFEST_DIR"),
                self.event
            ),
        }
    }
}

/// The requests that make each function write all it can: its sample event first.
fn scenarios(binary: &str) -> Vec<Vec<Step>> {
    let step = |event: &str, body| {
        let file = format!("{}/../events/{event}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(file).expect("event");
        let parsed: Value = serde_json::from_str(&text).expect("json");
        let binary = match event {
            // The schedules' events name no route.
            "expire-holds" => "expire-holds",
            "pay-refunds" => "pay-refunds",
            _ => parsed["routeKey"]
                .as_str()
                .and_then(shared::http::routes::find)
                .map_or("order-stats", |route| route.binary),
        };
        Step {
            event: event.to_owned(),
            body,
            binary,
            case: None,
        }
    };
    // A hold checked out and paid: what a refund needs.
    let paid = || {
        vec![
            step("checkout", None),
            step("payment-webhook", Some(PAY_THE_HOLD)),
        ]
    };
    let mut all = match binary {
        // The sample refunds o100, which was placed without payment (a 409, its case below):
        // a paid order's refund, with restock, then its cancellation's.
        "refund-order" => {
            vec![[paid(), vec![step("refund-order", Some(REFUND_THE_PAID))]].concat()]
        }
        // The refunds sent: a staff refund and a cancellation's, then the payer.
        "pay-refunds" => vec![
            [
                paid(),
                vec![
                    step("refund-order", Some(REFUND_THE_PAID)),
                    step("update-order-status", Some(CANCEL_THE_PAID)),
                    step("pay-refunds", None),
                ],
            ]
            .concat(),
        ],
        _ => vec![vec![step(binary, None)]],
    };
    // Each error path's sample, alone on the sample data.
    for case in cases().expect("events/cases/") {
        if case.binary == binary {
            let mut alone = step(binary, None);
            alone.case = Some(case);
            all.push(vec![alone]);
        }
    }
    match binary {
        // A cancellation: the stock given back, the place under the cap released; and a paid
        // order's, which requests its refund.
        "update-order-status" => {
            all.push(vec![
                step(
                    "place-order",
                    Some(r#"{"items":[{"sku":"sku-1","quantity":1}]}"#),
                ),
                step("update-order-status", Some(r#"{"status":"CANCELLED"}"#)),
            ]);
            all.push(
                [
                    paid(),
                    vec![step("update-order-status", Some(CANCEL_THE_PAID))],
                ]
                .concat(),
            );
        }
        // The ledger.
        "get-order" => all.push(vec![step("get-order-payments", None)]),
        // A line removed, and the cart emptied.
        "edit-cart" => {
            all.push(vec![
                step("edit-cart", None),
                step("edit-cart-remove-line", None),
            ]);
            all.push(vec![step("edit-cart", None), step("edit-cart-clear", None)]);
        }
        // A hold paid: the sample's payment names no order (a refund); this one pays c2's,
        // after a declined attempt.
        // And a hold whose PaymentIntent the provider canceled.
        "payment-webhook" => {
            all.push(vec![
                step("checkout", None),
                step("payment-webhook", Some(FAIL_THE_HOLD)),
                step("payment-webhook", Some(PAY_THE_HOLD)),
            ]);
            all.push(vec![
                step("checkout", None),
                step("payment-webhook", Some(CANCEL_THE_HOLD)),
            ]);
        }
        // A hold that ended: a one-second hold, then the expiry.
        "expire-holds" => all.push(vec![
            step("checkout", Some(SHORT_HOLD)),
            step("expire-holds", None),
        ]),
        // A checkout replayed under its key: the first one's order read as it is now.
        "checkout" => all.push(vec![step("checkout", None), step("checkout", None)]),
        // The replacement of a product that exists.
        "put-product" => all.push(vec![
            step("put-product", None),
            step("put-product", Some(r#"{"name":"Teapot","price":"30.00"}"#)),
        ]),
        _ => {}
    }
    all
}

/// A webhook step's body: the provider's payment for the hold the scenario made.
const PAY_THE_HOLD: &str = "pay the hold";
/// A webhook step's body: the provider's cancellation of that hold's PaymentIntent.
const CANCEL_THE_HOLD: &str = "the hold's payment intent canceled";
/// A webhook step's body: the provider's declined attempt to pay that hold.
const FAIL_THE_HOLD: &str = "fail to pay the hold";
/// A refund step's body: the sample's refund, of the order the scenario paid for.
const REFUND_THE_PAID: &str = "refund the paid order";
/// A status step's body: the order the scenario paid for, cancelled.
const CANCEL_THE_PAID: &str = "cancel the paid order";

/// The order the scenario's payment placed (one scenario runs at a time).
static PAID: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// A checkout step's body: the sample's checkout, its hold one second long.
const SHORT_HOLD: &str = "a one-second hold";

/// The one hold in the table: its order, its amount in cents and its PaymentIntent.
async fn the_hold(store: &Store) -> (String, i64, String) {
    use aws_sdk_dynamodb::types::AttributeValue;
    let out = store
        .client()
        .query()
        .table_name(LOCAL_TABLE)
        .index_name("GSI1")
        .key_condition_expression("GSI1PK = :pk")
        .expression_attribute_values(":pk", AttributeValue::S("STATUS#PENDING_PAYMENT".into()))
        .send()
        .await
        .expect("query");
    let item = &out.items()[0];
    let total: shared::domain::money::Money = item["total"]
        .as_n()
        .ok()
        .and_then(|n| shared::domain::money::Money::parse_number(n))
        .expect("total");
    let cents = shared::domain::checkout::Currency::default()
        .minor_units(total)
        .expect("cents");
    let order = item["orderId"].as_s().expect("id").clone();
    let header = store
        .client()
        .get_item()
        .table_name(LOCAL_TABLE)
        .key("PK", AttributeValue::S(format!("ORDER#{order}")))
        .key("SK", AttributeValue::S("HEADER".into()))
        .send()
        .await
        .expect("header");
    let intent = header.item().expect("the hold's header")["paymentIntentId"]
        .as_s()
        .expect("its PaymentIntent")
        .clone();
    (order, cents, intent)
}

/// A route's request, built before the step runs (`None` for the schedule and the stream).
async fn prepare(store: &Store, step: &Step) -> Option<(Store, lambda_http::Request)> {
    match step.event.as_str() {
        "expire-holds" | "order-stats" | "pay-refunds" => None,
        _ => Some(request(store, step).await),
    }
}

async fn run(store: &Store, step: &Step, prepared: Option<(Store, lambda_http::Request)>) {
    match step.event.as_str() {
        "expire-holds" => {
            // The sample's run alone finds nothing due; after a short hold, it ends it.
            tokio::time::sleep(std::time::Duration::from_millis(3_100)).await;
            let expiry = expire_holds::Expiry {
                store: store.clone(),
                provider: local_engine::testing::provider(),
            };
            expire_holds::handle(&expiry, std::time::Duration::from_secs(5))
                .await
                .expect("expiry");
        }
        "pay-refunds" => {
            let payer = pay_refunds::Payer {
                store: store.clone(),
                provider: local_engine::testing::provider(),
            };
            let run = pay_refunds::handle(&payer, std::time::Duration::from_secs(5))
                .await
                .expect("payer");
            assert_eq!(run.sent, 2, "{run:?}");
        }
        "order-stats" => {
            let text = std::fs::read_to_string(step.file()).expect("event");
            let event = serde_json::from_str(&text).expect("stream event");
            let response = order_stats::handle(store, event).await;
            assert!(response.batch_item_failures.is_empty(), "{response:?}");
        }
        _ => {
            let (store, req) = prepared.expect("a route's request");
            let response =
                local_dev::invoke(step.binary, &local_dev::Services::for_test(&store), req)
                    .await
                    .expect("known binary");
            let answered = match &step.case {
                Some(case) => response.status().as_u16() == case.status,
                None => response.status().is_success(),
            };
            assert!(
                answered,
                "{}: {} {:?}",
                step.file(),
                response.status(),
                response.body()
            );
        }
    }
}

/// A route's step as the request sent, and the store it is sent to: the sample event (a
/// webhook's signed now), its body replaced when the step says, or the sample checkout on a
/// store whose holds last a second.
async fn request(store: &Store, step: &Step) -> (Store, lambda_http::Request) {
    let mut req = from_event_file(&step.file()).expect("event");
    if step.case.is_some() {
        // An error path's event is sent as it is (a stale signature is what a case may test).
        return (store.clone(), req);
    }
    if step.event == "payment-webhook" {
        let body = match step.body {
            Some(PAY_THE_HOLD) => {
                let (order, amount, intent) = the_hold(store).await;
                *PAID.lock().expect("lock") = Some(order.clone());
                local_engine::testing::payments::succeeded(
                    "evt_observed",
                    &intent,
                    amount,
                    "usd",
                    &order,
                )
            }
            Some(CANCEL_THE_HOLD) => {
                let (order, amount, intent) = the_hold(store).await;
                serde_json::json!({
                    "id": "evt_observed_canceled",
                    "type": "payment_intent.canceled",
                    "data": {"object": {
                        "id": intent, "amount": amount, "currency": "usd",
                        "metadata": {"orderId": order},
                    }},
                })
                .to_string()
            }
            Some(FAIL_THE_HOLD) => {
                let (order, amount, intent) = the_hold(store).await;
                serde_json::json!({
                    "id": "evt_observed_failed",
                    "type": "payment_intent.payment_failed",
                    "data": {"object": {
                        "id": intent, "amount": amount, "currency": "usd",
                        "last_payment_error": {"message": "Your card was declined."},
                        "metadata": {"orderId": order},
                    }},
                })
                .to_string()
            }
            _ => String::from_utf8_lossy(req.body()).into_owned(),
        };
        return (
            store.clone(),
            local_engine::testing::payments::webhook(&body),
        );
    }
    if let Some(REFUND_THE_PAID | CANCEL_THE_PAID) = step.body {
        let order = PAID.lock().expect("lock").clone().expect("a paid order");
        let text = std::fs::read_to_string(step.file())
            .expect("event")
            .replace("o100", &order);
        let mut req = from_event_text(&text).expect("event");
        if step.body == Some(CANCEL_THE_PAID) {
            *req.body_mut() = lambda_http::Body::Text(r#"{"status":"CANCELLED"}"#.to_owned());
        }
        return (store.clone(), req);
    }
    match step.body {
        Some(SHORT_HOLD) => {
            return (local_engine::testing::payments::briefly_held(store), req);
        }
        Some(body) => *req.body_mut() = lambda_http::Body::Text(body.to_owned()),
        None => {}
    }
    (store.clone(), req)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_the_code_sends_is_one_its_binary_declares() {
    let template = template::parse().expect("template");
    let mut checked = 0;
    for (name, resource) in functions(&template) {
        let binary = resource["Metadata"]["BuildProperties"]["Binary"]
            .as_str()
            .expect("binary");
        let function = permissions::of(binary).expect("declared");
        let sent = observed(binary).await;
        for request in &sent {
            assert!(
                declared(function, request),
                "{name}: {binary} sent {request:?}, which shared::permissions does not declare"
            );
        }
        checked += usize::from(!sent.is_empty());
    }
    assert!(checked >= 15, "only {checked} functions sent anything");
}
