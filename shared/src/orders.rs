//! Placing an order: the request as validated types, the items the one transaction writes,
//! and the fingerprint an `Idempotency-Key` remembers.

use std::collections::HashSet;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::AppError;
use crate::entities::{Item, LineItem, Order, write_item};
use crate::ids::{CustomerId, OrderId, OrderStatus, Sku, Timestamp};
use crate::keys;
use crate::money::{Decimal, Money};

/// TransactWriteItems takes 100 actions; an order spends four on the customer check, the
/// listing, the header and the idempotency record.
pub const MAX_LINES: usize = 96;
pub const MAX_QUANTITY: u32 = 10_000;
/// The largest unit price, 1,000,000.00: keeps every total far inside DynamoDB's 38 digits.
pub const MAX_PRICE: Decimal = Decimal::from_parts(100_000_000, 0, 0, false, 2);
/// Far above the largest valid order (96 lines of 64-character SKUs is ~12 KB).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The body of `POST /customers/{customerId}/orders`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewOrderBody {
    items: Vec<NewLineBody>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewLineBody {
    sku: String,
    quantity: u32,
    price: PriceText,
}

/// A price must arrive as a decimal string: a JSON number would have been a float somewhere.
#[derive(Debug)]
struct PriceText(String);

impl<'de> Deserialize<'de> for PriceText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = PriceText;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a decimal string such as \"19.95\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<PriceText, E> {
                Ok(PriceText(v.to_owned()))
            }
        }
        d.deserialize_str(Visitor)
    }
}

/// One validated line of a new order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderLine {
    pub sku: Sku,
    pub quantity: u32,
    pub price: Money,
}

fn parse_price(raw: &str) -> Result<Money, AppError> {
    let invalid = || {
        AppError::invalid(format!(
            "price {:?} must be a decimal string above 0 and at most {MAX_PRICE}, with at most two decimal places",
            raw.escape_default().to_string()
        ))
    };
    // Plain digits with an optional point: no exponent, sign, or spaces.
    let plain = !raw.is_empty()
        && raw.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && raw.bytes().filter(|b| *b == b'.').count() <= 1
        && !raw.starts_with('.')
        && !raw.ends_with('.');
    if !plain {
        return Err(invalid());
    }
    let price: Decimal = raw.parse().map_err(|_| invalid())?;
    if price <= Decimal::ZERO || price > MAX_PRICE || price.scale() > 2 {
        return Err(invalid());
    }
    Ok(Money::new(price))
}

impl NewOrderBody {
    /// The lines, validated: 1–96 of them, a SKU at most once, quantity 1–10,000, price as
    /// above.
    pub fn into_lines(self) -> Result<Vec<OrderLine>, AppError> {
        if self.items.is_empty() {
            return Err(AppError::invalid("an order needs at least one item"));
        }
        if self.items.len() > MAX_LINES {
            return Err(AppError::invalid(format!(
                "an order may have at most {MAX_LINES} items"
            )));
        }
        let mut seen = HashSet::new();
        self.items
            .into_iter()
            .enumerate()
            .map(|(i, line)| {
                let at = |err: AppError| AppError::invalid(format!("items[{i}]: {err}"));
                let sku = Sku::parse(&line.sku).map_err(at)?;
                if !seen.insert(sku.clone()) {
                    return Err(at(AppError::invalid(format!("sku {sku} appears twice"))));
                }
                if !(1..=MAX_QUANTITY).contains(&line.quantity) {
                    return Err(at(AppError::invalid(format!(
                        "quantity must be from 1 to {MAX_QUANTITY}"
                    ))));
                }
                let price = parse_price(&line.price.0).map_err(at)?;
                Ok(OrderLine {
                    sku,
                    quantity: line.quantity,
                    price,
                })
            })
            .collect()
    }
}

/// What identifies a request for idempotency: the customer and the lines, in order.
pub fn fingerprint(customer: &CustomerId, lines: &[OrderLine]) -> String {
    let mut canonical = format!("{customer}\n");
    for line in lines {
        let _ = writeln!(
            canonical,
            "{}|{}|{}",
            line.sku,
            line.quantity,
            line.price.amount().normalize()
        );
    }
    Sha256::digest(canonical.as_bytes())
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// An order about to be placed.
#[derive(Debug, Clone)]
pub struct NewOrder {
    pub order_id: OrderId,
    pub customer_id: CustomerId,
    pub placed_at: Timestamp,
    pub lines: Vec<OrderLine>,
    pub total: Money,
}

/// An order as the API shows it: header and line items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderDetails {
    pub order_id: OrderId,
    pub customer_id: CustomerId,
    pub placed_at: Timestamp,
    pub status: OrderStatus,
    pub total: Money,
    pub items: Vec<LineItem>,
}

#[derive(Serialize)]
#[allow(non_snake_case)]
struct ListingOut<'a> {
    PK: String,
    SK: String,
    orderId: &'a OrderId,
    status: OrderStatus,
    total: Money,
    GSI1PK: String,
    GSI1SK: String,
}

#[derive(Serialize)]
#[allow(non_snake_case)]
struct HeaderOut<'a> {
    PK: String,
    SK: &'static str,
    customerId: &'a CustomerId,
    placedAt: Timestamp,
    status: OrderStatus,
    total: Money,
}

#[derive(Serialize)]
#[allow(non_snake_case)]
struct LineOut {
    PK: String,
    SK: String,
    quantity: u32,
    price: Money,
}

/// The header item of an order.
pub fn header_item(header: &Order) -> Result<Item, AppError> {
    write_item(&HeaderOut {
        PK: keys::order_header::pk(&header.order_id),
        SK: keys::order_header::SK,
        customerId: &header.customer_id,
        placedAt: header.placed_at,
        status: header.status,
        total: header.total,
    })
}

impl NewOrder {
    pub fn new(
        customer_id: CustomerId,
        lines: Vec<OrderLine>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Self, AppError> {
        let total = lines
            .iter()
            .map(|line| line.price.amount() * Decimal::from(line.quantity))
            .sum();
        Ok(Self {
            order_id: OrderId::generate(now)?,
            customer_id,
            placed_at: Timestamp::from_datetime(now),
            lines,
            total: Money::new(total),
        })
    }

    /// The listing item, in the article's shape.
    pub fn listing_item(&self) -> Result<Item, AppError> {
        write_item(&ListingOut {
            PK: keys::order_listing::pk(&self.customer_id),
            SK: keys::order_listing::sk(self.placed_at, &self.order_id),
            orderId: &self.order_id,
            status: OrderStatus::Placed,
            total: self.total,
            GSI1PK: keys::order_listing::gsi1pk(OrderStatus::Placed),
            GSI1SK: keys::order_listing::gsi1sk(self.placed_at),
        })
    }

    /// The header, in the order's own partition.
    pub fn header_item(&self) -> Result<Item, AppError> {
        header_item(&Order {
            order_id: self.order_id.clone(),
            customer_id: self.customer_id.clone(),
            placed_at: self.placed_at,
            status: OrderStatus::Placed,
            total: self.total,
        })
    }

    /// The line items, in the article's shape.
    pub fn line_items(&self) -> Result<Vec<Item>, AppError> {
        self.lines
            .iter()
            .map(|line| {
                write_item(&LineOut {
                    PK: keys::line_item::pk(&self.order_id),
                    SK: keys::line_item::sk(&line.sku),
                    quantity: line.quantity,
                    price: line.price,
                })
            })
            .collect()
    }

    pub fn details(&self) -> OrderDetails {
        OrderDetails {
            order_id: self.order_id.clone(),
            customer_id: self.customer_id.clone(),
            placed_at: self.placed_at,
            status: OrderStatus::Placed,
            total: self.total,
            items: self
                .lines
                .iter()
                .map(|line| LineItem {
                    sku: line.sku.clone(),
                    quantity: line.quantity,
                    price: line.price,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn body(json: &str) -> Result<Vec<OrderLine>, AppError> {
        serde_json::from_str::<NewOrderBody>(json)
            .map_err(|e| AppError::invalid(e.to_string()))?
            .into_lines()
    }

    #[test]
    fn a_valid_order_becomes_lines_and_an_exact_total() {
        let lines = body(r#"{"items":[{"sku":"sku-1","quantity":2,"price":"19.95"},{"sku":"sku-2","quantity":3,"price":"0.1"}]}"#)
            .expect("valid");
        let now = Timestamp::parse("2026-10-08T14:30:00.750Z")
            .expect("t")
            .as_datetime();
        let order = NewOrder::new(CustomerId::parse("c1").expect("id"), lines, now).expect("order");
        assert_eq!(order.total.to_string(), "40.20");
        assert_eq!(order.placed_at.to_string(), "2026-10-08T14:30:00Z");

        let listing = order.listing_item().expect("item");
        let sk = format!("ORDER#2026-10-08T14:30:00Z#{}", order.order_id);
        assert_eq!(listing["SK"], AttributeValue::S(sk));
        assert_eq!(listing["total"], AttributeValue::N("40.20".into()));
        assert_eq!(listing["GSI1PK"], AttributeValue::S("STATUS#PLACED".into()));
        assert_eq!(
            listing["GSI1SK"],
            AttributeValue::S("2026-10-08T14:30:00Z".into())
        );
        let mut names: Vec<_> = listing.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["GSI1PK", "GSI1SK", "PK", "SK", "orderId", "status", "total"]
        );

        let lines = order.line_items().expect("items");
        assert_eq!(lines[0]["SK"], AttributeValue::S("ITEM#sku-1".into()));
        assert_eq!(lines[0]["quantity"], AttributeValue::N("2".into()));
        assert_eq!(lines[0]["price"], AttributeValue::N("19.95".into()));
        let header = order.header_item().expect("header");
        assert_eq!(header["SK"], AttributeValue::S("HEADER".into()));
        assert_eq!(header["customerId"], AttributeValue::S("c1".into()));
    }

    #[test]
    fn bad_lines_are_refused_with_where_they_are() {
        for (json, expect) in [
            (r#"{"items":[]}"#, "at least one"),
            (
                r#"{"items":[{"sku":"a","quantity":0,"price":"1.00"}]}"#,
                "items[0]: quantity",
            ),
            (
                r#"{"items":[{"sku":"a","quantity":10001,"price":"1.00"}]}"#,
                "quantity",
            ),
            (
                r#"{"items":[{"sku":"a","quantity":1,"price":"-1.00"}]}"#,
                "price",
            ),
            (
                r#"{"items":[{"sku":"a","quantity":1,"price":"0"}]}"#,
                "price",
            ),
            (
                r#"{"items":[{"sku":"a","quantity":1,"price":"1.001"}]}"#,
                "price",
            ),
            (
                r#"{"items":[{"sku":"a","quantity":1,"price":"1e3"}]}"#,
                "price",
            ),
            (
                r#"{"items":[{"sku":"a","quantity":1,"price":"1000000.01"}]}"#,
                "price",
            ),
            (
                r#"{"items":[{"sku":"a","quantity":1,"price":19.95}]}"#,
                "decimal string",
            ),
            (
                r#"{"items":[{"sku":"a","quantity":1,"price":"1"},{"sku":"a","quantity":1,"price":"1"}]}"#,
                "items[1]: sku a appears twice",
            ),
            (
                r#"{"items":[{"sku":"a#b","quantity":1,"price":"1"}]}"#,
                "items[0]: sku",
            ),
            (
                r#"{"items":[{"sku":"a","quantity":1.5,"price":"1"}]}"#,
                "u32",
            ),
            (
                r#"{"items":[{"sku":"a","quantity":1,"price":"1","note":"x"}]}"#,
                "unknown field",
            ),
            (r#"{"items":[],"customerId":"c2"}"#, "unknown field"),
        ] {
            let err = body(json).expect_err(json).to_string();
            assert!(err.contains(expect), "{json}: {err}");
        }
        let many: Vec<String> = (0..=MAX_LINES)
            .map(|i| format!(r#"{{"sku":"s{i}","quantity":1,"price":"1"}}"#))
            .collect();
        let err = body(&format!(r#"{{"items":[{}]}}"#, many.join(","))).expect_err("too many");
        assert!(err.to_string().contains("at most 96"));
    }

    #[test]
    fn the_fingerprint_follows_the_content_not_its_spelling() {
        let c1 = CustomerId::parse("c1").expect("id");
        let a = body(r#"{"items":[{"sku":"a","quantity":1,"price":"1.5"}]}"#).expect("valid");
        let b = body(r#"{"items":[{"sku":"a","quantity":1,"price":"1.50"}]}"#).expect("valid");
        let c = body(r#"{"items":[{"sku":"a","quantity":2,"price":"1.50"}]}"#).expect("valid");
        assert_eq!(fingerprint(&c1, &a), fingerprint(&c1, &b));
        assert_ne!(fingerprint(&c1, &a), fingerprint(&c1, &c));
        assert_ne!(
            fingerprint(&c1, &a),
            fingerprint(&CustomerId::parse("c2").expect("id"), &a)
        );
    }
}
