//! An order's header, `ORDER#<orderId>` / `HEADER` (access pattern 7, an order by ID with its
//! lines: one Query on PK): what a lookup by order ID needs (customerId, placedAt, status,
//! total), in the order's own partition, sorted before its line items (`keys::ORDER_PARTITION`).

use crate::domain::ids::{CustomerId, DisputeId, OrderId, PaymentId};
use crate::domain::money::Money;
use crate::domain::order::{Balance, Order, OrderDispute};
use crate::domain::pricing::quote::Charged;
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, primary_key};
use crate::dynamo::entities::{line_item, order_charges};
use crate::dynamo::keys::{self, Entity};
use crate::dynamo::record::record;
use crate::dynamo::update::{Change, PutSpec, UpdateSpec};

pub use crate::dynamo::entities::order_listing::{HOLD_UNTIL, STATUS, TOTAL, WITHDRAWN};

/// The header's sort key.
pub const SORT_KEY: &str = keys::HEADER_SK;

record! {
    /// What the header stores of its order (the header is this store's, not the source
    /// design's); its status, total and hold's end in the listing's attributes, since placing
    /// an order writes both and a status change moves both.
    pub Header stores Order beside (order_id: OrderId, dispute: Option<OrderDispute>) {
        /// Whose order: what a lookup by order ID needs to decide who may see it.
        customer_id: CustomerId = CUSTOMER_ID "customerId", required, store;
        /// When it was placed: where its listing is.
        placed_at: Timestamp = PLACED_AT "placedAt", required, store;
        status: OrderStatus = STATUS, required, store;
        total: Money = TOTAL, required, store;
        hold_until: Timestamp = HOLD_UNTIL, optional, store;
        withdrawn: Money = WITHDRAWN, optional, store;
        /// The PaymentIntent checkout asked the provider for (set once it answers): only a
        /// payment of it places the order.
        payment_intent_id: PaymentId = PAYMENT_INTENT_ID "paymentIntentId", optional, store;
        /// The payment that placed a checked-out order (set when it is paid).
        payment_id: PaymentId = PAYMENT_ID "paymentId", optional, store;
        /// Why the last attempt to pay the hold failed, in the provider's words (until it is
        /// paid).
        payment_error: String = PAYMENT_ERROR "paymentError", optional, store;
    }
}

/// What the payment that placed it collected, in the smallest unit (set with the payment).
pub const PAID_AMOUNT: Attr<i64> = Attr::new("paid");
/// What may still go back of it.
pub const REFUNDABLE: Attr<i64> = Attr::new("refundable");
/// What went back, or is going.
pub const REFUNDED: Attr<i64> = Attr::new("refunded");
/// How many refunds drew on the balance.
pub const REFUND_COUNT: Attr<u32> = Attr::new("refundCount");

/// How many events the order has given: its last event's `sequence` (`domain::event`). Every
/// write that gives one moves it on by one in the same request, so a change's stream record
/// says how many events it gives and where they stand; absent, 0 (an order written before
/// events were published, or the sample data).
pub const EVENT_SEQUENCE: Attr<u64> = Attr::new("eventSequence");

/// How many writes changed what of its lines is shipped, delivered or cancelled: each moves it
/// on by one, on the condition that it is still the one read (`OrderMoney::lines_version`), so
/// two never both count on the same read of the order; absent, 0.
pub const LINES_VERSION: Attr<u64> = Attr::new("linesVersion");

/// The first dispute of the payment that placed it: the provider's ID.
pub const DISPUTE_ID: Attr<DisputeId> = Attr::new("disputeId");
/// The bank's reason.
pub const DISPUTE_REASON: Attr<String> = Attr::new("disputeReason");
/// What is contested, in the smallest unit.
pub const DISPUTE_AMOUNT: Attr<i64> = Attr::new("disputeAmount");
/// When the store heard of it.
pub const DISPUTED_AT: Attr<Timestamp> = Attr::new("disputedAt");

/// The order flagged with its payment's dispute, once (the first dispute stands).
pub const DISPUTE: UpdateSpec = UpdateSpec {
    set: &[
        DISPUTE_ID.name,
        DISPUTE_REASON.name,
        DISPUTE_AMOUNT.name,
        DISPUTED_AT.name,
    ],
    add: &[EVENT_SEQUENCE.name],
    ..UpdateSpec::of(Entity::OrderHeader)
};

/// A status change of the header, on the condition that its status is still the one read:
/// an event of the order's.
pub const STATUS_CHANGE: UpdateSpec = UpdateSpec {
    set: &[STATUS.name],
    add: &[EVENT_SEQUENCE.name],
    ..UpdateSpec::of(Entity::OrderHeader)
};
/// A hold's status change decided by its time (paid while it lasts, ended once past): the
/// status change's condition, and the hold's end.
pub const ON_TIME: UpdateSpec = UpdateSpec {
    checks: &[HOLD_UNTIL.name],
    ..UpdateSpec::of(Entity::OrderHeader)
};
/// The payment that placed a hold, recorded with its status change (an earlier attempt's
/// failure cleared).
pub const PAYMENT: UpdateSpec = UpdateSpec {
    set: &[PAYMENT_ID.name, PAID_AMOUNT.name, REFUNDABLE.name],
    remove: &[PAYMENT_ERROR.name],
    ..UpdateSpec::of(Entity::OrderHeader)
};
/// A failed attempt to pay a hold, recorded while it still waits for payment by its
/// PaymentIntent.
pub const PAYMENT_FAILED: UpdateSpec = UpdateSpec {
    set: &[PAYMENT_ERROR.name],
    add: &[EVENT_SEQUENCE.name],
    checks: &[STATUS.name, PAYMENT_INTENT_ID.name],
    ..UpdateSpec::of(Entity::OrderHeader)
};
/// The PaymentIntent of a hold, recorded once the provider made it.
pub const PAYMENT_INTENT: UpdateSpec = UpdateSpec {
    set: &[PAYMENT_INTENT_ID.name],
    ..UpdateSpec::of(Entity::OrderHeader)
};
/// A refund drawn on the balance (or a failed one's amount given back to it): what may go back
/// and what went back moved together, one more refund counted, on the condition that the
/// count is still the one read and the balance covers it.
pub const REFUND: UpdateSpec = UpdateSpec {
    add: &[REFUNDABLE.name, REFUNDED.name, REFUND_COUNT.name],
    checks: &[REFUNDABLE.name, REFUND_COUNT.name],
    ..UpdateSpec::of(Entity::OrderHeader)
};
/// A change of what of its lines is shipped, delivered or cancelled: one more on its lines'
/// version, on the condition that the version is still the one read.
pub const LINES_CHANGE: UpdateSpec = UpdateSpec {
    add: &[LINES_VERSION.name],
    checks: &[LINES_VERSION.name],
    ..UpdateSpec::of(Entity::OrderHeader)
};
/// What of its total the customer no longer keeps, added to (a cancellation of lines, a
/// refund of lines that were to ship, a return).
pub const WITHDRAW: UpdateSpec = UpdateSpec {
    add: &[WITHDRAWN.name],
    ..UpdateSpec::of(Entity::OrderHeader)
};
/// Lines given back: the balance drawn on, the lines version, the status, what is withdrawn.
pub const GIVE_BACK: &[&UpdateSpec] = &[&REFUND, &LINES_CHANGE, &STATUS_CHANGE, &WITHDRAW];
/// A shipment or a delivery that moves the order's status as its lines make it.
pub const LINES_MOVE_STATUS: &[&UpdateSpec] = &[&LINES_CHANGE, &STATUS_CHANGE];
/// A paid order cancelled: its status change, and its refund.
pub const CANCELLED_PAID: &[&UpdateSpec] = &[&STATUS_CHANGE, &REFUND];
/// A hold ended because the provider canceled its PaymentIntent: on the condition that it is
/// still that PaymentIntent's.
pub const INTENT_CANCELED: UpdateSpec = UpdateSpec {
    checks: &[PAYMENT_INTENT_ID.name],
    ..UpdateSpec::of(Entity::OrderHeader)
};
/// A hold ended at the provider's word: its status change, for its PaymentIntent.
pub const ENDED_BY_PROVIDER: &[&UpdateSpec] = &[&STATUS_CHANGE, &INTENT_CANCELED];
/// A hold paid: its status change, on time, with the payment.
pub const PAID: &[&UpdateSpec] = &[&STATUS_CHANGE, &ON_TIME, &PAYMENT];
/// A hold ended: its status change, once its time has passed.
pub const ENDED: &[&UpdateSpec] = &[&STATUS_CHANGE, &ON_TIME];
/// What placing an order writes of its header.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::OrderHeader,
    attributes: &[
        keys::PK,
        keys::SK,
        CUSTOMER_ID.name,
        PLACED_AT.name,
        STATUS.name,
        TOTAL.name,
        EVENT_SEQUENCE.name,
    ],
};
/// What a checkout writes of its hold's header: an order's, and when the hold ends.
pub const PUT_HOLD: PutSpec = PutSpec {
    entity: Entity::OrderHeader,
    attributes: &[
        keys::PK,
        keys::SK,
        CUSTOMER_ID.name,
        PLACED_AT.name,
        STATUS.name,
        TOTAL.name,
        HOLD_UNTIL.name,
        EVENT_SEQUENCE.name,
        order_charges::SUBTOTAL.name,
        order_charges::DISCOUNT.name,
        order_charges::SHIPPING.name,
        order_charges::SHIPPING_DISCOUNT.name,
        order_charges::SHIPPING_TAX.name,
        order_charges::TAX.name,
        order_charges::PRICES_INCLUDE_TAX.name,
        order_charges::SHIPPING_OPTION_ID.name,
        order_charges::SHIPPING_ADDRESS.name,
        order_charges::PROMOTIONS.name,
    ],
};

/// The order's partition: its header's and its line items'.
pub fn pk(order: &OrderId) -> String {
    line_item::pk(order)
}

/// The header's key.
pub fn key(order: &OrderId) -> Item {
    primary_key(pk(order), SORT_KEY)
}

/// The header of `order`, as placing it writes it (a new order has no payment yet: what the
/// payment's updates set later is absent, so not written): its first event, a hold's start
/// or its placing.
pub fn to_item(order: &Order) -> Item {
    let mut item = key(&order.order_id);
    Header::write(&mut item, order);
    EVENT_SEQUENCE.put(&mut item, &1);
    item
}

/// The header of a checked-out hold: [`to_item`]'s, with what the order was charged besides
/// its lines' prices ([`order_charges`]), where it was priced so.
pub fn hold_item(order: &Order, charged: Option<&Charged>) -> Item {
    let mut item = to_item(order);
    if let Some(charged) = charged {
        order_charges::write(&mut item, charged);
    }
    item
}

/// How many events the header's order has given ([`EVENT_SEQUENCE`]).
pub fn event_sequence(item: &Item) -> u64 {
    EVENT_SEQUENCE.get(item).unwrap_or(0)
}

/// A write of an event of the order's: `change` (an update of its header) with the order's
/// event counter moved on by one.
pub fn counting_event(change: Change) -> Change {
    change.add(&EVENT_SEQUENCE, &1)
}

/// `change` (an update of the order's header) counting one more change of its lines, on the
/// condition that their version is still `read`.
pub fn lines_changed(change: Change, read: u64) -> Change {
    change
        .add(&LINES_VERSION, &1)
        .condition(if read == 0 {
            "attribute_not_exists(#linesVersion) OR #linesVersion = :linesRead"
        } else {
            "#linesVersion = :linesRead"
        })
        .value(":linesRead", &LINES_VERSION, &read)
}

/// The version of its lines a header holds ([`LINES_VERSION`]).
pub fn lines_version(item: &Item) -> u64 {
    LINES_VERSION.get(item).unwrap_or(0)
}

/// The balance a header keeps (read before [`from_item`] takes the item).
pub fn balance(item: &Item) -> Balance {
    Balance {
        paid: PAID_AMOUNT.get(item),
        refundable: REFUNDABLE.get(item).unwrap_or(0),
        refunded: REFUNDED.get(item).unwrap_or(0),
        refund_count: REFUND_COUNT.get(item).unwrap_or(0),
    }
}

/// The order a header holds.
pub fn from_item(mut item: Item) -> Result<Order, BadItem> {
    let order_id = line_item::parse_pk(&PK.take(&mut item)?)?;
    let dispute = dispute(&mut item)?;
    Header::read(&mut item, order_id, dispute)
}

/// The dispute a header is flagged with, if any.
fn dispute(item: &mut Item) -> Result<Option<OrderDispute>, BadItem> {
    let Some(dispute_id) = DISPUTE_ID.take_optional(item)? else {
        return Ok(None);
    };
    Ok(Some(OrderDispute {
        dispute_id,
        reason: DISPUTE_REASON.take(item)?,
        amount: DISPUTE_AMOUNT.take(item)?,
        disputed_at: DISPUTED_AT.take(item)?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::status::OrderStatus;
    use crate::dynamo::entities::test_support::{o100, order, pairs, shape};

    #[test]
    fn what_the_header_shares_with_the_listing_it_stores_as_the_listing_does() {
        // Placing an order writes both in one transaction, and a status change moves both:
        // the same attribute, of the same form, read the same way, in each.
        use crate::dynamo::entities::order_listing::Listing;
        for shared in Listing::ATTRIBUTES {
            let header = Header::ATTRIBUTES.iter().find(|a| a.name == shared.name);
            assert_eq!(
                header.map(|a| (a.expected, a.absent)),
                Some((shared.expected, shared.absent)),
                "{}",
                shared.name
            );
        }
    }

    #[test]
    fn order_header_keys() {
        assert_eq!(pk(&o100()), "ORDER#o100");
        assert_eq!(SORT_KEY, "HEADER");
    }

    #[test]
    fn an_order_header_is_written_beside_its_lines_and_reads_back() {
        let placed = order(OrderStatus::Placed);
        let item = to_item(&placed);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S ORDER#o100"),
                ("SK", "S HEADER"),
                ("customerId", "S c1"),
                ("eventSequence", "N 1"),
                ("placedAt", "S 2026-10-08T14:30:00Z"),
                ("status", "S PLACED"),
                ("total", "N 39.90"),
            ])
        );
        assert_eq!(from_item(item).expect("reads"), placed);
    }
}
