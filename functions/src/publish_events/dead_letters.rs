//! The publisher's dead-letter queue: each stream record that cannot be published, as one
//! message with its reason, its keys and place on the stream, the events it gives (when they
//! could be read) and the record itself (when it fits). Lambda's own on-failure destination
//! sends the same queue what the event source mapping gave up on (docs/events.md, "When an
//! event cannot be published").

use aws_lambda_events::event::dynamodb::EventRecord;
use serde_json::{Value, json};
use shared::domain::event::StoreEvent;

/// The most of a record a message carries whole: SQS takes 256 KB a message, and a record's
/// two images may hold 400 KB each. A larger record is named by its sequence number instead
/// (the stream keeps it 24 hours).
const MAX_RECORD_BYTES: usize = 200 * 1024;

/// The queue.
#[derive(Debug, Clone)]
pub struct DeadLetters {
    client: aws_sdk_sqs::Client,
    queue_url: String,
}

impl DeadLetters {
    /// The queue at `queue_url`, sent to with `client`.
    pub fn new(client: aws_sdk_sqs::Client, queue_url: String) -> Self {
        Self { client, queue_url }
    }

    /// `record` sent to the queue with `reason` and the `events` it gives.
    pub async fn send(
        &self,
        record: &EventRecord,
        reason: &str,
        events: &[StoreEvent],
    ) -> Result<(), String> {
        self.client
            .send_message()
            .queue_url(&self.queue_url)
            .message_body(message(record, reason, events).to_string())
            .send()
            .await
            .map(|_| ())
            .map_err(|err| aws_sdk_sqs::error::DisplayErrorContext(&err).to_string())
    }
}

/// The message for `record`.
fn message(record: &EventRecord, reason: &str, events: &[StoreEvent]) -> Value {
    let keys: shared::dynamo::codec::Item = record.change.keys.clone().into();
    let key = |name: &str| keys.get(name).and_then(|v| v.as_s().ok()).cloned();
    let mut message = json!({
        "reason": reason,
        "eventID": record.event_id,
        "eventName": record.event_name,
        "sequenceNumber": record.change.sequence_number,
        "eventSourceARN": record.event_source_arn,
        "keys": {"PK": key("PK"), "SK": key("SK")},
        "events": events,
    });
    match serde_json::to_value(record) {
        Ok(whole) if whole.to_string().len() <= MAX_RECORD_BYTES => message["record"] = whole,
        _ => {
            message["recordOmitted"] = json!(
                "larger than a message carries: read it from the stream by its sequence number (kept 24 hours)"
            )
        }
    }
    message
}
