//! The customers' emails against their own engine and their own SES and bus (moto's server, one
//! per test, with template.yaml's rule and queues on it): one email per event however often it
//! arrives, none for a customer without an address, the mail service's faults and refusals,
//! and the template's rule sending exactly the events it is meant for.

use std::time::Duration;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};
use functions::email_customers::{Handled, Mailer};
use local_engine::bus::{LocalBus, Provisioned};
use local_engine::declared::as_function;
use local_engine::faults::{Fault, Faults};
use local_engine::testing::TestApp;
use serde_json::{Value, json};
use shared::domain::email::EmailState;
use shared::domain::event::{EventId, EventType, SOURCE};
use shared::dynamo::emails::Claim;
use shared::dynamo::entities::customer_email;

const SENDER: &str = "orders@store.example";

struct Harness {
    app: TestApp,
    bus: LocalBus,
    made: Provisioned,
    faults: Faults,
    mailer: Mailer,
}

impl Harness {
    async fn new() -> Self {
        let app = TestApp::seeded().await.expect("app");
        let (bus, made) = LocalBus::provisioned_for_test(&[("EmailSender", SENDER)])
            .await
            .expect("moto, with the template's bus");
        let faults = Faults::default();
        let mailer = Mailer {
            store: app.store.clone(),
            ses: bus.sesv2_through(&faults),
            sender: SENDER.to_owned(),
        };
        Self {
            app,
            bus,
            made,
            faults,
            mailer,
        }
    }

    async fn handle(&self, event: SqsEvent) -> SqsBatchResponse {
        as_function(
            "email-customers",
            functions::email_customers::handle(&self.mailer, event, Duration::from_secs(10)),
        )
        .await
    }

    async fn one(&self, message: &SqsMessage) -> Result<Handled, String> {
        as_function(
            "email-customers",
            functions::email_customers::handle_message(&self.mailer, message),
        )
        .await
    }

    fn emails(&self) -> Vec<local_engine::bus::SentEmail> {
        self.bus.emails().expect("moto's emails")
    }
}

/// The sample event's first message (events/email-customers.json): o100 placed, for c1.
fn sample() -> SqsEvent {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../events/email-customers.json"
    ))
    .expect("the sample event");
    serde_json::from_str(&text).expect("an SQS event")
}

/// A message `id` carrying the store's event `detail` in EventBridge's envelope.
fn message(id: &str, detail: &Value) -> SqsMessage {
    let envelope = json!({
        "version": "0", "id": format!("eb-{id}"), "detail-type": detail["type"],
        "source": SOURCE, "account": "123456789012", "time": detail["occurredAt"],
        "region": "us-east-1", "resources": [], "detail": detail,
    });
    let mut message = SqsMessage::default();
    message.message_id = Some(id.to_owned());
    message.body = Some(envelope.to_string());
    message
}

fn batch(messages: Vec<SqsMessage>) -> SqsEvent {
    let mut event = SqsEvent::default();
    event.records = messages;
    event
}

fn failed(response: &SqsBatchResponse) -> Vec<String> {
    response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.clone())
        .collect()
}

fn sample_detail() -> Value {
    let body = sample().records[0].body.clone().expect("a body");
    serde_json::from_str::<Value>(&body).expect("json")["detail"].clone()
}

/// The email record of `event`, read as it is stored (its state and the mail service's ID).
async fn state(h: &Harness, event: &str) -> Option<(EmailState, Option<String>)> {
    let id = EventId::parse(event).expect("id");
    let out = h
        .app
        .engine
        .client()
        .get_item()
        .table_name(local_engine::LOCAL_TABLE)
        .set_key(Some(customer_email::key(&id)))
        .consistent_read(true)
        .send()
        .await
        .expect("read");
    out.item
        .map(customer_email::from_item)
        .transpose()
        .expect("an email record")
        .map(|email| (email.state, email.message_id))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_placed_is_emailed_once_however_often_it_arrives() {
    let h = Harness::new().await;
    let response = h.handle(sample()).await;
    assert_eq!(failed(&response), Vec::<String>::new());
    let emails = h.emails();
    assert_eq!(emails.len(), 1, "{emails:?}");
    let email = &emails[0];
    assert_eq!(email.to, ["ana@example.com"]);
    assert_eq!(email.source, SENDER);
    assert_eq!(email.subject, "Your order o100 is placed");
    assert!(
        email.body.contains("2 × Stoneware mug at 19.95 USD"),
        "{}",
        email.body
    );
    assert!(email.body.contains("Total: 39.90 USD"), "{}", email.body);
    // The same message again, and the same event under another message (EventBridge's
    // at-least-once): no second email.
    let again = batch(vec![
        sample().records[0].clone(),
        message("another-delivery", &sample_detail()),
    ]);
    assert_eq!(failed(&h.handle(again).await), Vec::<String>::new());
    assert_eq!(h.emails().len(), 1);
    assert_eq!(h.one(&sample().records[0]).await, Ok(Handled::Duplicate));
    let (sent, message_id) = state(&h, "order/o100/2").await.expect("a record");
    assert_eq!(
        (sent, message_id),
        (EmailState::Sent, Some(emails[0].id.clone()))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_customer_without_an_address_gets_none_and_the_event_is_done() {
    let h = Harness::new().await;
    let mut detail = sample_detail();
    detail["eventId"] = json!("order/o-nobody/2");
    detail["customerId"] = json!("c-nobody");
    detail["order"]["customerId"] = json!("c-nobody");
    let handled = h.one(&message("m1", &detail)).await;
    assert!(matches!(handled, Ok(Handled::NotSent(_))), "{handled:?}");
    assert_eq!(h.emails(), []);
    assert_eq!(
        state(&h, "order/o-nobody/2").await.map(|s| s.0),
        Some(EmailState::NoAddress)
    );
    assert_eq!(h.one(&message("m2", &detail)).await, Ok(Handled::Duplicate));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refund_paid_is_emailed_to_its_orders_customer_in_its_currency() {
    let h = Harness::new().await;
    let detail = json!({
        "eventId": "refund/rf_1/2", "type": "refund.succeeded", "version": 1,
        "occurredAt": "2026-10-09T10:00:00Z", "sequence": 2, "orderId": "o100",
        "refund": {"refundId": "rf_1", "orderId": "o100", "paymentId": "pi_1", "amount": 1995,
            "currency": "usd", "kind": "staff", "reason": "arrived broken",
            "status": "SUCCEEDED", "requestedAt": "2026-10-09T09:00:00Z", "restock": true},
    });
    assert_eq!(h.one(&message("m1", &detail)).await, Ok(Handled::Sent));
    let emails = h.emails();
    assert_eq!(emails.len(), 1);
    assert_eq!(emails[0].to, ["ana@example.com"], "o100 is c1's");
    assert_eq!(emails[0].subject, "We refunded 19.95 USD for order o100");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_customers_are_not_emailed_about_are_acknowledged() {
    let h = Harness::new().await;
    let mut detail = sample_detail();
    detail["type"] = json!("order.shipped");
    assert_eq!(h.one(&message("m1", &detail)).await, Ok(Handled::Ignored));
    let mut unreadable = SqsMessage::default();
    unreadable.message_id = Some("garbled".into());
    unreadable.body = Some("not an event".into());
    let response = h
        .handle(batch(vec![unreadable, message("m2", &detail)]))
        .await;
    assert_eq!(
        failed(&response),
        ["garbled"],
        "only the unreadable one, which its queue sends on to the dead-letter queue"
    );
    assert_eq!(h.emails(), []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mail_service_that_fails_leaves_the_message_to_come_again_unclaimed() {
    let h = Harness::new().await;
    // Past the SDK's own four attempts.
    h.faults.inject("SendEmail", Fault::InternalServerError, 4);
    let response = h.handle(sample()).await;
    assert_eq!(failed(&response), ["2f1c7a9e-4b3d-4e8f-9c6a-1d2e3f4a5b6c"]);
    assert_eq!(h.emails(), []);
    assert_eq!(
        state(&h, "order/o100/2").await,
        None,
        "the claim was given up"
    );
    // The queue hands it over again: sent, once.
    assert_eq!(h.one(&sample().records[0]).await, Ok(Handled::Sent));
    assert_eq!(h.emails().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_email_the_mail_service_refuses_is_recorded_and_not_tried_again() {
    let h = Harness::new().await;
    // An address SES has not verified: moto refuses it as SES does (MessageRejected).
    let unverified = Mailer {
        sender: "someone@elsewhere.example".to_owned(),
        ..h.mailer.clone()
    };
    let handled = as_function(
        "email-customers",
        functions::email_customers::handle_message(&unverified, &sample().records[0]),
    )
    .await;
    match handled {
        Ok(Handled::NotSent(why)) => assert!(why.contains("MessageRejected"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        state(&h, "order/o100/2").await.map(|s| s.0),
        Some(EmailState::Refused)
    );
    assert_eq!(h.one(&sample().records[0]).await, Ok(Handled::Duplicate));
    assert_eq!(h.emails(), []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_senders_claim_holds_the_email_back_until_it_lapses() {
    let h = Harness::new().await;
    let id = EventId::parse("order/o100/2").expect("id");
    let store = h.app.direct_store();
    let first = store
        .claim_email(
            &id,
            EventType::Placed,
            functions::email_customers::CLAIM_LEASE,
        )
        .await
        .expect("claim");
    assert!(matches!(first, Claim::Claimed(_)), "{first:?}");
    let response = h.handle(sample()).await;
    assert_eq!(
        failed(&response).len(),
        1,
        "busy: the queue hands it over later"
    );
    assert_eq!(h.emails(), []);
    // A claim older than the lease is a sender that died sending: taken over.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let lapsed = store
        .claim_email(&id, EventType::Placed, Duration::ZERO)
        .await
        .expect("claim");
    assert!(matches!(lapsed, Claim::Claimed(_)), "{lapsed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_templates_rule_sends_the_email_queue_exactly_the_events_customers_hear_of() {
    let h = Harness::new().await;
    let queue = h.made.queue("CustomerEmailQueue").expect("the email queue");
    let eventbridge = h.bus.eventbridge();
    let all: Vec<&str> = EventType::ALL.iter().map(|kind| kind.as_str()).collect();
    for kind in &all {
        let sent = eventbridge
            .put_events()
            .entries(
                aws_sdk_eventbridge::types::PutEventsRequestEntry::builder()
                    .event_bus_name(&h.made.bus)
                    .source(SOURCE)
                    .detail_type(*kind)
                    .detail(json!({"type": kind}).to_string())
                    .build(),
            )
            .send()
            .await
            .expect("put");
        assert_eq!(sent.failed_entry_count(), 0);
    }
    // Another source's event of a matching type reaches no one here.
    eventbridge
        .put_events()
        .entries(
            aws_sdk_eventbridge::types::PutEventsRequestEntry::builder()
                .event_bus_name(&h.made.bus)
                .source("someone-else")
                .detail_type("order.placed")
                .detail("{}")
                .build(),
        )
        .send()
        .await
        .expect("put");
    let mut arrived = Vec::new();
    loop {
        let bodies = h
            .bus
            .take(queue, Duration::from_millis(300))
            .await
            .expect("take");
        if bodies.is_empty() {
            break;
        }
        for body in bodies {
            let envelope: Value = serde_json::from_str(&body).expect("json");
            assert_eq!(envelope["source"], SOURCE);
            arrived.push(envelope["detail-type"].as_str().expect("type").to_owned());
        }
    }
    arrived.sort();
    let mut meant: Vec<String> = EventType::ALL
        .iter()
        .filter(|kind| kind.emails_customer())
        .map(|kind| kind.as_str().to_owned())
        .collect();
    meant.sort();
    assert_eq!(arrived, meant);
}
