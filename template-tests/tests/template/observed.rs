//! The write grants, held to what the code really sends. Each function's handler runs its
//! sample event (and the other writes it can make: a cancellation, a replaced product) on the
//! embedded engine through make dev's journaled client; every write request it sent, one action
//! of a transaction at a time, is read for its partition and the attribute names it touches.
//! The embedded engine enforces no IAM, so this is what stands between a new `SET #x` and an
//! AccessDenied in AWS: a write no grant of the template allows fails here, and so does an
//! attribute a grant allows that nothing writes.

use std::collections::{BTreeMap, BTreeSet};

use local_engine::journal::{Calls, DynamoCall};
use local_engine::testing::{TestApp, from_event_file};
use local_engine::{LOCAL_TABLE, seed};
use serde_json::Value;
use shared::Store;
use shared::dynamo::entities;
use shared::dynamo::keys::{self, Entity};
use template_tests as template;
use template_tests::functions;

use crate::grants::{ATTRIBUTES, Grant, LEADING_KEYS, TABLE, grants};

/// One write as IAM sees it: the action, the partition key, the sort key, the attributes.
#[derive(Debug, Clone)]
struct Write {
    action: &'static str,
    pk: String,
    sk: String,
    attributes: BTreeSet<String>,
}

/// The writes of one request body: a PutItem, an UpdateItem, or each action of a
/// TransactWriteItems (which IAM authorizes as the PutItem, UpdateItem, ... it holds).
fn writes_of(call: &DynamoCall) -> Vec<Write> {
    let one = |action: &'static str, request: &Value| -> Option<Write> {
        let keys = if action == "dynamodb:PutItem" {
            &request["Item"]
        } else {
            &request["Key"]
        };
        let text = |name: &str| keys[name]["S"].as_str().map(str::to_owned);
        let mut attributes: BTreeSet<String> = keys
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, _)| name.clone())
            .collect();
        attributes.extend(
            request["ExpressionAttributeNames"]
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(_, name)| name.as_str().map(str::to_owned)),
        );
        Some(Write {
            action,
            pk: text(keys::PK)?,
            sk: text(keys::SK)?,
            attributes,
        })
    };
    let request = &call.request;
    match call.operation.as_str() {
        "PutItem" => one("dynamodb:PutItem", request).into_iter().collect(),
        "UpdateItem" => one("dynamodb:UpdateItem", request).into_iter().collect(),
        "DeleteItem" => one("dynamodb:DeleteItem", request).into_iter().collect(),
        "TransactWriteItems" => request["TransactItems"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|action| {
                for (kind, iam) in [
                    ("Put", "dynamodb:PutItem"),
                    ("Update", "dynamodb:UpdateItem"),
                    ("Delete", "dynamodb:DeleteItem"),
                    ("ConditionCheck", "dynamodb:ConditionCheckItem"),
                ] {
                    if !action[kind].is_null() {
                        return one(iam, &action[kind]);
                    }
                }
                None
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `pk` is one that a LeadingKeys pattern (`CUSTOMER#*`) admits.
fn admits(pattern: &str, pk: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => pk.starts_with(prefix),
        None => pk == pattern,
    }
}

/// The write grants of `function` that allow `write`.
fn allowing<'a>(grants: &'a [Grant], write: &Write) -> Vec<&'a Grant> {
    grants
        .iter()
        .filter(|g| g.action == write.action && g.resource == TABLE)
        .filter(|g| {
            g.conditions
                .get(LEADING_KEYS)
                .is_some_and(|keys| keys.iter().any(|k| admits(k, &write.pk)))
        })
        .filter(|g| {
            g.conditions
                .get(ATTRIBUTES)
                .is_some_and(|allowed| write.attributes.iter().all(|a| allowed.contains(a)))
        })
        .collect()
}

/// What the function behind `binary` writes, request by request, over its scenarios; a
/// scenario's setup requests (another function's) are run unrecorded.
async fn observed(binary: &str) -> Vec<Write> {
    let mut writes = Vec::new();
    for scenario in scenarios(binary) {
        let app = TestApp::empty().await.expect("engine");
        seed::seed_if_empty(&app.engine.client(), LOCAL_TABLE)
            .await
            .expect("seed");
        // The template caps open orders: the places taken and given back are written too.
        let store = Store::new(app.engine.dev_client(), LOCAL_TABLE).with_max_open_orders(Some(10));
        let calls = Calls::default();
        for step in &scenario {
            if step.binary == binary {
                calls.record(run(&store, step)).await;
            } else {
                run(&store, step).await;
            }
        }
        let recorded = calls.take();
        writes.extend(
            recorded
                .iter()
                .filter(|c| c.error.is_none())
                .flat_map(writes_of),
        );
    }
    writes
}

/// One request of a scenario: a sample event (`events/<event>.json`), with its body replaced
/// when asked.
struct Step {
    event: String,
    body: Option<&'static str>,
    /// The binary that serves the event's route (the stream consumer's event has none).
    binary: &'static str,
}

impl Step {
    fn file(&self) -> String {
        format!(
            "{}/../events/{}.json",
            env!("CARGO_MANIFEST_DIR"),
            self.event
        )
    }
}

/// The requests that make each function write all it can: its sample event first.
fn scenarios(binary: &str) -> Vec<Vec<Step>> {
    let step = |event: &str, body| {
        let file = format!("{}/../events/{event}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(file).expect("event");
        let parsed: Value = serde_json::from_str(&text).expect("json");
        let binary = match event {
            // The schedule's event names no route.
            "expire-holds" => "expire-holds",
            _ => parsed["routeKey"]
                .as_str()
                .and_then(shared::http::routes::find)
                .map_or("order-stats", |route| route.binary),
        };
        Step {
            event: event.to_owned(),
            body,
            binary,
        }
    };
    let mut all = vec![vec![step(binary, None)]];
    match binary {
        // A cancellation: the stock given back, the place under the cap released.
        "update-order-status" => all.push(vec![
            step(
                "place-order",
                Some(r#"{"items":[{"sku":"sku-1","quantity":1}]}"#),
            ),
            step("update-order-status", Some(r#"{"status":"CANCELLED"}"#)),
        ]),
        // A line removed, and the cart emptied.
        "edit-cart" => {
            all.push(vec![
                step("edit-cart", None),
                step("edit-cart-remove-line", None),
            ]);
            all.push(vec![step("edit-cart", None), step("edit-cart-clear", None)]);
        }
        // A hold paid: the sample's payment names no order (a refund); this one pays c2's.
        "payment-webhook" => all.push(vec![
            step("checkout", None),
            step("payment-webhook", Some(PAY_THE_HOLD)),
        ]),
        // A hold that ended: a one-second hold, then the expiry.
        "expire-holds" => all.push(vec![
            step("checkout", Some(SHORT_HOLD)),
            step("expire-holds", None),
        ]),
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
/// A checkout step's body: the sample's checkout, its hold one second long.
const SHORT_HOLD: &str = "a one-second hold";

/// The one hold in the table: its order and its amount in cents.
async fn the_hold(store: &Store) -> (String, i64) {
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
    (item["orderId"].as_s().expect("id").clone(), cents)
}

async fn run(store: &Store, step: &Step) {
    match step.event.as_str() {
        "expire-holds" => {
            // The sample's run alone finds nothing due; after a short hold, it ends it.
            tokio::time::sleep(std::time::Duration::from_millis(3_100)).await;
            expire_holds::handle(store, std::time::Duration::from_secs(5))
                .await
                .expect("expiry");
        }
        "order-stats" => {
            let text = std::fs::read_to_string(step.file()).expect("event");
            let event = serde_json::from_str(&text).expect("stream event");
            let response = order_stats::handle(store, event).await;
            assert!(response.batch_item_failures.is_empty(), "{response:?}");
        }
        _ => {
            let (store, req) = request(store, step).await;
            let response = local_dev::invoke(
                step.binary,
                &store,
                &local_engine::testing::webhook_secrets(),
                req,
            )
            .await
            .expect("known binary");
            assert!(
                response.status().is_success(),
                "{}: {} {:?}",
                step.event,
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
    if step.event == "payment-webhook" {
        let body = match step.body {
            Some(PAY_THE_HOLD) => {
                let (order, amount) = the_hold(store).await;
                local_engine::testing::payments::succeeded("evt_observed", amount, "usd", &order)
            }
            _ => String::from_utf8_lossy(req.body()).into_owned(),
        };
        return (
            store.clone(),
            local_engine::testing::payments::webhook(&body),
        );
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
async fn every_write_the_code_sends_is_granted_and_every_granted_attribute_is_written() {
    let template = template::parse().expect("template");
    let mut checked = 0;
    for (name, resource) in functions(&template) {
        let binary = resource["Metadata"]["BuildProperties"]["Binary"]
            .as_str()
            .expect("binary");
        let granted = grants(&template, resource);
        let write_grants: Vec<&Grant> = granted
            .iter()
            .filter(|g| g.conditions.contains_key(ATTRIBUTES))
            .collect();
        let writes = observed(binary).await;
        // Each grant's attributes, and those some write it allows touched.
        let mut used: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
        for write in &writes {
            let allowing = allowing(&granted, write);
            assert!(
                !allowing.is_empty(),
                "{name}: no grant allows {} on {} touching {:?}",
                write.action,
                write.pk,
                write.attributes
            );
            for grant in allowing {
                let index = write_grants
                    .iter()
                    .position(|g| std::ptr::eq(*g, grant))
                    .expect("a write grant");
                used.entry(index)
                    .or_default()
                    .extend(write.attributes.iter().cloned());
            }
            // And it is a write its entity's file declares.
            let entity = Entity::of(&write.pk, &write.sk)
                .unwrap_or_else(|| panic!("{name}: a write of no entity: {write:?}"));
            if write.action == "dynamodb:UpdateItem" {
                let beyond_keys: Vec<&String> = write
                    .attributes
                    .iter()
                    .filter(|a| ![keys::PK, keys::SK].contains(&a.as_str()))
                    .collect();
                assert!(
                    entities::updates(entity)
                        .iter()
                        .any(|declared| beyond_keys.iter().all(|a| declared.contains(&a.as_str()))),
                    "{name}: an update of {entity:?} touching {beyond_keys:?}, which its entity file does not declare"
                );
            }
        }
        for (index, grant) in write_grants.iter().enumerate() {
            let allowed: BTreeSet<String> = grant.conditions[ATTRIBUTES].iter().cloned().collect();
            let written = used.remove(&index).unwrap_or_default();
            assert_eq!(
                allowed, written,
                "{name}: {} on {:?} allows attributes nothing writes (or is never used)",
                grant.action, grant.conditions[LEADING_KEYS]
            );
        }
        checked += usize::from(!writes.is_empty());
    }
    assert!(checked >= 6, "only {checked} functions wrote anything");
}
