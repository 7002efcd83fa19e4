//! The publisher against its own engine and its own EventBridge (moto's server, one per test,
//! with template.yaml's bus and queues on it): what each route and run publishes, redelivery,
//! the bus's faults and the dead-letter queue. Every event heard is held to api/events.yaml.

mod delivery;
mod events;

use std::time::Duration;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use functions::publish_events::{Bus, DeadLetters, Publisher};
use local_engine::bus::{LocalBus, Provisioned};
use local_engine::declared::as_function;
use local_engine::faults::Faults;
use local_engine::heard::{by_subject, heard};
use local_engine::streams::{self, StreamSource};
use local_engine::testing::TestApp;
use local_engine::{LOCAL_TABLE, template};
use serde_json::Value;
use shared::domain::event::SOURCE;
use shared::dynamo::events::EventRules;

/// What one test publishes with.
pub(crate) struct Harness {
    pub(crate) app: TestApp,
    pub(crate) bus: LocalBus,
    pub(crate) made: Provisioned,
    /// A queue of the test's own on the bus, that every store event reaches.
    pub(crate) tap: String,
    /// Faults between the publisher and the bus.
    pub(crate) faults: Faults,
    pub(crate) publisher: Publisher,
    source: StreamSource,
}

/// The threshold the tests' publisher announces low stock under.
pub(crate) const LOW_STOCK: u64 = 5;
/// What a batch may spend.
pub(crate) const BUDGET: Duration = Duration::from_secs(20);

impl Harness {
    /// The sample data on a fresh engine, a fresh bus made from template.yaml, a tap on it,
    /// and the publisher; the sample data's own records delivered already (they give no
    /// event: the sample data is history).
    pub(crate) async fn new() -> Self {
        let app = TestApp::seeded().await.expect("app");
        let (bus, made) =
            LocalBus::provisioned_for_test(&[("EmailSender", "orders@store.example")])
                .await
                .expect("moto, with the template's bus");
        let tap = bus.tap(&made.bus, "test-tap", SOURCE).await.expect("tap");
        let faults = Faults::default();
        let publisher = Publisher {
            store: app.store.clone(),
            bus: Bus::new(bus.eventbridge_through(&faults), made.bus.clone()),
            dead_letters: DeadLetters::new(
                bus.sqs(),
                made.queue("PublishEventsFailureQueue")
                    .expect("the failure queue")
                    .to_owned(),
            ),
            rules: EventRules {
                low_stock: LOW_STOCK,
            },
        };
        let template = template::parse().expect("template");
        let consumer = streams::consumer(&template, "publish-events").expect("the publisher");
        let source =
            StreamSource::open(app.engine.database(), LOCAL_TABLE, consumer, None).expect("stream");
        let mut harness = Self {
            app,
            bus,
            made,
            tap,
            faults,
            publisher,
            source,
        };
        harness.publish().await;
        assert_eq!(
            harness.heard().await,
            Vec::<Value>::new(),
            "the sample data is no event"
        );
        harness
    }

    /// Everything on the stream now delivered to the publisher as Lambda delivers it (nothing
    /// given up on).
    pub(crate) async fn publish(&mut self) {
        let publisher = &self.publisher;
        let drained = self
            .source
            .drain(|event| handle(publisher, event))
            .await
            .expect("drained");
        assert_eq!(drained.abandoned, 0, "{drained:?}");
    }

    /// The stream's records now, filtered as the publisher's mapping filters them, delivered
    /// to no one.
    pub(crate) fn records(&mut self) -> Vec<EventRecord> {
        self.source.read_all().expect("records")
    }

    /// Every event the tap heard since last asked, each held to the contract.
    pub(crate) async fn heard(&self) -> Vec<Value> {
        heard(&self.bus, &self.tap, Duration::from_millis(300)).await
    }

    /// The same, by subject, duplicates dropped, in sequence order.
    pub(crate) async fn subjects(&self) -> std::collections::BTreeMap<String, Vec<Value>> {
        by_subject(&self.heard().await)
    }

    /// What the publisher's dead-letter queue holds (taken).
    pub(crate) async fn dead_letters(&self) -> Vec<Value> {
        let queue = self.made.queue("PublishEventsFailureQueue").expect("queue");
        let bodies = self
            .bus
            .take(queue, Duration::from_millis(300))
            .await
            .expect("the failure queue");
        bodies
            .iter()
            .map(|body| serde_json::from_str(body).expect("json"))
            .collect()
    }
}

/// One batch through the publisher, as its Lambda runs it.
pub(crate) async fn handle(publisher: &Publisher, event: Event) -> DynamoDbEventResponse {
    as_function(
        "publish-events",
        functions::publish_events::handle(publisher, event, BUDGET),
    )
    .await
}

/// A batch of `records`.
pub(crate) fn batch(records: Vec<EventRecord>) -> Event {
    let mut event = Event::default();
    event.records = records;
    event
}

/// The sequence numbers a response reports failed.
pub(crate) fn failures(response: &DynamoDbEventResponse) -> Vec<String> {
    response
        .batch_item_failures
        .iter()
        .filter_map(|f| f.item_identifier.clone())
        .collect()
}
