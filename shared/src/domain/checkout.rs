//! Checkout: a cart made into an order that holds its stock while the customer pays. How long
//! a hold lasts, the store's currency, and what a checkout answers: the order as priced, the
//! amount to pay in the currency's smallest unit, and when the hold ends.

use std::time::Duration;

use serde::Serialize;

use crate::domain::ids::PaymentId;
use crate::domain::order::OrderDetails;

pub use crate::domain::currency::{Currency, MAX_CHARGE_MINOR_UNITS, major_units};

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
}
