//! The declarations in `shared::permissions` over each function's scenarios: its sample events
//! (and the other requests it can make: a cancellation, a replaced product, a hold paid; and
//! each error path's sample in `events/cases/`) on the embedded engine through make dev's
//! client. Every test of every crate holds the requests it sends to the sending binary's
//! declaration (`local_engine::declared`); these scenarios make sure each function's every
//! kind of request is sent at least once, from its sample events, whatever its own crate's
//! tests do. `grants.rs` holds template.yaml to the same declarations, so a request that
//! passes here is one IAM allows.

use local_engine::declared::as_function;
use local_engine::testing::{Case, TestApp, cases, from_event_file, from_event_text};
use local_engine::{LOCAL_TABLE, seed};
use serde_json::Value;
use shared::Store;
use template_tests as template;
use template_tests::functions;

/// Runs `binary`'s scenarios, every request of every step held to its binary's declaration
/// (routes through `local_dev::invoke`, the schedules and the stream through
/// [`as_function`]): how many steps were `binary`'s own.
async fn run_scenarios(binary: &str) -> usize {
    let mut own = 0;
    for scenario in scenarios(binary) {
        let app = TestApp::empty().await.expect("engine");
        seed::seed_if_empty(&app.engine.client(), LOCAL_TABLE)
            .await
            .expect("seed");
        // The template caps open orders and units held: the places and units taken and given
        // back are written too.
        let store = Store::new(app.engine.dev_client(), LOCAL_TABLE)
            .with_max_open_orders(Some(10))
            .with_max_held_quantity(Some(100))
            // A bucket that only signs (forms, URLs): check-media's step reads moto's.
            .with_media(local_engine::testing::signing_only_bucket());
        for step in &scenario {
            // What a step reads to build its request (the hold a payment pays) is not the
            // function's own request.
            let prepared = prepare(&store, step).await;
            run(&store, step, prepared).await;
            own += usize::from(step.binary == binary);
        }
    }
    own
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
            // The schedules', the publisher's and the email queue's events name no route.
            "expire-holds" => "expire-holds",
            "pay-refunds" => "pay-refunds",
            "publish-events" => "publish-events",
            "email-customers" => "email-customers",
            "check-media" => "check-media",
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
        // The replacement of a product that exists: taken back to a draft (its catalog entry
        // deleted), three of its four variants dropped.
        "put-product" => all.push(vec![
            step("put-product", None),
            step(
                "put-product",
                Some(
                    r#"{"title":"Plain tee","status":"DRAFT","options":[{"name":"Size","values":["S"]},{"name":"Colour","values":["Red"]}],"variants":[{"sku":"tee-s-red","options":{"Size":"S","Colour":"Red"},"price":"18.00"}]}"#,
                ),
            ),
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
        "expire-holds" | "order-stats" | "pay-refunds" | "publish-events" | "email-customers"
        | "check-media" => None,
        _ => Some(request(store, step).await),
    }
}

async fn run(store: &Store, step: &Step, prepared: Option<(Store, lambda_http::Request)>) {
    match step.event.as_str() {
        "expire-holds" => {
            // The sample's run alone finds nothing due; after a short hold, it ends it.
            tokio::time::sleep(std::time::Duration::from_millis(3_100)).await;
            let expiry = functions::expire_holds::Expiry {
                store: store.clone(),
                provider: local_engine::testing::provider(),
            };
            as_function(
                "expire-holds",
                functions::expire_holds::handle(&expiry, std::time::Duration::from_secs(5)),
            )
            .await
            .expect("expiry");
        }
        "pay-refunds" => {
            let payer = functions::pay_refunds::Payer {
                store: store.clone(),
                provider: local_engine::testing::provider(),
            };
            let run = as_function(
                "pay-refunds",
                functions::pay_refunds::handle(&payer, std::time::Duration::from_secs(5)),
            )
            .await
            .expect("payer");
            assert_eq!(run.sent, 2, "{run:?}");
        }
        "order-stats" => {
            let text = std::fs::read_to_string(step.file()).expect("event");
            let event = serde_json::from_str(&text).expect("stream event");
            let response =
                as_function("order-stats", functions::order_stats::handle(store, event)).await;
            assert!(response.batch_item_failures.is_empty(), "{response:?}");
        }
        "publish-events" | "email-customers" => subscribe(store, step).await,
        "check-media" => check_media(store, step).await,
        _ => {
            let (store, req) = prepared.expect("a route's request");
            let response =
                local_dev::invoke(step.binary, &local_dev::Services::for_test(&store), req)
                    .await
                    .expect("known binary");
            let answered = match &step.case {
                Some(case) => response.status().as_u16() == case.status,
                // The sample names a picture the sample data does not have (a picture's object
                // would have to be in a bucket): its removal's requests are held to the
                // declaration by functions/tests/handlers/product_media.rs, on moto's S3.
                None if step.event == "remove-product-media" => response.status() == 404,
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

/// check-media's sample on moto's S3 (the template's bucket made there): an arrival whose object
/// is not in the bucket, nothing reported failed.
async fn check_media(store: &Store, step: &Step) {
    let (bus, made) = local_engine::bus::LocalBus::provisioned_for_test(&[])
        .await
        .expect("moto, with the template's bucket");
    let store = store
        .clone()
        .with_media(bus.media_bucket(&made, "MediaBucket").expect("bucket"));
    let text = std::fs::read_to_string(step.file()).expect("event");
    let event = serde_json::from_str(&text).expect("queue event");
    let response = as_function(
        "check-media",
        functions::check_media::handle(&store, event, std::time::Duration::from_secs(10)),
    )
    .await;
    assert!(response.batch_item_failures.is_empty(), "{response:?}");
}

/// The publisher's or the email subscriber's sample event, on a bus of its own (moto's
/// server, template.yaml's bus and queues made on it): nothing reported failed.
async fn subscribe(store: &Store, step: &Step) {
    let sender = "orders@store.example";
    let (bus, made) = local_engine::bus::LocalBus::provisioned_for_test(&[("EmailSender", sender)])
        .await
        .expect("the bus");
    let text = std::fs::read_to_string(step.file()).expect("event");
    let budget = std::time::Duration::from_secs(10);
    if step.event == "publish-events" {
        let publisher = functions::publish_events::Publisher {
            store: store.clone(),
            bus: functions::publish_events::Bus::new(bus.eventbridge(), made.bus.clone()),
            dead_letters: functions::publish_events::DeadLetters::new(
                bus.sqs(),
                made.queue("PublishEventsFailureQueue")
                    .expect("queue")
                    .to_owned(),
            ),
            rules: shared::dynamo::events::EventRules { low_stock: 5 },
        };
        let event = serde_json::from_str(&text).expect("stream event");
        let response = as_function(
            "publish-events",
            functions::publish_events::handle(&publisher, event, budget),
        )
        .await;
        assert!(response.batch_item_failures.is_empty(), "{response:?}");
    } else {
        let mailer = functions::email_customers::Mailer {
            store: store.clone(),
            ses: bus.sesv2(),
            sender: sender.to_owned(),
        };
        let event = serde_json::from_str(&text).expect("queue event");
        let response = as_function(
            "email-customers",
            functions::email_customers::handle(&mailer, event, budget),
        )
        .await;
        assert!(response.batch_item_failures.is_empty(), "{response:?}");
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
async fn every_request_of_every_scenario_is_one_its_binary_declares() {
    let template = template::parse().expect("template");
    let mut checked = 0;
    for (_, resource) in functions(&template) {
        let binary = resource["Metadata"]["BuildProperties"]["Binary"]
            .as_str()
            .expect("binary");
        checked += usize::from(run_scenarios(binary).await > 0);
    }
    assert!(
        checked >= 20,
        "only {checked} functions ran a scenario of their own"
    );
}
