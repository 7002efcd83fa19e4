//! Orders: what a placed order is, its line items, the limits of one order, and its total.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::ids::{CustomerId, OrderId, PaymentId, Sku};
use crate::domain::money::{Decimal, Money};
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;
use crate::domain::variant::Variant;

pub use crate::domain::lines::{LineItem, LineQuantity, MAX_LINES, MAX_QUANTITY, distinct_lines};

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
    /// When the hold on its stock ends unless it is paid first: an order checked out
    /// (PENDING_PAYMENT) has one, and keeps it once paid or ended; an order placed directly
    /// (`POST /customers/{customerId}/orders`) has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_until: Option<Timestamp>,
    /// The PaymentIntent checkout asked the provider for (a checked-out order's header only):
    /// only a payment of it places the order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_intent_id: Option<PaymentId>,
    /// The payment that placed it, once paid (the header only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_id: Option<PaymentId>,
    /// Why the last attempt to pay the hold failed, in the provider's words, until it is paid
    /// (the header only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_error: Option<String>,
    /// The payer's bank contests the payment that placed it (the header only): the first
    /// dispute the provider reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispute: Option<OrderDispute>,
    /// What of its total, at the prices ordered, the customer did not keep: lines cancelled
    /// before they shipped (or refunded before they shipped), and lines returned; none until
    /// some are. Its customer's `totalSpent` counts the total less this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawn: Option<Money>,
}

/// A dispute of the payment that placed an order, as the order is flagged with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderDispute {
    /// The provider's dispute.
    pub dispute_id: crate::domain::ids::DisputeId,
    /// The bank's reason, as the provider names it.
    pub reason: String,
    /// What is contested, in the smallest unit.
    pub amount: i64,
    /// When the store heard of it.
    pub disputed_at: Timestamp,
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
    /// Its shipments, oldest first (to the second, then by ID: an ID a request's key names
    /// does not sort by time) (`domain::fulfilment`); none until it ships.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fulfilments: Vec<crate::domain::fulfilment::Fulfilment>,
    /// Its lines cancelled before they shipped, oldest first, as its shipments
    /// (`domain::cancellation`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cancellations: Vec<crate::domain::cancellation::Cancellation>,
    /// Its returns, oldest first, as its shipments (`domain::returns`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub returns: Vec<crate::domain::returns::OrderReturn>,
    /// What a checked-out order was charged besides its lines' prices: its subtotal,
    /// discount, shipping and tax (`domain::pricing::quote`); none for an order placed by
    /// staff, or checked out before carts were priced.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub charged: Option<Box<crate::domain::pricing::quote::Charged>>,
    /// Its money: the balance its header keeps, what of each line went back, its refunds
    /// (shown by its ledger, not with the order).
    #[serde(skip)]
    pub money: Box<OrderMoney>,
}

/// An order's money, as its partition keeps it beside the order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderMoney {
    /// The header's balance.
    pub balance: Balance,
    /// What of each line went back, by SKU (lines with nothing back are absent).
    pub lines: HashMap<Sku, LineBack>,
    /// Its refunds, in ID order.
    pub refunds: Vec<crate::domain::refund::Refund>,
    /// How many writes changed what of its lines is shipped, delivered or cancelled (its
    /// header's counter): each such write is made only if it is still the one read, so two
    /// never both count on the same read.
    pub lines_version: u64,
}

impl OrderMoney {
    /// What of the line of `sku` went back (nothing, for a line no refund touched).
    pub fn back(&self, sku: &Sku) -> LineBack {
        self.lines.get(sku).copied().unwrap_or_default()
    }
}

impl OrderDetails {
    /// The order as `caller` is answered it: without staff's notes on its refunds,
    /// cancellations and returns unless they are staff.
    pub fn seen_by(mut self, caller: &crate::domain::access::Caller) -> Self {
        if !caller.is_staff() {
            self.cancellations.iter_mut().for_each(|c| c.note = None);
            self.returns.iter_mut().for_each(|r| r.note = None);
            self.money.refunds.iter_mut().for_each(|r| r.note = None);
        }
        self
    }

    /// Each line and how many of it a move to a status that gives stock back gives back: what
    /// no refund put back into stock already (lines with nothing left out).
    pub fn left_to_restock(&self) -> Vec<(&LineItem, u32)> {
        self.items
            .iter()
            .map(|line| {
                let restocked = self.money.back(&line.sku).restocked;
                (line, line.quantity.saturating_sub(restocked))
            })
            .filter(|(_, quantity)| *quantity > 0)
            .collect()
    }
}

/// A paid order's balance, in the currency's smallest unit, kept on its header.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Balance {
    /// What the payment that placed it collected (`None`: never paid, placed directly).
    pub paid: Option<i64>,
    /// What may still go back of it.
    pub refundable: i64,
    /// What went back, or is going (every refund of it that has not failed).
    pub refunded: i64,
    /// How many refunds drew on it: every refund counts one more, so a refund, a cancellation
    /// and a failed refund's return each condition on the count they read.
    pub refund_count: u32,
}

/// What of one line went back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineBack {
    /// How many were refunded.
    pub refunded: u32,
    /// How many went back into stock (by a refund with restock, or a cancellation).
    pub restocked: u32,
    /// How many will never ship: cancelled, or refunded before they shipped.
    pub cancelled: u32,
    /// How many came back in returns (received, damaged or not).
    pub returned: u32,
}

impl OrderDetails {
    /// A new PLACED order of `lines` (already validated) for `customer_id`, placed `now`, with
    /// a fresh time-sortable ID; its total is the sum of its lines.
    pub fn place(
        customer_id: CustomerId,
        lines: Vec<LineItem>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Self, AppError> {
        Self::new(customer_id, lines, now, OrderStatus::Placed, None)
    }

    /// A new PENDING_PAYMENT order of `lines` for `customer_id`, checked out `now`, its stock
    /// held for `hold` (its end rounded up to the whole second, so a hold is never shorter).
    pub fn hold(
        customer_id: CustomerId,
        lines: Vec<LineItem>,
        now: chrono::DateTime<chrono::Utc>,
        hold: std::time::Duration,
    ) -> Result<Self, AppError> {
        let placed_at = Timestamp::from_datetime(now);
        let whole = hold.as_secs() + u64::from(hold.subsec_nanos() > 0);
        let until = i64::try_from(whole)
            .ok()
            .and_then(|secs| {
                placed_at
                    .as_datetime()
                    .checked_add_signed(chrono::TimeDelta::seconds(secs))
            })
            .ok_or_else(|| AppError::internal("the hold's end is out of range"))?;
        Self::new(
            customer_id,
            lines,
            now,
            OrderStatus::PendingPayment,
            Some(Timestamp::from_datetime(until)),
        )
    }

    fn new(
        customer_id: CustomerId,
        lines: Vec<LineItem>,
        now: chrono::DateTime<chrono::Utc>,
        status: OrderStatus,
        hold_until: Option<Timestamp>,
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
                status,
                total: Money::new(total),
                hold_until,
                payment_intent_id: None,
                payment_id: None,
                payment_error: None,
                dispute: None,
                withdrawn: None,
            },
            items: lines,
            fulfilments: Vec::new(),
            cancellations: Vec::new(),
            returns: Vec::new(),
            charged: None,
            money: Box::default(),
        })
    }
}

impl OrderDetails {
    /// The order charged as `quote` prices it, shipped to `address`: its total the quote's,
    /// each line with its discount and tax.
    pub fn charged(
        mut self,
        quote: &crate::domain::pricing::quote::Quote,
        address: Option<crate::domain::address::Address>,
    ) -> Self {
        for line in &mut self.items {
            if let Some(priced) = quote.lines.iter().find(|q| q.sku == line.sku) {
                line.discount = Some(priced.discount);
                line.tax = Some(priced.tax);
            }
        }
        self.order.total = quote.total;
        self.charged = Some(Box::new(crate::domain::pricing::quote::Charged::of(
            quote, address,
        )));
        self
    }
}

/// The lines priced from `catalog`: every product known (else 422), at the price the client
/// expected if it said one (else 409), with the stock asked for (else 409); each list names
/// every SKU it is about.
pub fn price_lines(
    requested: &[RequestedLine],
    catalog: &HashMap<Sku, Variant>,
) -> Result<Vec<LineItem>, AppError> {
    let unknown: Vec<Sku> = requested
        .iter()
        .filter(|line| !catalog.contains_key(&line.sku))
        .map(|line| line.sku.clone())
        .collect();
    if !unknown.is_empty() {
        return Err(AppError::UnknownProducts(unknown));
    }
    let product = |line: &RequestedLine| &catalog[&line.sku];
    let not_for_sale: Vec<Sku> = requested
        .iter()
        .filter(|line| !product(line).for_sale())
        .map(|line| line.sku.clone())
        .collect();
    if !not_for_sale.is_empty() {
        return Err(AppError::NotForSale(not_for_sale));
    }
    let repriced: Vec<Sku> = requested
        .iter()
        .filter(|line| {
            line.expected_price
                .is_some_and(|p| p != product(line).price)
        })
        .map(|line| line.sku.clone())
        .collect();
    if !repriced.is_empty() {
        return Err(AppError::PriceChanged(repriced));
    }
    let short: Vec<Sku> = requested
        .iter()
        .filter(|line| product(line).stock < u64::from(line.quantity))
        .map(|line| line.sku.clone())
        .collect();
    if !short.is_empty() {
        return Err(AppError::OutOfStock(short));
    }
    Ok(requested
        .iter()
        .map(|line| LineItem {
            sku: line.sku.clone(),
            quantity: line.quantity,
            price: product(line).price,
            title: Some(product(line).title.clone()),
            options: product(line).options.clone(),
            discount: None,
            tax: None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_order_is_placed_with_an_exact_total_at_the_whole_second() {
        let line = |sku: &str, quantity, price: &str| {
            LineItem::untitled(
                Sku::parse(sku).expect("sku"),
                quantity,
                Money::parse_number(price).expect("price"),
            )
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
        assert!(
            json.get("holdUntil").is_none(),
            "a placed order holds nothing"
        );
        let back: OrderDetails = serde_json::from_value(json).expect("reads back");
        assert_eq!(back, placed);
    }

    #[test]
    fn lines_asked_for_are_distinct_and_counted() {
        let lines = |pairs: &[(&str, u32)]| -> Vec<LineQuantity> {
            pairs
                .iter()
                .map(|(sku, quantity)| LineQuantity {
                    sku: Sku::parse(sku).expect("sku"),
                    quantity: *quantity,
                })
                .collect()
        };
        assert_eq!(
            distinct_lines(lines(&[("b", 1), ("a", 2)]), 48).expect("lines"),
            lines(&[("a", 2), ("b", 1)])
        );
        for bad in [vec![], lines(&[("a", 1), ("a", 1)]), lines(&[("a", 0)])] {
            assert!(distinct_lines(bad, 48).is_err());
        }
    }

    #[test]
    fn a_checked_out_order_holds_its_stock_for_at_least_the_hold() {
        let now = Timestamp::parse("2026-10-08T14:30:00.750Z")
            .expect("t")
            .as_datetime();
        let line = LineItem::untitled(
            Sku::parse("sku-1").expect("sku"),
            1,
            Money::parse_number("19.95").expect("price"),
        );
        let c1 = CustomerId::parse("c1").expect("id");
        let held = OrderDetails::hold(
            c1.clone(),
            vec![line.clone()],
            now,
            std::time::Duration::from_secs(15 * 60),
        )
        .expect("held");
        assert_eq!(held.order.status, OrderStatus::PendingPayment);
        assert_eq!(
            held.order.hold_until.map(|t| t.to_string()).as_deref(),
            Some("2026-10-08T14:45:00Z")
        );
        // HOLD_MINUTES=0.1 is six seconds; a fraction of a second rounds up.
        let short =
            OrderDetails::hold(c1, vec![line], now, std::time::Duration::from_millis(5_500))
                .expect("held");
        assert_eq!(
            short.order.hold_until.map(|t| t.to_string()).as_deref(),
            Some("2026-10-08T14:30:06Z")
        );
        let json = serde_json::to_value(&short).expect("serializes");
        assert_eq!(json["holdUntil"], "2026-10-08T14:30:06Z");
        assert_eq!(json["status"], "PENDING_PAYMENT");
    }
}
