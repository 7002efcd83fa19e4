//! A refund of an order, `ORDER#<orderId>` / `REFUND#<refundId>`, in the order's own partition
//! after its line items (`keys::ORDER_PARTITION`), so that the order's ledger is the same ONE
//! Query as the order (access pattern 7). Listed by status on GSI1, `REFUNDS#<status>` /
//! `<requestedAt>` (access pattern 10, oldest first): the refunds payer reads REQUESTED and
//! PENDING there, staff any status. A refund of a payment that names no order the store has is
//! kept the same way under its own key ([`refund_due`](super::refund_due)); this file holds
//! what both are made of.

use crate::domain::ids::{
    CancellationId, OrderId, PaymentEventId, PaymentId, ProviderRefundId, RefundId, ReturnId,
};
use crate::domain::order::LineQuantity;
use crate::domain::refund::RefundMetadata;
use crate::domain::refund::{Refund, RefundKind, RefundStatus};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, primary_key};
use crate::dynamo::entities::line_item;
use crate::dynamo::keys::{self, Entity, REFUND_PREFIX, REFUNDS_GSI1_PREFIX};
use crate::dynamo::record::record;
use crate::dynamo::update::{Change, PutSpec, UpdateSpec};

record! {
    /// What a refund's item stores of it; its lines are a map of SKU to quantity, written
    /// and read beside the table ([`LINES`]).
    pub Record stores Refund beside (lines: Vec<LineQuantity>) {
        /// Its ID.
        refund_id: RefundId = REFUND_ID "refundId", required, store;
        /// The order it is of (an order's refund only).
        order_id: OrderId = ORDER_ID "orderId", optional, store;
        /// The payment it gives back from.
        payment_id: PaymentId = PAYMENT_ID "paymentId", required, store;
        /// In the currency's smallest unit.
        amount: i64 = AMOUNT "amount", required, store;
        /// Lowercase ISO 4217.
        currency: String = CURRENCY "currency", required, store;
        /// What it gives back.
        kind: RefundKind = KIND "kind", required, store;
        /// Why (the customer reads it).
        reason: String = REASON "reason", required, store;
        /// Staff's note, for staff.
        note: String = NOTE "note", optional, store;
        /// Where it is.
        status: RefundStatus = STATUS "status", required, store;
        /// The provider's refund, once it made one.
        provider_refund_id: ProviderRefundId = PROVIDER_REFUND_ID "providerRefundId", optional, store;
        /// Why the provider refused it.
        failure: String = FAILURE "failure", optional, store;
        /// When it was recorded.
        requested_at: Timestamp = REQUESTED_AT "requestedAt", required, store;
        /// The event that reported the payment.
        event_id: PaymentEventId = EVENT_ID "eventId", optional, store;
        /// Whether its lines went back into stock.
        restock: bool = RESTOCK "restock", default, store;
        /// Of its amount, what gives back the shipping.
        shipping: i64 = SHIPPING "shipping", default, store;
        /// The cancellation of lines that requested it.
        cancellation_id: CancellationId = CANCELLATION_ID "cancellationId", optional, store;
        /// The return whose receipt requested it.
        return_id: ReturnId = RETURN_ID "returnId", optional, store;
        /// How many times it was claimed for sending.
        attempts: u32 = ATTEMPTS "attempts", default, store;
        /// When it was last claimed for sending.
        sent_at: Timestamp = SENT_AT "sentAt", optional, store;
    }
}

/// The lines it gives back: a map of SKU to quantity.
pub const LINES: Attr<Vec<LineQuantity>> = Attr::new("lines");
/// GSI1's partition key: `REFUNDS#<status>`.
pub const GSI1PK: Attr<String> = Attr::new(keys::GSI1PK);
/// GSI1's sort key: when it was recorded.
pub const GSI1SK: Attr<String> = Attr::new(keys::GSI1SK);
/// How many events the refund has given: its last event's `sequence` (`domain::event`),
/// moved on by the write that gives one, as an order's header counts its own; absent, 0 (a
/// refund recorded before events were published).
pub const EVENT_SEQUENCE: Attr<u64> = Attr::new("eventSequence");

/// Every attribute a refund's record holds.
pub const ATTRIBUTES: &[&str] = &[
    keys::PK,
    keys::SK,
    REFUND_ID.name,
    ORDER_ID.name,
    PAYMENT_ID.name,
    AMOUNT.name,
    CURRENCY.name,
    KIND.name,
    REASON.name,
    NOTE.name,
    STATUS.name,
    REQUESTED_AT.name,
    EVENT_ID.name,
    LINES.name,
    RESTOCK.name,
    SHIPPING.name,
    CANCELLATION_ID.name,
    RETURN_ID.name,
    ATTEMPTS.name,
    GSI1PK.name,
    GSI1SK.name,
    EVENT_SEQUENCE.name,
];

/// What a refund of a payment naming no order holds: the same, but the order.
pub const DUE_ATTRIBUTES: &[&str] = &[
    keys::PK,
    keys::SK,
    REFUND_ID.name,
    PAYMENT_ID.name,
    AMOUNT.name,
    CURRENCY.name,
    KIND.name,
    REASON.name,
    STATUS.name,
    REQUESTED_AT.name,
    EVENT_ID.name,
    LINES.name,
    RESTOCK.name,
    SHIPPING.name,
    ATTEMPTS.name,
    GSI1PK.name,
    GSI1SK.name,
    EVENT_SEQUENCE.name,
];

/// What requesting an order's refund puts: the record whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::OrderRefund,
    attributes: ATTRIBUTES,
};

/// A refund claimed for sending: PENDING, one attempt more, on the condition that its status
/// and attempts are still the ones read (of two senders, one sends).
pub const fn claim_spec(entity: Entity) -> UpdateSpec {
    UpdateSpec {
        set: &[STATUS.name, ATTEMPTS.name, SENT_AT.name, GSI1PK.name],
        checks: &[STATUS.name, ATTEMPTS.name],
        ..UpdateSpec::of(entity)
    }
}

/// What the provider made of a refund, recorded only forward: its refund's ID, its status and
/// why it failed, on the condition that the refund is not final yet (and, from the payer, that
/// nobody claimed it since).
pub const fn settle_spec(entity: Entity) -> UpdateSpec {
    UpdateSpec {
        set: &[
            STATUS.name,
            PROVIDER_REFUND_ID.name,
            FAILURE.name,
            GSI1PK.name,
        ],
        add: &[EVENT_SEQUENCE.name],
        checks: &[STATUS.name, ATTEMPTS.name],
        ..UpdateSpec::of(entity)
    }
}

/// An order's refund claimed for sending.
pub const CLAIM: UpdateSpec = claim_spec(Entity::OrderRefund);
/// An order's refund settled.
pub const SETTLE: UpdateSpec = settle_spec(Entity::OrderRefund);

/// GSI1's partition of refunds in `status`.
pub fn gsi1pk(status: RefundStatus) -> String {
    format!("{REFUNDS_GSI1_PREFIX}{status}")
}

/// The status GSI1 partition `pk` lists, if it is a refunds' partition.
pub fn status_of_gsi1pk(pk: &str) -> Option<RefundStatus> {
    pk.strip_prefix(REFUNDS_GSI1_PREFIX)?.parse().ok()
}

/// An order's refund's sort key.
pub fn sk(refund: &RefundId) -> String {
    format!("{REFUND_PREFIX}{refund}")
}

/// The partition of the refund of `payment`, which names no order the store has (its file:
/// [`refund_due`](super::refund_due)).
pub fn due_pk(payment: &PaymentId) -> String {
    format!("{REFUND_PREFIX}{payment}")
}

/// That refund's key.
pub fn due_key(payment: &PaymentId) -> Item {
    primary_key(due_pk(payment), keys::REFUND_SK)
}

/// Where `refund`'s record is: in its order's partition, or (a payment naming no order) under
/// its payment.
pub fn key(refund: &Refund) -> Item {
    match &refund.order_id {
        Some(order) => primary_key(line_item::pk(order), sk(&refund.refund_id)),
        None => due_key(&refund.payment_id),
    }
}

/// Where the record of the refund a provider's metadata names is (`None`: the metadata names no
/// refund of the store's).
pub fn key_of_metadata(metadata: &RefundMetadata) -> Option<Item> {
    let refund = RefundId::parse(metadata.refund_id.as_deref()?).ok()?;
    match metadata.order_id.as_deref() {
        Some(order) => {
            let order = OrderId::parse(order).ok()?;
            Some(primary_key(line_item::pk(&order), sk(&refund)))
        }
        None => {
            let payment = PaymentId::parse(metadata.payment_id.as_deref()?).ok()?;
            (refund == RefundId::of_payment(&payment)).then(|| due_key(&payment))
        }
    }
}

/// The entity of `refund`'s record.
pub fn entity(refund: &Refund) -> Entity {
    if refund.order_id.is_some() {
        Entity::OrderRefund
    } else {
        Entity::RefundDue
    }
}

/// The record of `refund`.
pub fn to_item(refund: &Refund) -> Item {
    let mut item = key(refund);
    Record::write(&mut item, refund);
    if !refund.lines.is_empty() {
        LINES.put(&mut item, &refund.lines);
    }
    GSI1PK.put(&mut item, &gsi1pk(refund.status));
    GSI1SK.put(&mut item, &refund.requested_at.to_string());
    EVENT_SEQUENCE.put(&mut item, &events_at_insert(refund.status));
    item
}

/// How many events a refund recorded in `status` gives at once: its request, and its end when
/// it is recorded settled.
pub fn events_at_insert(status: RefundStatus) -> u64 {
    if status.is_settled() { 2 } else { 1 }
}

/// How many events a refund's record has given ([`EVENT_SEQUENCE`]).
pub fn event_sequence(item: &Item) -> u64 {
    EVENT_SEQUENCE.get(item).unwrap_or(0)
}

/// A settlement (an event of the refund's): `change` with its event counter moved on by one.
pub fn counting_event(change: Change) -> Change {
    change.add(&EVENT_SEQUENCE, &1)
}

/// The refund a record holds.
pub fn from_item(mut item: Item) -> Result<Refund, BadItem> {
    let lines = LINES.take_optional(&mut item)?.unwrap_or_default();
    Record::read(&mut item, lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::Sku;
    use crate::dynamo::entities::test_support::{o100, pairs, placed, shape};

    fn staff_refund() -> Refund {
        Refund {
            lines: vec![LineQuantity {
                sku: Sku::parse("SKU-1").expect("sku"),
                quantity: 2,
            }],
            restock: true,
            requested_at: placed(),
            ..Refund::requested(
                RefundId::parse("rf_1").expect("id"),
                Some(o100()),
                PaymentId::parse("pi_1").expect("id"),
                1990,
                "usd",
                RefundKind::Staff,
                "damaged".into(),
            )
        }
    }

    #[test]
    fn an_orders_refund_is_kept_after_its_lines_and_listed_by_status_on_gsi1() {
        let refund = staff_refund();
        let item = to_item(&refund);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("GSI1PK", "S REFUNDS#REQUESTED"),
                ("GSI1SK", "S 2026-10-08T14:30:00Z"),
                ("PK", "S ORDER#o100"),
                ("SK", "S REFUND#rf_1"),
                ("amount", "N 1990"),
                ("attempts", "N 0"),
                ("currency", "S usd"),
                ("eventSequence", "N 1"),
                ("kind", "S staff"),
                ("lines", "M({\"SKU-1\": N(\"2\")})"),
                ("orderId", "S o100"),
                ("paymentId", "S pi_1"),
                ("reason", "S damaged"),
                ("refundId", "S rf_1"),
                ("requestedAt", "S 2026-10-08T14:30:00Z"),
                ("restock", "Bool(true)"),
                ("shipping", "N 0"),
                ("status", "S REQUESTED"),
            ])
        );
        assert_eq!(
            Entity::of("ORDER#o100", "REFUND#rf_1"),
            Some(entity(&refund))
        );
        assert_eq!(from_item(item).expect("reads"), refund);
    }

    #[test]
    fn a_refunds_status_partition_reads_back() {
        for status in RefundStatus::ALL {
            assert_eq!(status_of_gsi1pk(&gsi1pk(status)), Some(status));
        }
        assert_eq!(status_of_gsi1pk("STATUS#PLACED"), None);
        assert_eq!(gsi1pk(RefundStatus::Pending), "REFUNDS#PENDING");
    }
}
