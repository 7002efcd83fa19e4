//! The order a collected payment placed, `PAYMENT#<paymentId>` / `ORDER`, `orderId`: written in
//! the transaction that places the order, so that an event naming only the payment (a dispute:
//! `charge.dispute.created` carries the PaymentIntent, never the order) finds its order in one
//! GetItem. A payment that placed nothing has its refund's record under `REFUND#<paymentId>`
//! instead (`refund_due`).

use crate::domain::ids::{OrderId, PaymentId};
use crate::dynamo::codec::{Item, primary_key};
use crate::dynamo::keys::{self, Entity, PAYMENT_PREFIX};
use crate::dynamo::record::record;
use crate::dynamo::update::PutSpec;

/// The sort key.
pub const SORT_KEY: &str = keys::PAYMENT_ORDER_SK;

/// What a payment's record keeps: the order it placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The order the payment placed.
    pub order_id: OrderId,
}

record! {
    /// What a payment's item stores of the order it placed.
    pub Record stores Placed beside () {
        /// The order the payment placed.
        order_id: OrderId = ORDER_ID "orderId", required, store;
    }
}

/// What placing an order writes of its payment.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::PaymentOrder,
    attributes: &[keys::PK, keys::SK, ORDER_ID.name],
};

/// The payment's partition.
pub fn pk(payment: &PaymentId) -> String {
    format!("{PAYMENT_PREFIX}{payment}")
}

/// The key.
pub fn key(payment: &PaymentId) -> Item {
    primary_key(pk(payment), SORT_KEY)
}

/// `payment` placed `order`.
pub fn to_item(payment: &PaymentId, order: &OrderId) -> Item {
    let mut item = key(payment);
    let placed = Placed {
        order_id: order.clone(),
    };
    Record::write(&mut item, &placed);
    item
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, shape};

    #[test]
    fn a_payments_order_is_kept_under_the_payment() {
        let payment = PaymentId::parse("pi_1").expect("id");
        let order = OrderId::parse("o100").expect("id");
        assert_eq!(
            shape(&to_item(&payment, &order)),
            pairs(&[
                ("PK", "S PAYMENT#pi_1"),
                ("SK", "S ORDER"),
                ("orderId", "S o100")
            ])
        );
        assert_eq!(ORDER_ID.get(&to_item(&payment, &order)), Some(order));
    }
}
