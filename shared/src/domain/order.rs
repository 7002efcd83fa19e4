//! Orders: what a placed order is, its line items, the limits of one order, and its total.

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::ids::{CustomerId, OrderId, Sku};
use crate::domain::money::{Decimal, Money};
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;

/// The most lines one order may have. An order is written in one DynamoDB transaction of at
/// most 100 actions: two per line (the product's stock, the line item) and three more
/// (listing, header, idempotency record); the DynamoDB layer asserts that this
/// still fits.
pub const MAX_LINES: usize = 48;
/// The most of one product one line may ask for.
pub const MAX_QUANTITY: u32 = 10_000;
/// The largest unit price, 1,000,000.00: keeps every total far inside DynamoDB's 38 digits.
pub const MAX_PRICE: Decimal = Decimal::from_parts(100_000_000, 0, 0, false, 2);

/// An order as its listing item in the customer's partition (and in GSI1) describes it, and as
/// its header in the order's own partition does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    /// Which order.
    pub order_id: OrderId,
    /// Whose order.
    pub customer_id: CustomerId,
    /// When it was placed (UTC, to the second).
    pub placed_at: Timestamp,
    /// Where it is in its life.
    pub status: OrderStatus,
    /// What it comes to.
    pub total: Money,
}

/// One product line of an order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineItem {
    /// Which product.
    pub sku: Sku,
    /// How many.
    pub quantity: u32,
    /// The price of one, as the catalog had it when the order was placed.
    pub price: Money,
}

/// One line of an order as a product's orders list it (access pattern 8): which order, whose,
/// when, and how many at what price.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductOrderLine {
    /// The order the line is part of.
    pub order_id: OrderId,
    /// The order's customer.
    pub customer_id: CustomerId,
    /// When the order was placed.
    pub placed_at: Timestamp,
    /// How many.
    pub quantity: u32,
    /// The price of one, as ordered.
    pub price: Money,
}

/// One line as a client asks for it: the price is the catalog's, unless the client says what it
/// expects to pay (then a different catalog price is a conflict rather than a surprise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestedLine {
    /// Which product.
    pub sku: Sku,
    /// How many.
    pub quantity: u32,
    /// The price the client expects to pay for one, if it says: a different catalog price is a 409.
    pub expected_price: Option<Money>,
}

/// An order with its line items: as the API shows it, and as it is placed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderDetails {
    /// The order's header.
    #[serde(flatten)]
    pub order: Order,
    /// Its line items, in SKU order.
    pub items: Vec<LineItem>,
}

impl OrderDetails {
    /// A new PLACED order of `lines` (already validated) for `customer_id`, placed `now`, with
    /// a fresh time-sortable ID; its total is the sum of its lines.
    pub fn place(
        customer_id: CustomerId,
        lines: Vec<LineItem>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Self, AppError> {
        let total = lines
            .iter()
            .map(|line| line.price.amount() * Decimal::from(line.quantity))
            .sum();
        Ok(Self {
            order: Order {
                order_id: OrderId::generate(now)?,
                customer_id,
                placed_at: Timestamp::from_datetime(now),
                status: OrderStatus::Placed,
                total: Money::new(total),
            },
            items: lines,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_order_is_placed_with_an_exact_total_at_the_whole_second() {
        let line = |sku: &str, quantity, price: &str| LineItem {
            sku: Sku::parse(sku).expect("sku"),
            quantity,
            price: Money::parse_number(price).expect("price"),
        };
        let now = Timestamp::parse("2026-10-08T14:30:00.750Z")
            .expect("t")
            .as_datetime();
        let placed = OrderDetails::place(
            CustomerId::parse("c1").expect("id"),
            vec![line("sku-1", 2, "19.95"), line("sku-2", 3, "0.1")],
            now,
        )
        .expect("order");
        assert_eq!(placed.order.total.to_string(), "40.20");
        assert_eq!(placed.order.placed_at.to_string(), "2026-10-08T14:30:00Z");
        assert_eq!(placed.order.status, OrderStatus::Placed);
        assert_eq!(placed.items.len(), 2);
        // The API's shape: the order's fields, then its items.
        let json = serde_json::to_value(&placed).expect("serializes");
        assert_eq!(json["total"], "40.20");
        assert_eq!(json["items"][1]["sku"], "sku-2");
        let back: OrderDetails = serde_json::from_value(json).expect("reads back");
        assert_eq!(back, placed);
    }
}
