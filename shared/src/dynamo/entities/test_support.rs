//! What the entities' tests share: ids, a time, and an item's shape as text.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::domain::ids::{CustomerId, OrderId, Sku};
use crate::domain::money::Money;
use crate::domain::order::Order;
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;
use crate::dynamo::codec::Item;

pub(crate) fn c1() -> CustomerId {
    CustomerId::parse("c1").expect("valid")
}
pub(crate) fn o100() -> OrderId {
    OrderId::parse("o100").expect("valid")
}
pub(crate) fn sku1() -> Sku {
    Sku::parse("sku-1").expect("valid")
}
pub(crate) fn placed() -> Timestamp {
    Timestamp::parse("2026-10-08T14:30:00Z").expect("valid")
}
pub(crate) fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}
pub(crate) fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

/// Order o100 of c1, placed at [`placed`], for 39.90.
pub(crate) fn order(status: OrderStatus) -> Order {
    Order {
        order_id: o100(),
        customer_id: c1(),
        placed_at: placed(),
        status,
        total: Money::parse_number("39.9").expect("money"),
        hold_until: None,
        payment_intent_id: None,
        payment_id: None,
        payment_error: None,
        dispute: None,
        withdrawn: None,
    }
}

/// The item's attributes, each as its DynamoDB type and text, sorted.
pub(crate) fn shape(item: &Item) -> Vec<(String, String)> {
    let mut shape: Vec<_> = item
        .iter()
        .map(|(name, value)| {
            let typed = match value {
                AttributeValue::S(s) => format!("S {s}"),
                AttributeValue::N(n) => format!("N {n}"),
                other => format!("{other:?}"),
            };
            (name.clone(), typed)
        })
        .collect();
    shape.sort();
    shape
}

pub(crate) fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}
