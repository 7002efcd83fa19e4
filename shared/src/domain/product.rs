//! Products: what the store sells, at the price it sets, with the stock it has.

use serde::Serialize;

use crate::AppError;
use crate::domain::ids::Sku;
use crate::domain::money::{Decimal, Money};

/// The largest unit price, 1,000,000.00: keeps every total far inside DynamoDB's 38 digits.
pub const MAX_PRICE: Decimal = Decimal::from_parts(100_000_000, 0, 0, false, 2);

/// The longest product name accepted.
pub const MAX_NAME_CHARS: usize = crate::domain::text::MAX_NAME_CHARS;
/// The largest change of stock one request may make.
pub const MAX_STOCK_DELTA: i64 = 1_000_000;

/// A product as `GET /products/{sku}` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    /// Which product.
    pub sku: Sku,
    /// What the catalog calls it.
    pub name: String,
    /// The price of one.
    pub price: Money,
    /// How many are left to order.
    pub stock: u64,
}

/// A product as the catalog listing shows it: its stock changes with every order, so the
/// listing does not carry it (`GET /products/{sku}` does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogEntry {
    /// Which product.
    pub sku: Sku,
    /// What the catalog calls it.
    pub name: String,
    /// The price of one.
    pub price: Money,
}

/// A product's name: as a customer's ([`crate::domain::text::name`]).
pub fn product_name(raw: &str) -> Result<String, AppError> {
    crate::domain::text::name(raw)
}

/// A price as a client writes it: a decimal string above 0, at most 1,000,000.00, with at most
/// two decimal places, plain digits and a point (no sign, exponent, spaces or leading zeros:
/// one spelling per amount, as the contract's pattern in `api/openapi.yaml` says).
pub fn price(raw: &str) -> Result<Money, AppError> {
    let invalid = || {
        AppError::invalid(format!(
            "price {:?} must be a decimal string above 0 and at most {MAX_PRICE}, with at most two decimal places",
            raw.escape_default().to_string()
        ))
    };
    let plain = !raw.is_empty()
        && raw.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && raw.bytes().filter(|b| *b == b'.').count() <= 1
        && !raw.starts_with('.')
        && !raw.ends_with('.')
        && !(raw.starts_with('0') && raw.len() > 1 && !raw.starts_with("0."));
    if !plain {
        return Err(invalid());
    }
    let price: Decimal = raw.parse().map_err(|_| invalid())?;
    if price <= Decimal::ZERO || price > MAX_PRICE || price.scale() > 2 {
        return Err(invalid());
    }
    Ok(Money::new(price))
}

/// A change of stock: not zero, at most a million either way.
pub fn stock_delta(delta: i64) -> Result<i64, AppError> {
    if delta == 0 || delta.unsigned_abs() > MAX_STOCK_DELTA.unsigned_abs() {
        return Err(AppError::invalid(format!(
            "delta must be a whole number from -{MAX_STOCK_DELTA} to {MAX_STOCK_DELTA}, not 0"
        )));
    }
    Ok(delta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_are_plain_positive_decimals_of_at_most_two_places() {
        for ok in ["19.95", "0.01", "1", "1000000.00", "7.5"] {
            assert!(price(ok).is_ok(), "{ok}");
        }
        assert_eq!(price("7.5").expect("valid").to_string(), "7.50");
        for bad in [
            "",
            "0",
            "0.00",
            "-1",
            "1.001",
            "1e3",
            " 1",
            "1.",
            ".5",
            "1000000.01",
            "1,5",
            "NaN",
            "007",
            "00.5",
        ] {
            assert!(matches!(price(bad), Err(AppError::Invalid(_))), "{bad:?}");
        }
    }

    #[test]
    fn names_and_deltas_are_bounded() {
        assert_eq!(product_name("  Blue mug ").expect("valid"), "Blue mug");
        for bad in ["", "  ", "a\u{7}b", &"n".repeat(201)] {
            assert!(product_name(bad).is_err(), "{bad:?}");
        }
        assert!(stock_delta(-5).is_ok() && stock_delta(1_000_000).is_ok());
        for bad in [0, 1_000_001, -1_000_001, i64::MIN] {
            assert!(stock_delta(bad).is_err(), "{bad}");
        }
    }
}
