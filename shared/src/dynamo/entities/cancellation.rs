//! A cancellation of lines, `ORDER#<orderId>` / `CANCELLATION#<cancellationId>`: unshipped
//! units of an order that will never ship, recorded once (its ID comes from the request's
//! `Idempotency-Key`) in the transaction that counts them on the lines, puts their stock back
//! and requests their refund. Read with the order (access pattern 7: its sort keys fall first in
//! the order's partition, `keys::ORDER_PARTITION`); its one event, `cancellation.recorded`,
//! is its insertion (`eventSequence` 1).

use crate::domain::cancellation::Cancellation;
use crate::domain::ids::{CancellationId, CustomerId, OrderId, RefundId};
use crate::domain::order::LineQuantity;
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, SK, primary_key};
use crate::dynamo::entities::line_item;
use crate::dynamo::keys::{self, CANCELLATION_PREFIX, Entity, MalformedKey, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::PutSpec;

/// The order's customer: whom its event is about.
pub const CUSTOMER_ID: Attr<CustomerId> = Attr::new("customerId");
record! {
    /// What a cancellation's item stores of it.
    pub Record stores Cancellation beside (cancellation_id: CancellationId) {
        /// The units cancelled: a map of SKU to quantity.
        lines: Vec<LineQuantity> = LINES "lines", required, store;
        /// Why, in staff's words.
        reason: String = REASON "reason", required, store;
        /// Staff's note, for staff.
        note: String = NOTE "note", optional, store;
        /// The refund it requested.
        refund_id: RefundId = REFUND_ID "refundId", optional, store;
        /// When.
        cancelled_at: Timestamp = CANCELLED_AT "cancelledAt", required, store;
    }
}

/// Its events: 1, its recording.
pub const EVENT_SEQUENCE: Attr<u64> = Attr::new("eventSequence");

/// What cancelling lines puts: the record whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::Cancellation,
    attributes: &[
        keys::PK,
        keys::SK,
        CUSTOMER_ID.name,
        LINES.name,
        REASON.name,
        NOTE.name,
        REFUND_ID.name,
        CANCELLED_AT.name,
        EVENT_SEQUENCE.name,
    ],
};

/// Its sort key.
pub fn sk(cancellation: &CancellationId) -> String {
    format!("{CANCELLATION_PREFIX}{cancellation}")
}

/// The cancellation a sort key names.
pub fn parse_sk(sk: &str) -> Result<CancellationId, MalformedKey> {
    sk.strip_prefix(CANCELLATION_PREFIX)
        .and_then(|raw| CancellationId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// Its key, in its order's partition.
pub fn key(order: &OrderId, cancellation: &CancellationId) -> Item {
    primary_key(line_item::pk(order), sk(cancellation))
}

/// The record of `cancellation`, of `order` by `customer`.
pub fn to_item(order: &OrderId, customer: &CustomerId, cancellation: &Cancellation) -> Item {
    let mut item = key(order, &cancellation.cancellation_id);
    CUSTOMER_ID.put(&mut item, customer);
    Record::write(&mut item, cancellation);
    EVENT_SEQUENCE.put(&mut item, &1);
    item
}

/// The order, its customer and the cancellation a record holds.
pub fn from_item(mut item: Item) -> Result<(OrderId, CustomerId, Cancellation), BadItem> {
    let order = line_item::parse_pk(&PK.take(&mut item)?)?;
    let cancellation_id = parse_sk(&SK.take(&mut item)?)?;
    let customer = CUSTOMER_ID.take(&mut item)?;
    Ok((order, customer, Record::read(&mut item, cancellation_id)?))
}

/// How many events a cancellation's record has given ([`EVENT_SEQUENCE`]).
pub fn event_sequence(item: &Item) -> u64 {
    EVENT_SEQUENCE.get(item).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::Sku;
    use crate::dynamo::entities::test_support::{c1, o100, pairs, shape};

    #[test]
    fn a_cancellation_is_kept_first_in_its_orders_partition_and_reads_back() {
        let cancellation = Cancellation {
            cancellation_id: CancellationId::parse("cn_1").expect("id"),
            lines: vec![LineQuantity {
                sku: Sku::parse("sku-1").expect("sku"),
                quantity: 1,
            }],
            reason: "out of stock at the warehouse".into(),
            note: Some("supplier short-shipped".into()),
            refund_id: Some(RefundId::parse("rf_cn_1").expect("id")),
            cancelled_at: Timestamp::parse("2026-12-02T10:00:00Z").expect("time"),
        };
        let item = to_item(&o100(), &c1(), &cancellation);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S ORDER#o100"),
                ("SK", "S CANCELLATION#cn_1"),
                ("cancelledAt", "S 2026-12-02T10:00:00Z"),
                ("customerId", "S c1"),
                ("eventSequence", "N 1"),
                ("lines", "M({\"sku-1\": N(\"1\")})"),
                ("note", "S supplier short-shipped"),
                ("reason", "S out of stock at the warehouse"),
                ("refundId", "S rf_cn_1"),
            ])
        );
        assert_eq!(
            from_item(item).expect("reads"),
            (o100(), c1(), cancellation)
        );
        assert!(parse_sk("CANCELLATION#").is_err());
    }
}
