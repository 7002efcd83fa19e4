//! One event's email to its customer, `EMAIL#<eventId>` / `EMAIL`: claimed by its sender before
//! it is sent (so that of two deliveries of the event only one sends), then its outcome, kept
//! until `expiresAt` (the table's TTL attribute), longer than any redelivery of the event.

use crate::domain::email::{CustomerEmail, EmailState};
use crate::domain::event::{EventId, EventType};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, primary_key};
use crate::dynamo::keys::{self, EMAIL_PREFIX, Entity, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::{DeleteSpec, PutSpec, UpdateSpec};

/// The record's sort key.
pub const SORT_KEY: &str = keys::EMAIL_SK;

record! {
    /// What an email's record stores of it.
    pub Record stores CustomerEmail beside (event_id: EventId) {
        /// The kind of event it tells of.
        kind: EventType = KIND "type", required, store;
        /// Where it stands.
        state: EmailState = STATE "state", required, store;
        /// When its sender claimed it.
        claimed_at: Timestamp = CLAIMED_AT "claimedAt", required, store;
        /// The mail service's ID for it.
        message_id: String = MESSAGE_ID "messageId", optional, store;
        /// Why it was not sent.
        reason: String = REASON "reason", optional, store;
    }
}

/// When the record expires (seconds since the epoch): the table's TTL attribute.
pub const EXPIRES_AT: Attr<u64> = Attr::new("expiresAt");

/// A sender's claim: the record, SENDING, put where none is, or over one whose claim has lapsed
/// (its sender died sending) or whose time is up.
pub const CLAIM: PutSpec = PutSpec {
    entity: Entity::CustomerEmail,
    attributes: &[
        keys::PK,
        keys::SK,
        KIND.name,
        STATE.name,
        CLAIMED_AT.name,
        EXPIRES_AT.name,
    ],
};
/// The outcome, recorded on the condition that the claim is still the sender's own.
pub const FINISH: UpdateSpec = UpdateSpec {
    set: &[STATE.name, MESSAGE_ID.name, REASON.name],
    checks: &[CLAIMED_AT.name],
    ..UpdateSpec::of(Entity::CustomerEmail)
};
/// A claim given up (the send failed, to be tried again), on the same condition.
pub const RELEASE: DeleteSpec = DeleteSpec {
    entity: Entity::CustomerEmail,
    checks: &[CLAIMED_AT.name],
};

/// The record's partition key.
pub fn pk(event: &EventId) -> String {
    format!("{EMAIL_PREFIX}{event}")
}

/// The record's key.
pub fn key(event: &EventId) -> Item {
    primary_key(pk(event), SORT_KEY)
}

/// The event a partition key names.
pub fn parse_pk(pk: &str) -> Result<EventId, keys::MalformedKey> {
    pk.strip_prefix(EMAIL_PREFIX)
        .and_then(|raw| EventId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::PK, pk))
}

/// The record of `email`, expiring at `expires_at`.
pub fn to_item(email: &CustomerEmail, expires_at: u64) -> Item {
    let mut item = key(&email.event_id);
    Record::write(&mut item, email);
    EXPIRES_AT.put(&mut item, &expires_at);
    item
}

/// The email a record holds.
pub fn from_item(mut item: Item) -> Result<CustomerEmail, BadItem> {
    let event_id = parse_pk(&PK.take(&mut item)?)?;
    Record::read(&mut item, event_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, placed, shape};

    #[test]
    fn an_email_is_kept_by_its_events_id_and_reads_back() {
        let event = EventId::parse("order/o100/2").expect("id");
        assert_eq!(pk(&event), "EMAIL#order/o100/2");
        let claimed = CustomerEmail {
            event_id: event,
            kind: EventType::Placed,
            state: EmailState::Sending,
            claimed_at: placed(),
            message_id: None,
            reason: None,
        };
        let item = to_item(&claimed, 1_800_000_000);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S EMAIL#order/o100/2"),
                ("SK", "S EMAIL"),
                ("claimedAt", "S 2026-10-08T14:30:00Z"),
                ("expiresAt", "N 1800000000"),
                ("state", "S SENDING"),
                ("type", "S order.placed"),
            ])
        );
        assert_eq!(from_item(item).expect("reads"), claimed);
    }
}
