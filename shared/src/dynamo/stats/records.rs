//! What a stream record means for the statistics: an order listing's INSERT, MODIFY or REMOVE
//! read as the change it makes to its order's share, or a record to ignore, or one that cannot
//! be read (reported, never skipped silently).

use aws_lambda_events::event::dynamodb::EventRecord;

use crate::domain::ids::CustomerId;
use crate::domain::stats::{ShareChange, ShareVersion};
use crate::dynamo::codec::Item;
use crate::dynamo::entities::{customer, order_listing};
use crate::dynamo::keys::{PK, SK};

/// What a stream record means for the statistics.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordEffect {
    /// Not an order listing, or a change that moves no share (a shipment, a hold).
    Ignored,
    /// An item DynamoDB's TTL deleted (an expired cart line, a spent idempotency or webhook
    /// record): housekeeping, never a customer's action, so it moves no statistics.
    Expired,
    /// It moves a customer's statistics.
    Moves {
        /// Whose.
        customer: CustomerId,
        /// How.
        change: ShareChange,
    },
}

/// A record that should describe an order listing but cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("unreadable {event} record for {keys}: {reason}")]
pub struct PoisonRecord {
    /// The record's event (`INSERT`, `MODIFY`, `REMOVE`).
    pub event: String,
    /// Its keys, for the log.
    pub keys: String,
    /// Why it cannot be read.
    pub reason: String,
}

fn is_order_listing(keys: &Item) -> bool {
    let text = |name: &str| keys.get(name).and_then(|v| v.as_s().ok());
    text(SK).is_some_and(|sk| sk.starts_with(order_listing::SK_PREFIX))
        && text(PK).is_some_and(|pk| customer::parse_pk(pk).is_ok())
}

/// Whether DynamoDB's TTL deleted the record's item: its `userIdentity` is the service's
/// (`{"type": "Service", "principalId": "dynamodb.amazonaws.com"}`).
pub fn is_ttl_deletion(record: &EventRecord) -> bool {
    record.event_name == "REMOVE"
        && record.user_identity.as_ref().is_some_and(|who| {
            who.type_ == "Service" && who.principal_id == "dynamodb.amazonaws.com"
        })
}

/// Reads a record: an order INSERT adds the order's share, a MODIFY moves it (entering
/// CANCELLED takes its total out, leaving CANCELLED puts it back; a hold counts once it is
/// paid), a REMOVE takes it away. A TTL deletion is housekeeping and moves nothing; anything
/// that is not an order listing is ignored.
pub fn record_effect(record: &EventRecord) -> Result<RecordEffect, PoisonRecord> {
    if is_ttl_deletion(record) {
        return Ok(RecordEffect::Expired);
    }
    let keys: Item = record.change.keys.clone().into();
    if !is_order_listing(&keys) {
        return Ok(RecordEffect::Ignored);
    }
    let poison = |reason: String| PoisonRecord {
        event: record.event_name.clone(),
        keys: describe_keys(&keys),
        reason,
    };
    let read = |image: &serde_dynamo::Item, which: &str| {
        order_listing::from_item(image.clone().into())
            .map_err(|err| poison(format!("{which} image: {err}")))
    };
    let version = record
        .change
        .sequence_number
        .as_deref()
        .ok_or_else(|| "no sequence number".to_owned())
        .and_then(ShareVersion::parse)
        .map_err(poison)?;
    let (customer, change) = match record.event_name.as_str() {
        "INSERT" => {
            let new = read(&record.change.new_image, "new")?;
            (new.customer_id.clone(), ShareChange::placed(&new, version))
        }
        "MODIFY" => {
            let old = read(&record.change.old_image, "old")?;
            let new = read(&record.change.new_image, "new")?;
            let change = ShareChange::changed(&old, &new, version);
            (new.customer_id, change)
        }
        "REMOVE" => {
            let old = read(&record.change.old_image, "old")?;
            (old.customer_id.clone(), ShareChange::removed(&old, version))
        }
        other => return Err(poison(format!("unknown event {other:?}"))),
    };
    Ok(
        change.map_or(RecordEffect::Ignored, |change| RecordEffect::Moves {
            customer,
            change,
        }),
    )
}

/// `PK=… SK=…`, for logs.
pub fn describe_keys(keys: &Item) -> String {
    let text = |name: &str| {
        keys.get(name)
            .and_then(|v| v.as_s().ok())
            .map_or("?", String::as_str)
            .to_owned()
    };
    format!("PK={} SK={}", text(PK), text(SK))
}
