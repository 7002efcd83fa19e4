//! make dev's events: moto's server on `EVENTS_PORT` (8430; `off`: none; or
//! `EVENTS_ENDPOINT`, one already running) holding template.yaml's bus, archive, rules and
//! queues; the publisher driven from the stream as order-stats is; the customers' emails driven
//! from their queue as Lambda's SQS mapping drives them; and a tap on the bus that `make
//! events` prints.

use std::path::Path;
use std::time::Duration;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};
use local_engine::bus::{LocalBus, Provisioned};
use shared::Store;
use shared::domain::event::SOURCE;
use shared::dynamo::events::EventRules;

pub use shared::domain::error::BoxError as Error;

/// The tap's queue, and the rule that fills it with every event of the store's.
pub const TAP: &str = "store-local-events";
/// Who make dev's emails are from unless `EMAIL_SENDER` says otherwise.
pub const DEFAULT_SENDER: &str = "orders@rust-store.example";
/// What a batch of the publisher or the emails may spend (the template's timeouts, less the
/// margin a function keeps).
const BUDGET: Duration = Duration::from_secs(25);

/// What make dev's tap heard, newest last: each event's envelope with its place in the log.
/// Kept in memory, at most [`Heard::CAPACITY`] (the oldest go first), so the tap's queue is
/// drained as it fills (moto's queues slow down as they grow: each message sent to one costs
/// time in proportion to what it holds).
#[derive(Debug, Default)]
pub struct Heard {
    log: std::sync::Mutex<std::collections::VecDeque<(u64, serde_json::Value)>>,
    next: std::sync::atomic::AtomicU64,
    arrived: tokio::sync::Notify,
    /// The server's base URL, for its emails.
    pub base: String,
}

impl Heard {
    /// The most events kept.
    pub const CAPACITY: usize = 10_000;

    fn push(&self, envelope: serde_json::Value) {
        let at = self.next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let mut log = self
            .log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        log.push_back((at + 1, envelope));
        while log.len() > Self::CAPACITY {
            log.pop_front();
        }
        drop(log);
        self.arrived.notify_waiters();
    }

    /// The events after place `after` (0: all kept), and the place of the last; waiting up to
    /// `wait` for one when there is none yet.
    pub async fn since(&self, after: u64, wait: Duration) -> (Vec<serde_json::Value>, u64) {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let arrived = self.arrived.notified();
            let found = self.read(after);
            if !found.0.is_empty() || tokio::time::Instant::now() >= deadline {
                return found;
            }
            let _ = tokio::time::timeout_at(deadline, arrived).await;
        }
    }

    fn read(&self, after: u64) -> (Vec<serde_json::Value>, u64) {
        let log = self
            .log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let events = log
            .iter()
            .filter(|(at, _)| *at > after)
            .map(|(_, envelope)| envelope.clone())
            .collect();
        let last = log.back().map_or(after, |(at, _)| *at);
        (events, last)
    }

    /// The emails the server's SES took, oldest first.
    pub fn emails(&self) -> Result<Vec<local_engine::bus::SentEmail>, Error> {
        LocalBus::at(&self.base).emails()
    }
}

/// The events side of make dev, running.
#[derive(Debug)]
pub struct Events {
    /// The server (stopped with make dev, unless it was running already).
    pub bus: LocalBus,
    /// What template.yaml made on it.
    pub made: Provisioned,
    /// Who the emails are from.
    pub sender: String,
    /// `LowStockThreshold`.
    pub low_stock: u64,
}

fn env_value(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The server, its resources made from `template` and the tap; `None` for `EVENTS_PORT=off`.
pub async fn start(template: &serde_yaml::Value, data_dir: &Path) -> Result<Option<Events>, Error> {
    let bus = match env_value("EVENTS_ENDPOINT") {
        Some(base) => LocalBus::at(&base),
        None => {
            let Some(port) = local_engine::bus::port_from_env()? else {
                return Ok(None);
            };
            let log = data_dir.join("moto.log");
            tokio::task::spawn_blocking(move || LocalBus::start(port, &log))
                .await
                .map_err(|err| err.to_string())??
        }
    };
    let sender = env_value("EMAIL_SENDER").unwrap_or_else(|| DEFAULT_SENDER.to_owned());
    let low_stock = match env_value("LOW_STOCK_THRESHOLD") {
        Some(raw) => raw
            .trim()
            .parse()
            .map_err(|_| format!("LOW_STOCK_THRESHOLD must be a whole number, not {raw:?}"))?,
        None => template["Parameters"]["LowStockThreshold"]["Default"]
            .as_u64()
            .ok_or("template.yaml has no LowStockThreshold default")?,
    };
    let made = bus
        .provision(template, &[("EmailSender", sender.as_str())])
        .await
        .map_err(|err| format!("the events' resources on {}: {err}", bus.base))?;
    bus.tap(&made.bus, TAP, SOURCE).await?;
    Ok(Some(Events {
        bus,
        made,
        sender,
        low_stock,
    }))
}

impl Events {
    /// The tap drained into a log, for as long as make dev runs: what `make events` prints and
    /// the explorer shows.
    pub async fn spawn_tap(&self) -> Result<std::sync::Arc<Heard>, Error> {
        let heard = std::sync::Arc::new(Heard {
            base: self.bus.base.clone(),
            ..Heard::default()
        });
        let bus = LocalBus::at(&self.bus.base);
        let queue = bus
            .sqs()
            .get_queue_url()
            .queue_name(TAP)
            .send()
            .await?
            .queue_url()
            .unwrap_or_default()
            .to_owned();
        let filled = heard.clone();
        tokio::spawn(async move {
            loop {
                match bus.take(&queue, Duration::from_secs(1)).await {
                    Ok(bodies) => {
                        for body in bodies {
                            match serde_json::from_str(&body) {
                                Ok(envelope) => filled.push(envelope),
                                Err(err) => tracing::warn!(error = %err, "the tap held no event"),
                            }
                        }
                    }
                    Err(err) => {
                        tracing::warn!(error = %err, "the tap could not be read");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
            }
        });
        Ok(heard)
    }

    /// The publisher as its Lambda builds it, its clients pointed at the server.
    pub fn publisher(&self, store: &Store) -> Result<functions::publish_events::Publisher, Error> {
        Ok(functions::publish_events::Publisher {
            store: store.clone(),
            bus: functions::publish_events::Bus::new(self.bus.eventbridge(), self.made.bus.clone()),
            dead_letters: functions::publish_events::DeadLetters::new(
                self.bus.sqs(),
                self.made.queue("PublishEventsFailureQueue")?.to_owned(),
            ),
            rules: EventRules {
                low_stock: self.low_stock,
            },
        })
    }

    /// One batch of the stream through the publisher, as make dev runs it.
    pub async fn publish(
        publisher: &functions::publish_events::Publisher,
        event: aws_lambda_events::event::dynamodb::Event,
    ) -> aws_lambda_events::event::streams::DynamoDbEventResponse {
        crate::as_declared(
            "publish-events",
            functions::publish_events::handle(publisher, event, BUDGET),
        )
        .await
    }

    /// The customers' emails, as Lambda's SQS mapping drives the function: the queue polled
    /// (a second's long poll), each batch handed over, what it did not report failed deleted
    /// (a failed message comes back after the queue's visibility timeout, and to the
    /// dead-letter queue after five tries), for as long as make dev runs.
    pub fn spawn_emails(&self, store: &Store) -> Result<(), Error> {
        let queue = self.made.queue("CustomerEmailQueue")?.to_owned();
        let mailer = std::sync::Arc::new(functions::email_customers::Mailer {
            store: store.clone(),
            ses: self.bus.sesv2(),
            sender: self.sender.clone(),
        });
        self.spawn_queue(queue, "email-customers", move |event| {
            let mailer = mailer.clone();
            async move { functions::email_customers::handle(&mailer, event, BUDGET).await }
        });
        Ok(())
    }

    /// The pictures that arrive in the media bucket, checked by check-media as its queue
    /// hands them over (the bucket's events reach the queue through the template's rule).
    pub fn spawn_media_checks(&self, store: &Store) -> Result<(), Error> {
        let queue = self.made.queue("MediaArrivalQueue")?.to_owned();
        let store = store.clone();
        self.spawn_queue(queue, "check-media", move |event| {
            let store = store.clone();
            async move { functions::check_media::handle(&store, event, BUDGET).await }
        });
        Ok(())
    }

    /// `queue` polled for as long as make dev runs, each batch handed to `handler` as
    /// binary `binary` (its requests held to its declaration).
    fn spawn_queue<F, Fut>(&self, queue: String, binary: &'static str, handler: F)
    where
        F: Fn(SqsEvent) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = SqsBatchResponse> + Send,
    {
        let sqs = self.bus.sqs();
        tokio::spawn(async move {
            loop {
                if let Err(err) = deliver(&sqs, &queue, binary, &handler).await {
                    tracing::warn!(error = %err, queue, "the queue could not be read");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        });
    }
}

/// One poll of `queue`, its messages handed to the function.
async fn deliver<F, Fut>(
    sqs: &aws_sdk_sqs::Client,
    queue: &str,
    binary: &'static str,
    handler: &F,
) -> Result<(), Error>
where
    F: Fn(SqsEvent) -> Fut,
    Fut: std::future::Future<Output = SqsBatchResponse>,
{
    let out = sqs
        .receive_message()
        .queue_url(queue)
        .max_number_of_messages(10)
        .wait_time_seconds(1)
        .send()
        .await?;
    if out.messages().is_empty() {
        return Ok(());
    }
    let mut event = SqsEvent::default();
    event.records = out
        .messages()
        .iter()
        .map(|m| {
            let mut message = SqsMessage::default();
            message.message_id = m.message_id().map(str::to_owned);
            message.receipt_handle = m.receipt_handle().map(str::to_owned);
            message.body = m.body().map(str::to_owned);
            message
        })
        .collect();
    let response = crate::as_declared(binary, handler(event.clone())).await;
    for message in &event.records {
        let failed = response
            .batch_item_failures
            .iter()
            .any(|f| Some(&f.item_identifier) == message.message_id.as_ref());
        if let (false, Some(handle)) = (failed, &message.receipt_handle) {
            sqs.delete_message()
                .queue_url(queue)
                .receipt_handle(handle)
                .send()
                .await?;
        }
    }
    Ok(())
}
