//! The store's currency, beside its money: the code the payment provider writes, and amounts
//! in its smallest unit (what the provider charges and refunds) against the decimal `Money`
//! the catalog and the orders keep.

use serde::Serialize;

use crate::AppError;
use crate::domain::money::{Decimal, Money};

/// Currencies the payment provider counts in whole units (no cents): the catalog's prices have
/// cents, so a store cannot charge in one of these.
const ZERO_DECIMAL: &[&str] = &[
    "bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv",
    "xaf", "xof", "xpf",
];
/// The most one card payment can be, in the smallest unit: the provider's amounts have at most
/// eight digits (its "Supported currencies" page: 99999999 for a USD charge of 999,999.99).
pub const MAX_CHARGE_MINOR_UNITS: i64 = 99_999_999;

/// Currencies the provider counts in thousandths.
const THREE_DECIMAL: &[&str] = &["bhd", "jod", "kwd", "omr", "tnd"];

/// The store's currency (`Currency`): a lowercase ISO 4217 code, as the payment provider writes
/// it, of a currency with cents (the catalog's prices have two decimals).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Currency(String);

impl Currency {
    /// `raw`, if it is three lowercase letters naming a currency with cents.
    pub fn parse(raw: &str) -> Result<Self, String> {
        if raw.len() != 3 || !raw.bytes().all(|b| b.is_ascii_lowercase()) {
            return Err(format!(
                "a currency is three lowercase letters (usd), not {raw:?}"
            ));
        }
        if ZERO_DECIMAL.contains(&raw) || THREE_DECIMAL.contains(&raw) {
            return Err(format!(
                "{raw} has no cents, and the catalog's prices do: choose a two-decimal currency"
            ));
        }
        Ok(Self(raw.to_owned()))
    }

    /// The code, as the provider writes it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `total` in the smallest unit, when one card payment can be that much: the provider
    /// takes at most eight digits of the smallest unit ([`MAX_CHARGE_MINOR_UNITS`], 999,999.99
    /// in a two-decimal currency), else a 422 that says so.
    pub fn chargeable(&self, total: Money) -> Result<i64, AppError> {
        let units = self.minor_units(total)?;
        if units > MAX_CHARGE_MINOR_UNITS {
            return Err(AppError::TotalTooLarge {
                total,
                max: Money::new(Decimal::new(MAX_CHARGE_MINOR_UNITS, 2)),
            });
        }
        Ok(units)
    }

    /// `amount` in the currency's smallest unit (cents): exact, as the provider takes it.
    pub fn minor_units(&self, amount: Money) -> Result<i64, AppError> {
        let cents = amount.amount() * Decimal::ONE_HUNDRED;
        if cents.fract() != Decimal::ZERO {
            return Err(AppError::internal(format!(
                "{amount} is not a whole number of cents"
            )));
        }
        i64::try_from(cents).map_err(|_| AppError::internal(format!("{amount} is out of range")))
    }
}

/// `amount` in the smallest unit of `currency` (any the provider takes: the code as it writes
/// it) as the decimal it is in the currency's major unit: 3990 usd is 39.90, 500 jpy is 500.
pub fn major_units(amount: i64, currency: &str) -> Decimal {
    let exponent = if ZERO_DECIMAL.contains(&currency) {
        0
    } else if THREE_DECIMAL.contains(&currency) {
        3
    } else {
        2
    };
    Decimal::new(amount, exponent)
}

impl Default for Currency {
    fn default() -> Self {
        Self("usd".to_owned())
    }
}

impl std::fmt::Display for Currency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_currency_has_cents_and_amounts_become_exact_minor_units() {
        let usd = Currency::parse("usd").expect("usd");
        assert_eq!(Currency::default(), usd);
        let money = |raw| Money::parse_number(raw).expect("money");
        assert_eq!(usd.minor_units(money("19.95")).expect("cents"), 1995);
        assert_eq!(usd.minor_units(money("0.1")).expect("cents"), 10);
        assert_eq!(
            usd.minor_units(money("480000000.00")).expect("cents"),
            48_000_000_000
        );
        assert!(usd.minor_units(money("0.001")).is_err());
        assert_eq!(
            usd.chargeable(money("999999.99")).expect("cents"),
            99_999_999
        );
        let err = usd.chargeable(money("1000000.00")).expect_err("too large");
        assert_eq!(err.status(), 422);
        assert!(err.to_string().contains("at most 999999.99"), "{err}");
        for bad in ["USD", "us", "usdd", "jpy", "kwd", "u$d"] {
            assert!(Currency::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Currency::parse("eur").expect("eur").as_str(), "eur");
    }
}
