//! A return, `ORDER#<orderId>` / `RETURN#<returnId>`: a customer's return of delivered units of
//! an order. Read with the order (access pattern 7: its sort keys fall last in the order's
//! partition, `keys::ORDER_PARTITION`) and listed by status on GSI1, `RETURNS#<status>` /
//! `<requestedAt>` (access pattern 11: staff's work list, oldest first). Its record counts its
//! events (`eventSequence`): every move of it adds one, on the condition that the counter is
//! still the one read, so of two racing moves one is made.

use crate::domain::ids::{CustomerId, OrderId, RefundId, ReturnId};
use crate::domain::order::LineQuantity;
use crate::domain::returns::{ListedReturn, OrderReturn, ReceivedLine, ReturnStatus};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, SK, primary_key};
use crate::dynamo::entities::line_item;
use crate::dynamo::keys::{
    self, Entity, MalformedKey, RETURN_PREFIX, RETURNS_GSI1_PREFIX, malformed,
};
use crate::dynamo::record::record;
use crate::dynamo::update::{Change, PutSpec, UpdateSpec};

/// The order's customer: who may see and cancel it, and whom its events are about.
pub const CUSTOMER_ID: Attr<CustomerId> = Attr::new("customerId");
/// Its order (beside the key, for its listing on GSI1).
pub const ORDER_ID: Attr<OrderId> = Attr::new("orderId");
/// Its return ID (beside the key, for its listing on GSI1).
pub const RETURN_ID: Attr<ReturnId> = Attr::new("returnId");
record! {
    /// What a return's item stores of it (its order, customer and listing beside, by hand).
    pub Record stores OrderReturn beside (return_id: ReturnId) without (refund_status) {
        /// Where it is.
        status: ReturnStatus = STATUS "status", required, store;
        /// The units asked to return: a map of SKU to quantity.
        lines: Vec<LineQuantity> = LINES "lines", required, store;
        /// Why, in the customer's words.
        reason: String = REASON "reason", required, store;
        /// Staff's note on it, for staff.
        note: String = NOTE "note", optional, store;
        /// When it was asked for.
        requested_at: Timestamp = REQUESTED_AT "requestedAt", required, store;
        /// When its status last changed.
        updated_at: Timestamp = UPDATED_AT "updatedAt", required, store;
        /// What arrived: a map of SKU to `received` and `damaged`.
        received: Vec<ReceivedLine> = RECEIVED "received", empty, store;
        /// The refund its receipt requested.
        refund_id: RefundId = REFUND_ID "refundId", optional, store;
        /// How many events it has given: 1 when asked for, one more per move.
        event_sequence: u64 = EVENT_SEQUENCE "eventSequence", default, store;
    }
}

/// GSI1's partition key: `RETURNS#<status>`.
pub const GSI1PK: Attr<String> = Attr::new(keys::GSI1PK);
/// GSI1's sort key: when it was asked for.
pub const GSI1SK: Attr<String> = Attr::new(keys::GSI1SK);

/// What asking for a return puts: the record whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::OrderReturn,
    attributes: &[
        keys::PK,
        keys::SK,
        CUSTOMER_ID.name,
        ORDER_ID.name,
        RETURN_ID.name,
        STATUS.name,
        LINES.name,
        REASON.name,
        REQUESTED_AT.name,
        UPDATED_AT.name,
        EVENT_SEQUENCE.name,
        GSI1PK.name,
        GSI1SK.name,
    ],
};

/// A move of it (approved, declined, canceled, received): its status and listing, what
/// arrived and the refund requested, on the condition that its event counter is still the one
/// read.
pub const MOVE: UpdateSpec = UpdateSpec {
    set: &[
        STATUS.name,
        UPDATED_AT.name,
        RECEIVED.name,
        REFUND_ID.name,
        NOTE.name,
        EVENT_SEQUENCE.name,
        GSI1PK.name,
    ],
    checks: &[EVENT_SEQUENCE.name],
    ..UpdateSpec::of(Entity::OrderReturn)
};

/// Its sort key.
pub fn sk(order_return: &ReturnId) -> String {
    format!("{RETURN_PREFIX}{order_return}")
}

/// The return a sort key names.
pub fn parse_sk(sk: &str) -> Result<ReturnId, MalformedKey> {
    sk.strip_prefix(RETURN_PREFIX)
        .and_then(|raw| ReturnId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// Its key, in its order's partition.
pub fn key(order: &OrderId, order_return: &ReturnId) -> Item {
    primary_key(line_item::pk(order), sk(order_return))
}

/// GSI1's partition of returns in `status`.
pub fn gsi1pk(status: ReturnStatus) -> String {
    format!("{RETURNS_GSI1_PREFIX}{status}")
}

/// The record of `order_return`, of `order` by `customer`, as asking for it writes it.
pub fn to_item(order: &OrderId, customer: &CustomerId, order_return: &OrderReturn) -> Item {
    let mut item = key(order, &order_return.return_id);
    CUSTOMER_ID.put(&mut item, customer);
    ORDER_ID.put(&mut item, order);
    RETURN_ID.put(&mut item, &order_return.return_id);
    Record::write(&mut item, order_return);
    GSI1PK.put(&mut item, &gsi1pk(order_return.status));
    GSI1SK.put(&mut item, &order_return.requested_at.to_string());
    item
}

/// `read` of `order` becoming `next` (a move, or its receipt): its status, listing, receipt
/// and counter set as `next` has them, on the condition that its counter is still `read`'s.
pub fn moved(table: &str, order: &OrderId, read: &OrderReturn, next: &OrderReturn) -> Change {
    let mut change = MOVE
        .on(table, key(order, &read.return_id))
        .set(&STATUS, &next.status)
        .set(&GSI1PK, &gsi1pk(next.status))
        .set(&UPDATED_AT, &next.updated_at)
        .set(&EVENT_SEQUENCE, &next.event_sequence)
        .counter_still(&EVENT_SEQUENCE, read.event_sequence);
    if !next.received.is_empty() {
        change = change.set(&RECEIVED, &next.received);
    }
    if let Some(refund) = &next.refund_id {
        change = change.set(&REFUND_ID, refund);
    }
    if let Some(note) = next.note.as_ref().filter(|_| next.note != read.note) {
        change = change.set(&NOTE, note);
    }
    change
}

/// The order, its customer and the return a record holds.
pub fn from_item(mut item: Item) -> Result<(OrderId, CustomerId, OrderReturn), BadItem> {
    let order = line_item::parse_pk(&PK.take(&mut item)?)?;
    let return_id = parse_sk(&SK.take(&mut item)?)?;
    let customer = CUSTOMER_ID.take(&mut item)?;
    // Its refund's status is the refund's, not the return's: read with the order.
    let order_return = Record::read(&mut item, return_id)?;
    Ok((order, customer, order_return))
}

/// A return as its listing on GSI1 shows it: with its order and customer.
pub fn listed(item: Item) -> Result<ListedReturn, BadItem> {
    let (order_id, customer_id, order_return) = from_item(item)?;
    Ok(ListedReturn {
        order_id,
        customer_id,
        order_return,
    })
}

/// How many events a return's record has given ([`EVENT_SEQUENCE`]).
pub fn event_sequence(item: &Item) -> u64 {
    EVENT_SEQUENCE.get(item).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::Sku;
    use crate::domain::returns::ReturnActor;
    use crate::dynamo::entities::test_support::{c1, o100, pairs, shape};

    fn asked() -> OrderReturn {
        OrderReturn::requested(
            ReturnId::parse("rt_1").expect("id"),
            vec![LineQuantity {
                sku: Sku::parse("sku-1").expect("sku"),
                quantity: 2,
            }],
            "too small".into(),
            Timestamp::parse("2026-12-02T10:00:00Z").expect("time"),
        )
    }

    #[test]
    fn a_return_is_kept_last_in_its_orders_partition_listed_by_status_and_reads_back() {
        let item = to_item(&o100(), &c1(), &asked());
        assert_eq!(
            shape(&item),
            pairs(&[
                ("GSI1PK", "S RETURNS#REQUESTED"),
                ("GSI1SK", "S 2026-12-02T10:00:00Z"),
                ("PK", "S ORDER#o100"),
                ("SK", "S RETURN#rt_1"),
                ("customerId", "S c1"),
                ("eventSequence", "N 1"),
                ("lines", "M({\"sku-1\": N(\"2\")})"),
                ("orderId", "S o100"),
                ("reason", "S too small"),
                ("requestedAt", "S 2026-12-02T10:00:00Z"),
                ("returnId", "S rt_1"),
                ("status", "S REQUESTED"),
                ("updatedAt", "S 2026-12-02T10:00:00Z"),
            ])
        );
        assert_eq!(from_item(item).expect("reads"), (o100(), c1(), asked()));
        assert!(parse_sk("RETURN#").is_err());
    }

    #[test]
    fn a_receipt_reads_back_with_what_arrived_and_its_refund() {
        let now = Timestamp::parse("2026-12-03T10:00:00Z").expect("time");
        let approved = asked()
            .moved(ReturnStatus::Approved, ReturnActor::Staff, now)
            .expect("staff approve");
        let received = approved.receipt(
            vec![ReceivedLine {
                sku: Sku::parse("sku-1").expect("sku"),
                received: 2,
                damaged: 1,
            }],
            Some(RefundId::of_return(&approved.return_id)),
            now,
        );
        assert_eq!(received.status, ReturnStatus::Refunded);
        assert_eq!(received.event_sequence, 3);
        let item = to_item(&o100(), &c1(), &received);
        let stored = shape(&item);
        let cell = |name: &str| {
            stored
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(cell("status").as_deref(), Some("S REFUNDED"));
        assert_eq!(cell("GSI1PK").as_deref(), Some("S RETURNS#REFUNDED"));
        assert_eq!(cell("refundId").as_deref(), Some("S rf_rt_1"));
        assert!(cell("received").is_some_and(|v| v.contains("\"damaged\": N(\"1\")")));
        assert_eq!(from_item(item).expect("reads").2, received);
    }
}
