//! A fulfilment, `ORDER#<orderId>` / `FULFILMENT#<fulfilmentId>`: one shipment of some of an
//! order's lines, with its tracking (access pattern 7 reads it with the order: one Query on the
//! order's partition, where its sort keys fall before the header's, `keys::ORDER_PARTITION`).
//! Its record counts its events (`eventSequence`): every change of it moves the counter on, on
//! the condition that it is still the one read, so of two racing changes one is made.

use crate::domain::fulfilment::{Fulfilment, FulfilmentStatus, Tracking, TrackingChange};
use crate::domain::ids::{CustomerId, FulfilmentId, OrderId};
use crate::domain::order::LineQuantity;
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, SK, primary_key};
use crate::dynamo::entities::line_item;
use crate::dynamo::keys::{self, Entity, FULFILMENT_PREFIX, MalformedKey, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::{Change, PutSpec, UpdateSpec};

/// The order's customer: whom its events and emails are about.
pub const CUSTOMER_ID: Attr<CustomerId> = Attr::new("customerId");
record! {
    /// What a fulfilment's item stores of it, its tracking beside ([`TrackingRecord`]).
    pub Record stores Fulfilment beside (fulfilment_id: FulfilmentId, tracking: Tracking) {
        /// Where it is.
        status: FulfilmentStatus = STATUS "status", required, store;
        /// What it carries: a map of SKU to quantity.
        lines: Vec<LineQuantity> = LINES "lines", required, store;
        /// When it was shipped.
        shipped_at: Timestamp = SHIPPED_AT "shippedAt", required, store;
        /// When it was delivered.
        delivered_at: Timestamp = DELIVERED_AT "deliveredAt", optional, store;
        /// When its status or tracking last changed.
        updated_at: Timestamp = UPDATED_AT "updatedAt", required, store;
        /// The tracking corrections replaced, oldest first.
        history: Vec<TrackingChange> = HISTORY "history", empty, store;
        /// How many events it has given: 1 when shipped, one more per change.
        event_sequence: u64 = EVENT_SEQUENCE "eventSequence", default, store;
    }
}

record! {
    /// What a fulfilment's item stores of its tracking, each part absent until given.
    pub TrackingRecord stores Tracking beside () {
        /// The carrier.
        carrier: String = CARRIER "carrier", optional, store;
        /// The carrier's number for it.
        tracking_number: String = TRACKING_NUMBER "trackingNumber", optional, store;
        /// Where the customer follows it.
        tracking_url: String = TRACKING_URL "trackingUrl", optional, store;
    }
}

/// What shipping puts: the record whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::Fulfilment,
    attributes: &[
        keys::PK,
        keys::SK,
        CUSTOMER_ID.name,
        STATUS.name,
        LINES.name,
        CARRIER.name,
        TRACKING_NUMBER.name,
        TRACKING_URL.name,
        SHIPPED_AT.name,
        UPDATED_AT.name,
        EVENT_SEQUENCE.name,
    ],
};

/// A change of its status or tracking (the replaced tracking added to its history): what it
/// is now set whole, on the condition that its event counter is still the one read.
pub const UPDATE: UpdateSpec = UpdateSpec {
    set: &[
        STATUS.name,
        CARRIER.name,
        TRACKING_NUMBER.name,
        TRACKING_URL.name,
        DELIVERED_AT.name,
        UPDATED_AT.name,
        HISTORY.name,
        EVENT_SEQUENCE.name,
    ],
    remove: &[CARRIER.name, TRACKING_NUMBER.name, TRACKING_URL.name],
    checks: &[EVENT_SEQUENCE.name],
    ..UpdateSpec::of(Entity::Fulfilment)
};

/// Its sort key.
pub fn sk(fulfilment: &FulfilmentId) -> String {
    format!("{FULFILMENT_PREFIX}{fulfilment}")
}

/// The fulfilment a sort key names.
pub fn parse_sk(sk: &str) -> Result<FulfilmentId, MalformedKey> {
    sk.strip_prefix(FULFILMENT_PREFIX)
        .and_then(|raw| FulfilmentId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// Its key, in its order's partition.
pub fn key(order: &OrderId, fulfilment: &FulfilmentId) -> Item {
    primary_key(line_item::pk(order), sk(fulfilment))
}

/// The record of `fulfilment`, of `order` by `customer`, as shipping writes it.
pub fn to_item(order: &OrderId, customer: &CustomerId, fulfilment: &Fulfilment) -> Item {
    let mut item = key(order, &fulfilment.fulfilment_id);
    CUSTOMER_ID.put(&mut item, customer);
    Record::write(&mut item, fulfilment);
    TrackingRecord::write(&mut item, &fulfilment.tracking);
    item
}

/// `read` of `order` becoming `next` ([`Fulfilment::updated`]): its status, tracking, delivery,
/// history and counter set as `next` has them, on the condition that its counter is still
/// `read`'s.
pub fn update(table: &str, order: &OrderId, read: &Fulfilment, next: &Fulfilment) -> Change {
    let mut change = UPDATE
        .on(table, key(order, &read.fulfilment_id))
        .set(&STATUS, &next.status)
        .set(&UPDATED_AT, &next.updated_at)
        .set(&EVENT_SEQUENCE, &next.event_sequence)
        .counter_still(&EVENT_SEQUENCE, read.event_sequence);
    change = TrackingRecord::replace(change, &next.tracking);
    if let Some(at) = &next.delivered_at {
        change = change.set(&DELIVERED_AT, at);
    }
    if next.history != read.history {
        change = change.set(&HISTORY, &next.history);
    }
    change
}

/// The order and the fulfilment a record holds (and whose order it is).
pub fn from_item(mut item: Item) -> Result<(OrderId, CustomerId, Fulfilment), BadItem> {
    let order = line_item::parse_pk(&PK.take(&mut item)?)?;
    let fulfilment_id = parse_sk(&SK.take(&mut item)?)?;
    let customer = CUSTOMER_ID.take(&mut item)?;
    let tracking = TrackingRecord::read(&mut item)?;
    let fulfilment = Record::read(&mut item, fulfilment_id, tracking)?;
    Ok((order, customer, fulfilment))
}

/// How many events a fulfilment's record has given ([`EVENT_SEQUENCE`]).
pub fn event_sequence(item: &Item) -> u64 {
    EVENT_SEQUENCE.get(item).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::fulfilment::FulfilmentUpdate;
    use crate::domain::ids::Sku;
    use crate::dynamo::entities::test_support::{c1, o100, pairs, shape};

    fn shipped() -> Fulfilment {
        Fulfilment::shipped(
            FulfilmentId::parse("ff_1").expect("id"),
            vec![LineQuantity {
                sku: Sku::parse("sku-1").expect("sku"),
                quantity: 2,
            }],
            Tracking {
                carrier: Some("DHL".into()),
                tracking_number: Some("JD0001".into()),
                tracking_url: None,
            },
            Timestamp::parse("2026-12-02T10:00:00Z").expect("time"),
        )
    }

    #[test]
    fn fulfilment_keys() {
        assert_eq!(
            sk(&FulfilmentId::parse("ff_1").expect("id")),
            "FULFILMENT#ff_1"
        );
        assert_eq!(
            key(&o100(), &FulfilmentId::parse("ff_1").expect("id"))["PK"]
                .as_s()
                .ok()
                .map(String::as_str),
            Some("ORDER#o100")
        );
        assert!(parse_sk("FULFILMENT#").is_err());
        assert!(parse_sk("ITEM#sku-1").is_err());
    }

    #[test]
    fn a_fulfilment_is_written_in_its_orders_partition_and_reads_back() {
        let fulfilment = shipped();
        let item = to_item(&o100(), &c1(), &fulfilment);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S ORDER#o100"),
                ("SK", "S FULFILMENT#ff_1"),
                ("carrier", "S DHL"),
                ("customerId", "S c1"),
                ("eventSequence", "N 1"),
                ("lines", "M({\"sku-1\": N(\"2\")})"),
                ("shippedAt", "S 2026-12-02T10:00:00Z"),
                ("status", "S SHIPPED"),
                ("trackingNumber", "S JD0001"),
                ("updatedAt", "S 2026-12-02T10:00:00Z"),
            ])
        );
        for name in item.keys() {
            assert!(PUT.attributes.contains(&name.as_str()), "{name}");
        }
        assert_eq!(
            from_item(item).expect("reads"),
            (o100(), c1(), fulfilment.clone())
        );
        // A correction and a delivery: the history kept, read back the same.
        let later = Timestamp::parse("2026-12-03T10:00:00Z").expect("time");
        let corrected = fulfilment
            .updated(
                &FulfilmentUpdate {
                    status: Some(FulfilmentStatus::Delivered),
                    tracking: Some(Tracking {
                        carrier: Some("UPS".into()),
                        ..Tracking::default()
                    }),
                },
                later,
            )
            .expect("moves");
        let mut item = to_item(&o100(), &c1(), &corrected);
        HISTORY.put(&mut item, &corrected.history);
        DELIVERED_AT.put(&mut item, &later);
        let (_, _, read) = from_item(item).expect("reads");
        assert_eq!(read, corrected);
    }
}
