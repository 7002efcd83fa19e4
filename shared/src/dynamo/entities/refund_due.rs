//! A payment to give back, `REFUND#<paymentId>` / `REFUND`, with GSI1 `REFUNDS_DUE` /
//! `<receivedAt>` (staff's refunds due, oldest first: one Query on GSI1): a signed payment
//! that placed nothing (an unknown order, the wrong amount or currency, a hold already ended).
//! Never expires: the money is the customer's until staff return it.

use crate::domain::ids::{OrderId, PaymentEventId, PaymentId};
use crate::domain::payment::{RefundDue, RefundReason};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, primary_key};
use crate::dynamo::keys::{self, Entity, REFUND_PREFIX};
use crate::dynamo::update::PutSpec;

/// The record's sort key.
pub const SORT_KEY: &str = keys::REFUND_SK;
/// GSI1's partition of refunds due.
pub const GSI1_PARTITION: &str = keys::REFUNDS_DUE_GSI1PK;

/// The payment to give back.
pub const PAYMENT_ID: Attr<PaymentId> = Attr::new("paymentId");
/// The order it named.
pub const ORDER_ID: Attr<OrderId> = Attr::new("orderId");
/// As paid, in the currency's smallest unit.
pub const AMOUNT: Attr<i64> = Attr::new("amount");
/// As paid.
pub const CURRENCY: Attr<String> = Attr::new("currency");
/// Why it placed nothing.
pub const REASON: Attr<RefundReason> = Attr::new("reason");
/// The event that reported it.
pub const EVENT_ID: Attr<PaymentEventId> = Attr::new("eventId");
/// When the store recorded it.
pub const RECEIVED_AT: Attr<Timestamp> = Attr::new("receivedAt");
/// GSI1's partition key: [`GSI1_PARTITION`].
pub const GSI1PK: Attr<String> = Attr::new(keys::GSI1PK);
/// GSI1's sort key: when it was recorded.
pub const GSI1SK: Attr<String> = Attr::new(keys::GSI1SK);

/// What recording a refund due puts: the record whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::RefundDue,
    attributes: &[
        keys::PK,
        keys::SK,
        PAYMENT_ID.name,
        ORDER_ID.name,
        AMOUNT.name,
        CURRENCY.name,
        REASON.name,
        EVENT_ID.name,
        RECEIVED_AT.name,
        GSI1PK.name,
        GSI1SK.name,
    ],
};

/// The record's partition key.
pub fn pk(payment: &PaymentId) -> String {
    format!("{REFUND_PREFIX}{payment}")
}

/// The record's key.
pub fn key(payment: &PaymentId) -> Item {
    primary_key(pk(payment), SORT_KEY)
}

/// The record of `refund`.
pub fn to_item(refund: &RefundDue) -> Item {
    let mut item = key(&refund.payment_id);
    PAYMENT_ID.put(&mut item, &refund.payment_id);
    ORDER_ID.put_optional(&mut item, refund.order_id.as_ref());
    AMOUNT.put(&mut item, &refund.amount);
    CURRENCY.put(&mut item, &refund.currency);
    REASON.put(&mut item, &refund.reason);
    EVENT_ID.put(&mut item, &refund.event_id);
    RECEIVED_AT.put(&mut item, &refund.received_at);
    GSI1PK.put(&mut item, &GSI1_PARTITION.to_owned());
    GSI1SK.put(&mut item, &refund.received_at.to_string());
    item
}

/// The refund a record holds.
pub fn from_item(mut item: Item) -> Result<RefundDue, BadItem> {
    Ok(RefundDue {
        payment_id: PAYMENT_ID.take(&mut item)?,
        order_id: ORDER_ID.take_optional(&mut item)?,
        amount: AMOUNT.take(&mut item)?,
        currency: CURRENCY.take(&mut item)?,
        reason: REASON.take(&mut item)?,
        event_id: EVENT_ID.take(&mut item)?,
        received_at: RECEIVED_AT.take(&mut item)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{o100, pairs, placed, shape};

    #[test]
    fn a_refund_due_is_kept_by_payment_and_listed_oldest_first_on_gsi1() {
        let refund = RefundDue {
            payment_id: PaymentId::parse("pi_1").expect("id"),
            order_id: Some(o100()),
            amount: 3990,
            currency: "usd".into(),
            reason: RefundReason::HoldEnded,
            event_id: PaymentEventId::parse("evt_1").expect("id"),
            received_at: placed(),
        };
        let item = to_item(&refund);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("GSI1PK", "S REFUNDS_DUE"),
                ("GSI1SK", "S 2026-10-08T14:30:00Z"),
                ("PK", "S REFUND#pi_1"),
                ("SK", "S REFUND"),
                ("amount", "N 3990"),
                ("currency", "S usd"),
                ("eventId", "S evt_1"),
                ("orderId", "S o100"),
                ("paymentId", "S pi_1"),
                ("reason", "S hold-ended"),
                ("receivedAt", "S 2026-10-08T14:30:00Z"),
            ])
        );
        assert_eq!(from_item(item).expect("reads"), refund);
    }
}
