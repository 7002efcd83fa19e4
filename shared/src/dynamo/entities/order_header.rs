//! An order's header, `ORDER#<orderId>` / `HEADER` (access pattern 7, an order by ID with its
//! lines: one Query on PK): what a lookup by order ID needs (customerId, placedAt, status,
//! total), in the order's own partition, sorted before its line items (`keys::ORDER_PARTITION`).

use crate::domain::ids::{CustomerId, OrderId, PaymentId};
use crate::domain::order::Order;
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, primary_key};
use crate::dynamo::entities::line_item;
use crate::dynamo::keys;

pub use crate::dynamo::entities::order_listing::{HOLD_UNTIL, STATUS, TOTAL};

/// The header's sort key.
pub const SORT_KEY: &str = keys::HEADER_SK;

/// Whose order: what a lookup by order ID needs to decide who may see it.
pub const CUSTOMER_ID: Attr<CustomerId> = Attr::new("customerId");
/// When it was placed: where its listing is.
pub const PLACED_AT: Attr<Timestamp> = Attr::new("placedAt");

/// The payment that placed a checked-out order (set when it is paid).
pub const PAYMENT_ID: Attr<PaymentId> = Attr::new("paymentId");

/// What a status change writes on the header (`update-order-status`' UpdateItem, and a hold's
/// end).
pub const STATUS_CHANGE_WRITES: &[&str] = &[STATUS.name];
/// What a payment touches on a hold's header: PLACED, the payment, and (in its condition) the
/// hold's end.
pub const PAYMENT_WRITES: &[&str] = &[STATUS.name, PAYMENT_ID.name, HOLD_UNTIL.name];
/// What a hold's end touches on its header: EXPIRED, and (in its condition) the hold's end.
pub const HOLD_END_WRITES: &[&str] = &[STATUS.name, HOLD_UNTIL.name];

/// The order's partition: its header's and its line items'.
pub fn pk(order: &OrderId) -> String {
    line_item::pk(order)
}

/// The header's key.
pub fn key(order: &OrderId) -> Item {
    primary_key(pk(order), SORT_KEY)
}

/// The header of `order`.
pub fn to_item(order: &Order) -> Item {
    let mut item = key(&order.order_id);
    CUSTOMER_ID.put(&mut item, &order.customer_id);
    PLACED_AT.put(&mut item, &order.placed_at);
    STATUS.put(&mut item, &order.status);
    TOTAL.put(&mut item, &order.total);
    HOLD_UNTIL.put_optional(&mut item, order.hold_until.as_ref());
    item
}

/// The order a header holds.
pub fn from_item(mut item: Item) -> Result<Order, BadItem> {
    Ok(Order {
        order_id: line_item::parse_pk(&PK.take(&mut item)?)?,
        customer_id: CUSTOMER_ID.take(&mut item)?,
        placed_at: PLACED_AT.take(&mut item)?,
        status: STATUS.take(&mut item)?,
        total: TOTAL.take(&mut item)?,
        hold_until: HOLD_UNTIL.take_optional(&mut item)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::status::OrderStatus;
    use crate::dynamo::entities::test_support::{o100, order, pairs, shape};

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
                ("placedAt", "S 2026-10-08T14:30:00Z"),
                ("status", "S PLACED"),
                ("total", "N 39.90"),
            ])
        );
        assert_eq!(from_item(item).expect("reads"), placed);
    }
}
