//! A provider event the webhook has applied, `PAYMENT_EVENT#<eventId>` / `APPLIED`: written in
//! the same transaction as what the event did (the order placed, or the payment recorded for
//! refund), only where none is yet, so an event is applied at most once; a redelivery finds it
//! and changes nothing. `expiresAt` (the table's TTL attribute) forgets it after a week. Only
//! written: a record is found by its put's condition, never read.

use crate::domain::ids::{OrderId, PaymentEventId};
use crate::domain::payment::EventOutcome;
use crate::dynamo::codec::{Item, primary_key};
use crate::dynamo::keys::{self, Entity, PAYMENT_EVENT_PREFIX};
use crate::dynamo::record::record;
use crate::dynamo::update::PutSpec;

/// The record's sort key.
pub const SORT_KEY: &str = keys::APPLIED_SK;

/// What applying an event came to, as its record keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// What the event did.
    pub outcome: EventOutcome,
    /// The order it placed or named, if any.
    pub order_id: Option<OrderId>,
    /// When the record expires (seconds since the epoch).
    pub expires_at: u64,
}

record! {
    /// What an applied event's item stores.
    pub Record stores Applied beside () {
        /// What the event did: [`EventOutcome::Placed`] (the order it paid for) or
        /// [`EventOutcome::RefundDue`].
        outcome: EventOutcome = OUTCOME "outcome", required, store;
        /// The order it placed or named, if any.
        order_id: OrderId = ORDER_ID "orderId", optional, store;
        /// When the record expires (seconds since the epoch): the table's TTL attribute.
        expires_at: u64 = EXPIRES_AT "expiresAt", required, store;
    }
}

/// What applying an event puts: the record whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::PaymentEvent,
    attributes: &[
        keys::PK,
        keys::SK,
        OUTCOME.name,
        ORDER_ID.name,
        EXPIRES_AT.name,
    ],
};

/// The record's partition key.
pub fn pk(event: &PaymentEventId) -> String {
    format!("{PAYMENT_EVENT_PREFIX}{event}")
}

/// The record's key.
pub fn key(event: &PaymentEventId) -> Item {
    primary_key(pk(event), SORT_KEY)
}

/// The record of `event`, which came to `outcome` (for `order`), forgotten at `expires_at`.
pub fn to_item(
    event: &PaymentEventId,
    outcome: EventOutcome,
    order: Option<&OrderId>,
    expires_at: u64,
) -> Item {
    let mut item = key(event);
    let applied = Applied {
        outcome,
        order_id: order.cloned(),
        expires_at,
    };
    Record::write(&mut item, &applied);
    item
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{o100, pairs, shape};

    #[test]
    fn an_applied_event_is_remembered_by_its_id_and_reads_back() {
        let event = PaymentEventId::parse("evt_1").expect("id");
        assert_eq!(pk(&event), "PAYMENT_EVENT#evt_1");
        let item = to_item(&event, EventOutcome::Placed, Some(&o100()), 1_800_000_000);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S PAYMENT_EVENT#evt_1"),
                ("SK", "S APPLIED"),
                ("expiresAt", "N 1800000000"),
                ("orderId", "S o100"),
                ("outcome", "S placed"),
            ])
        );
    }
}
