//! The body of `POST /customers/{customerId}/orders`, read into validated order lines.

use std::collections::HashSet;

use serde::Deserialize;
use shared::AppError;
use shared::domain::ids::Sku;
use shared::domain::money::{Decimal, Money};
use shared::domain::order::{LineItem, MAX_LINES, MAX_PRICE, MAX_QUANTITY};

/// Far above the largest valid order (96 lines of 64-character SKUs is ~12 KB).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// `{"items": [{"sku", "quantity", "price"}]}`.
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
    pub fn into_lines(self) -> Result<Vec<LineItem>, AppError> {
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
                Ok(LineItem {
                    sku,
                    quantity: line.quantity,
                    price,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(json: &str) -> Result<Vec<LineItem>, AppError> {
        serde_json::from_str::<NewOrderBody>(json)
            .map_err(|e| AppError::invalid(e.to_string()))?
            .into_lines()
    }

    #[test]
    fn a_valid_body_becomes_exact_lines() {
        let lines = body(r#"{"items":[{"sku":"sku-1","quantity":2,"price":"19.95"},{"sku":"sku-2","quantity":3,"price":"0.1"}]}"#)
            .expect("valid");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].sku.as_str(), "sku-1");
        assert_eq!(lines[0].quantity, 2);
        assert_eq!(lines[0].price.to_string(), "19.95");
        assert_eq!(lines[1].price.to_string(), "0.10");
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
}
