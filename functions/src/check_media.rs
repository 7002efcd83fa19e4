//! check-media: the media bucket's "Object Created" notifications (S3 to EventBridge, a rule to
//! its queue, the queue to this function), each object checked against the upload that asked
//! for it (size, type, first bytes) and shown by its product, or deleted
//! (`shared::dynamo::media`). A message that fails is reported and comes back; the queue gives
//! it to its dead-letter queue after five tries. Delivery is at least once: a picture shown or
//! removed already is recognised.

use std::time::Duration;

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent, SqsMessage};
use serde::Deserialize;
use shared::Store;
use shared::dynamo::media::Arrival;

/// An EventBridge event of S3's, as its rule hands it to the queue: only what is read.
#[derive(Deserialize)]
struct Notification {
    detail: Detail,
}

#[derive(Deserialize)]
struct Detail {
    object: Object,
}

#[derive(Deserialize)]
struct Object {
    key: String,
}

pub async fn handle(store: &Store, event: SqsEvent, _budget: Duration) -> SqsBatchResponse {
    let mut response = SqsBatchResponse::default();
    for message in &event.records {
        match handle_message(store, message).await {
            Ok(arrival) => {
                tracing::info!(message_id = ?message.message_id, ?arrival, "picture checked")
            }
            Err(why) => {
                tracing::warn!(message_id = ?message.message_id, error = %why, "picture not checked; the queue hands it over again");
                let mut failure = BatchItemFailure::default();
                failure.item_identifier = message.message_id.clone().unwrap_or_default();
                response.batch_item_failures.push(failure);
            }
        }
    }
    response
}

/// One notification: its object checked.
pub async fn handle_message(store: &Store, message: &SqsMessage) -> Result<Arrival, String> {
    let body = message.body.as_deref().unwrap_or_default();
    let notification: Notification = serde_json::from_str(body)
        .map_err(|err| format!("the message is not S3's Object Created event: {err}"))?;
    // EventBridge writes the key as S3 does in its notifications: URL-encoded, spaces as `+`.
    // The store's keys are `media/<id>/<id>`, of characters no encoding changes.
    store
        .media_arrived(&notification.detail.object.key)
        .await
        .map_err(|err| err.with_causes())
}
