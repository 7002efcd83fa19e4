//! The store's events as its stream records tell them: each committed change of an order's
//! header, a fulfilment, a refund's record or a product, read through the entities' own codecs from the
//! record's old and new images, becomes the events it is (`domain::event`). Nothing is read
//! back and nothing is written: a record gives the same events on every delivery.
//!
//! An order's header and a refund's record count their events themselves
//! (`eventSequence`, moved on by the write that gives one): a record gives as many events as
//! its counter moved, numbered from where it stood, and the change must say which they are.
//! A counter that moved without a change to explain it (or a change the counter did not count)
//! is a writer's mistake, reported as an unreadable record rather than guessed at.

use aws_lambda_events::event::dynamodb::EventRecord;

use crate::domain::event::{EventType, StoreEvent, Subject};
use crate::domain::refund::RefundStatus;
use crate::domain::time::Timestamp;
use crate::dynamo::catalog_events;
use crate::dynamo::codec::{BadItem, Item};
use crate::dynamo::entities::{
    cancellation, fulfilment, order_charges, order_header, order_return, refund,
};
use crate::dynamo::keys::{Entity, PK, SK};
use crate::dynamo::stats::records::is_ttl_deletion;
use crate::dynamo::stats::{PoisonRecord, describe_keys};

/// What turns changes into events beyond the records themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventRules {
    /// `LowStockThreshold`: a product whose stock falls from at least this to below it is low
    /// (0: never).
    pub low_stock: u64,
}

/// The entities whose changes are events: what the publisher's stream filter lets through.
pub const EVENTFUL: [Entity; 8] = [
    Entity::OrderHeader,
    Entity::OrderRefund,
    Entity::RefundDue,
    Entity::Variant,
    Entity::Product,
    Entity::Fulfilment,
    Entity::Cancellation,
    Entity::OrderReturn,
];

/// A record's images: none before an INSERT.
type Images = (Option<Item>, Item);

/// The events one stream record gives, in the order they happened; none for an item no event
/// is about, a deletion, or a change that gives none. A record that should give events but
/// cannot be read is an error, never skipped.
pub fn events_of(record: &EventRecord, rules: EventRules) -> Result<Vec<StoreEvent>, PoisonRecord> {
    if record.event_name == "REMOVE" || is_ttl_deletion(record) {
        return Ok(Vec::new());
    }
    let keys: Item = record.change.keys.clone().into();
    let text = |name: &str| keys.get(name).and_then(|v| v.as_s().ok());
    let Some(entity) = text(PK)
        .zip(text(SK))
        .and_then(|(pk, sk)| Entity::of(pk, sk))
        .filter(|entity| EVENTFUL.contains(entity))
    else {
        return Ok(Vec::new());
    };
    let poison = |reason: String| PoisonRecord {
        event: record.event_name.clone(),
        keys: describe_keys(&keys),
        reason,
    };
    let images: Images = match record.event_name.as_str() {
        "INSERT" => (None, record.change.new_image.clone().into()),
        "MODIFY" => (
            Some(record.change.old_image.clone().into()),
            record.change.new_image.clone().into(),
        ),
        other => return Err(poison(format!("unknown event {other:?}"))),
    };
    let at = Timestamp::from_datetime(record.change.approximate_creation_date_time);
    match entity {
        Entity::OrderHeader => header_events(images, at),
        Entity::Fulfilment => fulfilment_events(images, at),
        Entity::Cancellation => cancellation_events(images, at),
        Entity::OrderReturn => return_events(images, at),
        Entity::Variant | Entity::Product => {
            let sequence_number = record
                .change
                .sequence_number
                .clone()
                .ok_or_else(|| "no sequence number".to_owned());
            sequence_number.and_then(|at_record| {
                let derived = if entity == Entity::Product {
                    catalog_events::product_events(images, at, at_record)
                } else {
                    catalog_events::variant_events(images, at, at_record, rules.low_stock)
                };
                derived.map_err(|e| e.to_string())
            })
        }
        _ => refund_events(images, at),
    }
    .map_err(poison)
}

/// The events a counter's move from `before` to `after` numbers: `kinds`, which must be as many
/// as it moved.
fn numbered(
    before: u64,
    after: u64,
    kinds: Vec<EventType>,
) -> Result<impl Iterator<Item = (u64, EventType)>, String> {
    let moved = after
        .checked_sub(before)
        .ok_or_else(|| format!("its event counter went back, from {before} to {after}"))?;
    if moved != kinds.len() as u64 {
        let names: Vec<&str> = kinds.iter().map(|kind| kind.as_str()).collect();
        return Err(format!(
            "its event counter moved by {moved} (from {before}), but its change gives {names:?}"
        ));
    }
    Ok((before + 1..=after).zip(kinds))
}

/// A header's events: a new order's hold or placing; a status change; its payment's first
/// dispute; or, with neither, a failed attempt to pay its hold.
fn header_events((old, new): Images, at: Timestamp) -> Result<Vec<StoreEvent>, String> {
    let bad = |err: BadItem| err.to_string();
    let after = order_header::event_sequence(&new);
    let before = old.as_ref().map_or(0, order_header::event_sequence);
    if after == before {
        return Ok(Vec::new());
    }
    let mut new = new;
    let charged = order_charges::take(&mut new).map_err(bad)?;
    let new = order_header::from_item(new).map_err(bad)?;
    let old = old.map(order_header::from_item).transpose().map_err(bad)?;
    let mut kinds = Vec::new();
    let mut previous_status = None;
    match &old {
        None => kinds.extend(EventType::of_new_order(new.status)),
        Some(old) => {
            if old.status != new.status {
                kinds.extend(EventType::of_status_change(new.status));
                previous_status = Some(old.status);
            }
            if old.dispute.is_none() && new.dispute.is_some() {
                kinds.push(EventType::Disputed);
            }
            if kinds.is_empty() && new.payment_error.is_some() {
                kinds.push(EventType::PaymentFailed);
            }
        }
    }
    let subject = Subject::Order(new.order_id.clone());
    Ok(numbered(before, after, kinds)?
        .map(|(sequence, kind)| {
            let event = StoreEvent::new(kind, &subject, sequence, at).about_order(&new);
            StoreEvent {
                previous_status: previous_status.filter(|_| kind != EventType::Disputed),
                charged: charged.clone(),
                ..event
            }
        })
        .collect())
}

/// A fulfilment's events: shipped; a move of its status (in transit, delivered, a delivery
/// failed); its tracking corrected.
fn fulfilment_events((old, new): Images, at: Timestamp) -> Result<Vec<StoreEvent>, String> {
    let bad = |err: BadItem| err.to_string();
    let after = fulfilment::event_sequence(&new);
    let before = old.as_ref().map_or(0, fulfilment::event_sequence);
    if after == before {
        return Ok(Vec::new());
    }
    let (order, customer, new) = fulfilment::from_item(new).map_err(bad)?;
    let old = old.map(fulfilment::from_item).transpose().map_err(bad)?;
    let kinds: Vec<EventType> = match &old {
        None => vec![EventType::FulfilmentShipped],
        Some((_, _, old)) => {
            let moved = (old.status != new.status)
                .then(|| EventType::of_fulfilment_status(new.status))
                .flatten();
            let corrected = (old.tracking != new.tracking).then_some(EventType::TrackingUpdated);
            moved.into_iter().chain(corrected).collect()
        }
    };
    let subject = Subject::Fulfilment(new.fulfilment_id.clone());
    Ok(numbered(before, after, kinds)?
        .map(|(sequence, kind)| {
            StoreEvent::new(kind, &subject, sequence, at).about_fulfilment(&order, &customer, &new)
        })
        .collect())
}

/// A cancellation's one event: its recording (nothing changes it after).
fn cancellation_events((old, new): Images, at: Timestamp) -> Result<Vec<StoreEvent>, String> {
    let after = cancellation::event_sequence(&new);
    let before = old.as_ref().map_or(0, cancellation::event_sequence);
    if after == before {
        return Ok(Vec::new());
    }
    let (order, customer, new) = cancellation::from_item(new).map_err(|err| err.to_string())?;
    let kinds = if old.is_none() {
        vec![EventType::CancellationRecorded]
    } else {
        Vec::new()
    };
    let subject = Subject::Cancellation(new.cancellation_id.clone());
    Ok(numbered(before, after, kinds)?
        .map(|(sequence, kind)| {
            StoreEvent::new(kind, &subject, sequence, at)
                .about_cancellation(&order, &customer, &new)
        })
        .collect())
}

/// A return's events: asked for, then each move of its status (approved, declined, canceled,
/// received, refunded).
fn return_events((old, new): Images, at: Timestamp) -> Result<Vec<StoreEvent>, String> {
    let bad = |err: BadItem| err.to_string();
    let after = order_return::event_sequence(&new);
    let before = old.as_ref().map_or(0, order_return::event_sequence);
    if after == before {
        return Ok(Vec::new());
    }
    let (order, customer, new) = order_return::from_item(new).map_err(bad)?;
    let old = old.map(order_return::from_item).transpose().map_err(bad)?;
    let kinds: Vec<EventType> = match &old {
        None => vec![EventType::ReturnRequested],
        Some((_, _, old)) if old.status != new.status => {
            vec![EventType::of_return_status(new.status)]
        }
        Some(_) => Vec::new(),
    };
    let subject = Subject::Return(new.return_id.clone());
    Ok(numbered(before, after, kinds)?
        .map(|(sequence, kind)| {
            StoreEvent::new(kind, &subject, sequence, at).about_return(&order, &customer, &new)
        })
        .collect())
}

/// The event a refund's entering `status` is.
fn settled_event(status: RefundStatus) -> Option<EventType> {
    match status {
        RefundStatus::Succeeded => Some(EventType::RefundSucceeded),
        RefundStatus::Failed | RefundStatus::Reversed => Some(EventType::RefundFailed),
        RefundStatus::Requested | RefundStatus::Pending => None,
    }
}

/// A refund's events: recorded (and, recorded settled already, its end too); paid back; refused
/// or reversed. Claims and sends move nothing a consumer hears of; the pointer a payment's
/// refund leaves under the payment is no refund.
fn refund_events((old, new): Images, at: Timestamp) -> Result<Vec<StoreEvent>, String> {
    if refund::STATUS.get(&new).is_none() {
        return Ok(Vec::new());
    }
    let after = refund::event_sequence(&new);
    let before = old.as_ref().map_or(0, refund::event_sequence);
    if after == before {
        return Ok(Vec::new());
    }
    let was = old.as_ref().and_then(|old| refund::STATUS.get(old));
    let new = refund::from_item(new).map_err(|err| err.to_string())?;
    let kinds: Vec<EventType> = match was {
        None => std::iter::once(EventType::RefundRequested)
            .chain(settled_event(new.status))
            .collect(),
        Some(was) if was != new.status => settled_event(new.status).into_iter().collect(),
        Some(_) => Vec::new(),
    };
    let subject = Subject::Refund(new.refund_id.clone());
    Ok(numbered(before, after, kinds)?
        .map(|(sequence, kind)| StoreEvent::new(kind, &subject, sequence, at).about_refund(&new))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::{PaymentId, RefundId};
    use crate::domain::order::Order;
    use crate::domain::refund::{Refund, RefundKind};
    use crate::domain::status::OrderStatus;
    use crate::domain::variant::Variant;
    use crate::dynamo::entities::refund_due;
    use crate::dynamo::entities::test_support::{o100, order, sku1};

    const RULES: EventRules = EventRules { low_stock: 5 };

    /// A stream record of `event` for `new` (and `old`), at `sequence_number`.
    fn record(event: &str, old: Option<Item>, new: Item, sequence_number: &str) -> EventRecord {
        let keys: Item = [PK, SK]
            .into_iter()
            .filter_map(|name| Some((name.to_owned(), new.get(name)?.clone())))
            .collect();
        let mut record = EventRecord::default();
        record.event_id = format!("r{sequence_number}");
        record.event_name = event.to_owned();
        record.change.keys = keys.into();
        record.change.new_image = new.into();
        if let Some(old) = old {
            record.change.old_image = old.into();
        }
        record.change.sequence_number = Some(sequence_number.to_owned());
        record
    }

    fn kinds(events: &[StoreEvent]) -> Vec<(&'static str, Option<u64>)> {
        events
            .iter()
            .map(|e| (e.kind.as_str(), e.sequence))
            .collect()
    }

    fn header(order: &Order, sequence: Option<u64>) -> Item {
        let mut item = order_header::to_item(order);
        match sequence {
            Some(n) => order_header::EVENT_SEQUENCE.put(&mut item, &n),
            None => {
                item.remove(order_header::EVENT_SEQUENCE.name);
            }
        }
        item
    }

    fn hold() -> Order {
        order(OrderStatus::PendingPayment)
    }

    #[test]
    fn a_hold_then_its_payment_are_the_orders_first_two_events() {
        let started = events_of(
            &record("INSERT", None, header(&hold(), Some(1)), "10"),
            RULES,
        )
        .expect("readable");
        assert_eq!(kinds(&started), [("order.hold-started", Some(1))]);
        assert_eq!(started[0].event_id.as_str(), "order/o100/1");
        assert_eq!(
            started[0].customer_id.as_ref().map(|c| c.as_str()),
            Some("c1")
        );

        let paid = header(&order(OrderStatus::Placed), Some(2));
        let placed = events_of(
            &record("MODIFY", Some(header(&hold(), Some(1))), paid, "11"),
            RULES,
        )
        .expect("readable");
        assert_eq!(kinds(&placed), [("order.placed", Some(2))]);
        assert_eq!(placed[0].previous_status, Some(OrderStatus::PendingPayment));
        assert_eq!(placed[0].event_id.as_str(), "order/o100/2");
    }

    #[test]
    fn changes_the_counter_did_not_count_give_nothing_and_the_sample_data_is_no_event() {
        let with_intent = Order {
            payment_intent_id: Some(PaymentId::parse("pi_1").expect("id")),
            ..hold()
        };
        let recorded = record(
            "MODIFY",
            Some(header(&hold(), Some(1))),
            header(&with_intent, Some(1)),
            "12",
        );
        assert_eq!(events_of(&recorded, RULES).expect("readable"), []);
        let seeded = record(
            "INSERT",
            None,
            header(&order(OrderStatus::Delivered), None),
            "1",
        );
        assert_eq!(events_of(&seeded, RULES).expect("readable"), []);
    }

    #[test]
    fn a_counter_moved_without_a_change_to_explain_it_is_unreadable() {
        let placed = order(OrderStatus::Placed);
        let unexplained = record(
            "MODIFY",
            Some(header(&placed, Some(2))),
            header(&placed, Some(3)),
            "13",
        );
        let err = events_of(&unexplained, RULES).expect_err("unexplained");
        assert!(err.reason.contains("moved by 1"), "{err}");
        let uncounted = record(
            "MODIFY",
            Some(header(&placed, Some(2))),
            header(&order(OrderStatus::Shipped), Some(2)),
            "14",
        );
        assert_eq!(events_of(&uncounted, RULES).expect("nothing counted"), []);
        let back = record(
            "MODIFY",
            Some(header(&placed, Some(3))),
            header(&placed, Some(2)),
            "15",
        );
        assert!(events_of(&back, RULES).is_err());
    }

    #[test]
    fn each_failed_attempt_to_pay_is_an_event_even_for_the_same_reason() {
        let failed = Order {
            payment_error: Some("card_declined".into()),
            ..hold()
        };
        let first = record(
            "MODIFY",
            Some(header(&hold(), Some(1))),
            header(&failed, Some(2)),
            "20",
        );
        let again = record(
            "MODIFY",
            Some(header(&failed, Some(2))),
            header(&failed, Some(3)),
            "21",
        );
        assert_eq!(
            kinds(&events_of(&first, RULES).expect("readable")),
            [("order.payment-failed", Some(2))]
        );
        assert_eq!(
            kinds(&events_of(&again, RULES).expect("readable")),
            [("order.payment-failed", Some(3))]
        );
    }

    fn requested() -> Refund {
        Refund::requested(
            RefundId::parse("rf_1").expect("id"),
            Some(o100()),
            PaymentId::parse("pi_1").expect("id"),
            1500,
            "usd",
            RefundKind::Staff,
            "damaged".into(),
        )
    }

    fn refund_item(refund: &Refund, sequence: u64) -> Item {
        let mut item = refund::to_item(refund);
        refund::EVENT_SEQUENCE.put(&mut item, &sequence);
        item
    }

    #[test]
    fn a_refund_is_requested_claimed_without_an_event_then_paid_then_reversed() {
        let asked = requested();
        let put = record("INSERT", None, refund::to_item(&asked), "30");
        let events = events_of(&put, RULES).expect("readable");
        assert_eq!(kinds(&events), [("refund.requested", Some(1))]);
        assert_eq!(events[0].event_id.as_str(), "refund/rf_1/1");
        assert_eq!(events[0].order_id, Some(o100()));
        assert_eq!(events[0].refund.as_ref().map(|r| r.amount), Some(1500));

        let claimed = Refund {
            status: RefundStatus::Pending,
            attempts: 1,
            ..asked.clone()
        };
        let claim = record(
            "MODIFY",
            Some(refund_item(&asked, 1)),
            refund_item(&claimed, 1),
            "31",
        );
        assert_eq!(events_of(&claim, RULES).expect("readable"), []);

        let paid = Refund {
            status: RefundStatus::Succeeded,
            ..claimed.clone()
        };
        let settle = record(
            "MODIFY",
            Some(refund_item(&claimed, 1)),
            refund_item(&paid, 2),
            "32",
        );
        assert_eq!(
            kinds(&events_of(&settle, RULES).expect("readable")),
            [("refund.succeeded", Some(2))]
        );
        let reversed = Refund {
            status: RefundStatus::Reversed,
            failure: Some("lost_or_stolen_card".into()),
            ..paid.clone()
        };
        let reverse = record(
            "MODIFY",
            Some(refund_item(&paid, 2)),
            refund_item(&reversed, 3),
            "33",
        );
        assert_eq!(
            kinds(&events_of(&reverse, RULES).expect("readable")),
            [("refund.failed", Some(3))]
        );
    }

    #[test]
    fn a_refund_recorded_settled_gives_its_request_and_its_end_and_a_pointer_gives_none() {
        let failed = Refund {
            status: RefundStatus::Failed,
            ..requested()
        };
        let put = record("INSERT", None, refund::to_item(&failed), "40");
        assert_eq!(
            kinds(&events_of(&put, RULES).expect("readable")),
            [("refund.requested", Some(1)), ("refund.failed", Some(2))]
        );
        let pointer = refund_due::pointer(&requested()).expect("an order's refund");
        let pointed = record("INSERT", None, pointer, "41");
        assert_eq!(events_of(&pointed, RULES).expect("readable"), []);
    }

    fn product_item(stock: u64) -> Item {
        crate::dynamo::entities::variant::to_item(&Variant {
            stock,
            ..crate::domain::variant::test_support::mug(sku1())
        })
    }

    #[test]
    fn a_product_is_low_once_per_crossing_of_the_threshold() {
        let crossing = record("MODIFY", Some(product_item(6)), product_item(4), "50");
        let low = events_of(&crossing, RULES).expect("readable");
        assert_eq!(kinds(&low), [("product.stock-low", None)]);
        assert_eq!(low[0].event_id.as_str(), "product/sku-1/50");
        let level = low[0].product.as_ref().expect("stock");
        assert_eq!(
            (level.stock, level.previous_stock, level.threshold),
            (4, 6, 5)
        );
        for (before, after) in [(4, 3), (3, 9), (5, 5), (9, 6)] {
            let moved = record(
                "MODIFY",
                Some(product_item(before)),
                product_item(after),
                "51",
            );
            assert_eq!(
                events_of(&moved, RULES).expect("readable"),
                [],
                "{before} → {after}"
            );
        }
        let never = EventRules { low_stock: 0 };
        assert_eq!(events_of(&crossing, never).expect("readable"), []);
    }

    #[test]
    fn removals_and_other_entities_give_nothing() {
        let mut removed = record("REMOVE", None, header(&hold(), Some(1)), "60");
        removed.change.new_image = Default::default();
        assert_eq!(events_of(&removed, RULES).expect("readable"), []);
        let listing = crate::dynamo::entities::order_listing::to_item(
            &hold(),
            crate::dynamo::keys::StatusShards::ONE,
        );
        let listed = record("INSERT", None, listing, "61");
        assert_eq!(events_of(&listed, RULES).expect("readable"), []);
    }
}
