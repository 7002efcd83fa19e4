//! Checkout: a cart made into an order that holds its stock while the customer pays. How long
//! a hold lasts, the store's currency, and what a checkout answers: the order as priced, the
//! amount to pay in the currency's smallest unit, and when the hold ends.

use std::time::Duration;

use serde::Serialize;

use crate::AppError;
use crate::domain::ids::PaymentId;
use crate::domain::money::{Decimal, Money};
use crate::domain::order::OrderDetails;

/// How long a hold lasts when the template says nothing (`HoldMinutes`).
pub const DEFAULT_HOLD_MINUTES: u32 = 15;

/// The longest hold: a day. A hold keeps stock from every other customer.
const MAX_HOLD_SECONDS: f64 = 24.0 * 60.0 * 60.0;

/// How long a checkout holds its stock for payment (`HOLD_MINUTES`, a fraction allowed: `0.1`
/// is six seconds, so `make dev` can show a hold ending).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldDuration(Duration);

impl HoldDuration {
    /// `raw` minutes, more than 0 and at most a day (1440).
    pub fn parse_minutes(raw: &str) -> Result<Self, String> {
        let minutes: f64 = raw
            .trim()
            .parse()
            .map_err(|_| format!("a hold is a number of minutes, not {raw:?}"))?;
        let seconds = minutes * 60.0;
        if seconds.is_finite() && (1.0..=MAX_HOLD_SECONDS).contains(&seconds) {
            Ok(Self(Duration::from_millis(
                (seconds * 1000.0).round() as u64
            )))
        } else {
            Err(format!(
                "a hold lasts from 1 second (0.0167) to 1440 minutes, not {raw:?}"
            ))
        }
    }

    /// The hold's length.
    pub fn duration(self) -> Duration {
        self.0
    }
}

impl Default for HoldDuration {
    fn default() -> Self {
        Self(Duration::from_secs(u64::from(DEFAULT_HOLD_MINUTES) * 60))
    }
}

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

/// What the customer pays for a hold, and with what: the PaymentIntent checkout asked the
/// provider for, for the amount it computed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentDue {
    /// The PaymentIntent: the order stores it, and only a payment of it places the order.
    pub payment_intent_id: PaymentId,
    /// What the customer's browser confirms the PaymentIntent with.
    pub client_secret: String,
    /// In the smallest unit: 1995 is 19.95.
    pub amount: i64,
    /// The store's currency.
    pub currency: Currency,
}

/// A checkout's answer: the order as priced (PENDING_PAYMENT, with `holdUntil`; a replay
/// answers it as it is now), and what to pay for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckedOut {
    /// The order, its lines priced from the catalog.
    #[serde(flatten)]
    pub order: OrderDetails,
    /// The payment that places it.
    pub payment: PaymentDue,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hold_is_minutes_with_fractions_between_a_second_and_a_day() {
        let hold = |raw| HoldDuration::parse_minutes(raw).map(|h| h.duration());
        assert_eq!(hold("15"), Ok(Duration::from_secs(900)));
        assert_eq!(hold("0.1"), Ok(Duration::from_secs(6)));
        assert_eq!(hold(" 1440 "), Ok(Duration::from_secs(86_400)));
        assert_eq!(HoldDuration::default().duration(), Duration::from_secs(900));
        for bad in ["0", "-1", "0.001", "1441", "NaN", "inf", "x", ""] {
            assert!(HoldDuration::parse_minutes(bad).is_err(), "{bad}");
        }
    }

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
