//! What the domain's tests build their orders from: times, SKUs and lines from short strings.

use crate::domain::ids::{CustomerId, OrderId, ReturnId, Sku};
use crate::domain::lines::{LineItem, LineQuantity};
use crate::domain::money::Money;
use crate::domain::order::{Balance, Order, OrderDetails};
use crate::domain::returns::OrderReturn;
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;

/// The time `raw` says (RFC 3339).
pub(crate) fn at(raw: &str) -> Timestamp {
    Timestamp::parse(raw).expect("time")
}

/// The SKU `raw` names.
pub(crate) fn sku(raw: &str) -> Sku {
    Sku::parse(raw).expect("sku")
}

/// Lines of `(sku, quantity)`.
pub(crate) fn lines(what: &[(&str, u32)]) -> Vec<LineQuantity> {
    what.iter()
        .map(|(s, quantity)| LineQuantity {
            sku: sku(s),
            quantity: *quantity,
        })
        .collect()
}

/// A return `id` of `what`, asked for on the 21st of November.
pub(crate) fn requested(id: &str, what: &[(&str, u32)]) -> OrderReturn {
    OrderReturn::requested(
        ReturnId::parse(id).expect("id"),
        lines(what),
        "too small".into(),
        at("2026-11-21T10:00:00Z"),
    )
}

/// Order o1 of customer c1, placed on the 1st of November, in `status`, of `items` as
/// `(sku, quantity, price)`: nothing shipped, cancelled, returned or paid yet.
pub(crate) fn order(status: OrderStatus, items: &[(&str, u32, &str)]) -> OrderDetails {
    OrderDetails {
        order: Order {
            order_id: OrderId::parse("o1").expect("id"),
            customer_id: CustomerId::parse("c1").expect("id"),
            placed_at: at("2026-11-01T10:00:00Z"),
            status,
            total: Money::parse_number("10").expect("money"),
            hold_until: None,
            payment_intent_id: None,
            payment_id: None,
            payment_error: None,
            dispute: None,
            withdrawn: None,
        },
        items: items
            .iter()
            .map(|(s, quantity, price)| {
                LineItem::untitled(
                    sku(s),
                    *quantity,
                    Money::parse_number(price).expect("money"),
                )
            })
            .collect(),
        fulfilments: Vec::new(),
        cancellations: Vec::new(),
        returns: Vec::new(),
        charged: None,
        money: Box::default(),
    }
}

/// `details` paid `amount` (in cents) through the provider, none of it refunded yet.
pub(crate) fn paid(mut details: OrderDetails, amount: i64) -> OrderDetails {
    details.money.balance = Balance {
        paid: Some(amount),
        refundable: amount,
        refunded: 0,
        refund_count: 0,
    };
    details
}
