//! The body of `POST /customers/{customerId}/orders`, read into validated order lines: which
//! products and how many. Prices come from the catalog; a `price` a client still sends is the
//! price it expects to pay, and a different catalog price is then a 409, never a silent change.

use std::collections::HashSet;

use serde::Deserialize;
use shared::AppError;
use shared::domain::ids::Sku;
use shared::domain::order::{MAX_LINES, MAX_QUANTITY, RequestedLine};
use shared::domain::product;

/// Far above the largest valid order (48 lines of 64-character SKUs is ~6 KB).
pub(crate) const MAX_BODY_BYTES: usize = 64 * 1024;

/// `{"items": [{"sku", "quantity", "price"?}]}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewOrderBody {
    items: Vec<NewLineBody>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewLineBody {
    sku: String,
    #[serde(deserialize_with = "shared::http::request::whole_number")]
    quantity: u32,
    price: Option<PriceText>,
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

impl NewOrderBody {
    /// The lines, validated: 1–48 of them, a SKU at most once, quantity 1–10,000, an expected
    /// price (if any) a valid price.
    pub(crate) fn into_lines(self) -> Result<Vec<RequestedLine>, AppError> {
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
                let expected_price = line
                    .price
                    .map(|price| product::price(&price.0))
                    .transpose()
                    .map_err(at)?;
                Ok(RequestedLine {
                    sku,
                    quantity: line.quantity,
                    expected_price,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(json: &str) -> Result<Vec<RequestedLine>, AppError> {
        serde_json::from_str::<NewOrderBody>(json)
            .map_err(|e| AppError::invalid(e.to_string()))?
            .into_lines()
    }

    #[test]
    fn a_valid_body_becomes_exact_lines() {
        let lines = body(r#"{"items":[{"sku":"sku-1","quantity":2},{"sku":"sku-2","quantity":3,"price":"0.1"}]}"#)
            .expect("valid");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].sku.as_str(), "sku-1");
        assert_eq!(lines[0].quantity, 2);
        assert_eq!(lines[0].expected_price, None);
        // A whole number written as a float is that number (JSON Schema's `integer`).
        let float = body(r#"{"items":[{"sku":"s","quantity":3.0},{"sku":"t","quantity":2e1}]}"#)
            .expect("whole");
        assert_eq!((float[0].quantity, float[1].quantity), (3, 20));
        assert_eq!(
            lines[1].expected_price.map(|p| p.to_string()),
            Some("0.10".into())
        );
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
                "not a whole number",
            ),
            (
                r#"{"items":[{"sku":"a","quantity":-1,"price":"1"}]}"#,
                "not a whole number in range",
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
        assert!(err.to_string().contains("at most 48"));
    }
}
