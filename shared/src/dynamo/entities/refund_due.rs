//! A refund of a payment that names no order the store has, `REFUND#<paymentId>` / `REFUND`:
//! one per payment, however often it is reported. Its record is an order refund's
//! ([`refund`](super::refund)), listed on GSI1 the same way (`REFUNDS#<status>` /
//! `<requestedAt>`). Never expires: the money is the customer's until it is back.

use crate::domain::refund::Refund;
use crate::dynamo::codec::Item;
use crate::dynamo::entities::refund;
use crate::dynamo::keys::{self, Entity};
use crate::dynamo::update::{PutSpec, UpdateSpec};

/// The record's sort key.
pub const SORT_KEY: &str = keys::REFUND_SK;

/// What recording it puts: the record whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::RefundDue,
    attributes: refund::DUE_ATTRIBUTES,
};
/// What a refund of a payment kept in its order's partition leaves here: a pointer to it
/// (`refundId`, `orderId`), put in the same transaction, so that one payment has one refund
/// whichever order its events name. Not on GSI1: the payer never reads it.
pub const POINTER: PutSpec = PutSpec {
    entity: Entity::RefundDue,
    attributes: &[
        keys::PK,
        keys::SK,
        refund::REFUND_ID.name,
        refund::ORDER_ID.name,
    ],
};
/// It claimed for sending.
pub const CLAIM: UpdateSpec = refund::claim_spec(Entity::RefundDue);
/// It settled.
pub const SETTLE: UpdateSpec = refund::settle_spec(Entity::RefundDue);

pub use refund::{due_key as key, due_pk as pk};

/// The pointer a payment's refund kept in its order's partition leaves under the payment.
pub fn pointer(refund: &Refund) -> Option<Item> {
    let order = refund.order_id.as_ref()?;
    let mut item = key(&refund.payment_id);
    refund::REFUND_ID.put(&mut item, &refund.refund_id);
    refund::ORDER_ID.put(&mut item, order);
    Some(item)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::{PaymentEventId, PaymentId, RefundId};
    use crate::domain::refund::RefundKind;
    use crate::domain::refund::RefundReason;
    use crate::dynamo::entities::test_support::{pairs, placed, shape};

    #[test]
    fn a_payment_naming_no_order_is_kept_by_payment_and_listed_by_status_on_gsi1() {
        let payment = PaymentId::parse("pi_1").expect("id");
        let refund = Refund {
            event_id: Some(PaymentEventId::parse("evt_1").expect("id")),
            requested_at: placed(),
            ..Refund::requested(
                RefundId::of_payment(&payment),
                None,
                payment,
                3990,
                "usd",
                RefundKind::Payment,
                RefundReason::UnknownOrder.to_string(),
            )
        };
        let item = refund::to_item(&refund);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("GSI1PK", "S REFUNDS#REQUESTED"),
                ("GSI1SK", "S 2026-10-08T14:30:00Z"),
                ("PK", "S REFUND#pi_1"),
                ("SK", "S REFUND"),
                ("amount", "N 3990"),
                ("attempts", "N 0"),
                ("currency", "S usd"),
                ("eventId", "S evt_1"),
                ("eventSequence", "N 1"),
                ("kind", "S payment"),
                ("paymentId", "S pi_1"),
                ("reason", "S unknown-order"),
                ("refundId", "S pay_pi_1"),
                ("requestedAt", "S 2026-10-08T14:30:00Z"),
                ("restock", "Bool(false)"),
                ("shipping", "N 0"),
                ("status", "S REQUESTED"),
            ])
        );
        assert_eq!(refund::entity(&refund), Entity::RefundDue);
        assert_eq!(refund::from_item(item).expect("reads"), refund);
    }
}
