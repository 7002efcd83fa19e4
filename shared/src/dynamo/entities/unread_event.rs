//! A signed provider event the store could not read, `UNREAD_EVENT#<sha256 of the body>` /
//! `RAW`, with GSI1 `UNREAD_EVENTS` / `<receivedAt>` (oldest first, for a person to look at with
//! `make query`): the body exactly as signed, and why it could not be read. Answering such an
//! event with a 400 would have the provider retry it for three days and then drop it; kept here
//! and answered 200, no signed event is lost. Keyed by the body's digest, so a redelivery of the
//! same event is kept once. Never expires: a person removes it once it is dealt with.

use sha2::{Digest, Sha256};

use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, Item, primary_key};
use crate::dynamo::keys::{self, Entity, UNREAD_EVENT_PREFIX};
use crate::dynamo::record::record;
use crate::dynamo::update::PutSpec;

/// The record's sort key.
pub const SORT_KEY: &str = keys::RAW_SK;
/// GSI1's partition of unread events.
pub const GSI1_PARTITION: &str = keys::UNREAD_EVENTS_GSI1PK;

/// A signed event the store could not read, as its record keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// The body, exactly as signed (as text where it is UTF-8, else lossily: the digest in the
    /// key is of the bytes).
    pub body: String,
    /// Why it could not be read.
    pub reason: String,
    /// When the store kept it.
    pub received_at: Timestamp,
}

record! {
    /// What an unread event's item stores (its listing on GSI1 beside).
    pub Record stores Unread beside () {
        /// The body, as signed.
        body: String = BODY "body", required, store;
        /// Why it could not be read.
        reason: String = REASON "reason", required, store;
        /// When the store kept it.
        received_at: Timestamp = RECEIVED_AT "receivedAt", required, store;
    }
}

/// GSI1's partition key: [`GSI1_PARTITION`].
pub const GSI1PK: Attr<String> = Attr::new(keys::GSI1PK);
/// GSI1's sort key: when it was kept.
pub const GSI1SK: Attr<String> = Attr::new(keys::GSI1SK);

/// What keeping an unread event puts: the record whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::UnreadEvent,
    attributes: &[
        keys::PK,
        keys::SK,
        BODY.name,
        REASON.name,
        RECEIVED_AT.name,
        GSI1PK.name,
        GSI1SK.name,
    ],
};

/// The record's partition key: the body's SHA-256, in hex.
pub fn pk(body: &[u8]) -> String {
    format!("{UNREAD_EVENT_PREFIX}{}", hex::encode(Sha256::digest(body)))
}

/// The record's key.
pub fn key(body: &[u8]) -> Item {
    primary_key(pk(body), SORT_KEY)
}

/// The record of `body`, which could not be read for `reason`, kept at `received_at`.
pub fn to_item(body: &[u8], reason: &str, received_at: Timestamp) -> Item {
    let mut item = key(body);
    let unread = Unread {
        body: String::from_utf8_lossy(body).into_owned(),
        reason: reason.to_owned(),
        received_at,
    };
    Record::write(&mut item, &unread);
    GSI1PK.put(&mut item, &GSI1_PARTITION.to_owned());
    GSI1SK.put(&mut item, &received_at.to_string());
    item
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, placed, shape};

    #[test]
    fn an_unread_event_is_kept_by_its_bodys_digest_and_listed_oldest_first_on_gsi1() {
        // Independently: printf '{"id":1}' | sha256sum
        let body = br#"{"id":1}"#;
        let item = to_item(body, "the body is not a provider event", placed());
        assert_eq!(
            shape(&item),
            pairs(&[
                ("GSI1PK", "S UNREAD_EVENTS"),
                ("GSI1SK", "S 2026-10-08T14:30:00Z"),
                (
                    "PK",
                    "S UNREAD_EVENT#037c9214eef74cc3887f3a4f085b4e17d76280dafd273b0ee160c09c4ba1cfd4"
                ),
                ("SK", "S RAW"),
                ("body", r#"S {"id":1}"#),
                ("reason", "S the body is not a provider event"),
                ("receivedAt", "S 2026-10-08T14:30:00Z"),
            ])
        );
    }
}
