//! Checkout: a cart made into an order that holds its stock while the customer pays. How long
//! a hold lasts, the store's currency, and what a checkout answers: the order as priced, the
//! amount to pay in the currency's smallest unit, and when the hold ends.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::address::{Address, AddressBody};
use crate::domain::ids::{PaymentId, ShippingOptionId};
use crate::domain::money::Money;
use crate::domain::order::OrderDetails;
use crate::domain::pricing::quote::QuoteRequest;
use crate::domain::promotions::PromotionCode;

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

/// The most codes one checkout takes.
pub const MAX_CODES: usize = 5;

/// What a checkout may say besides the cart, all optional (a store that ships nothing and
/// charges no tax checks out with an empty body): where it goes, how, with which codes, and
/// the total the customer was shown (another is a 409 `quote-changed`, nothing held).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckoutBody {
    /// Where it ships (none: the address on the profile, if a way to ship is chosen).
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub shipping_address: Option<AddressBody>,
    /// The way to ship.
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub shipping_option_id: Option<String>,
    /// Promotion codes.
    #[serde(default)]
    pub codes: Vec<String>,
    /// The total the customer saw (a quote's), as a decimal string.
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub expected_total: Option<String>,
}

/// A checkout's body, checked.
#[derive(Debug, Clone, Default)]
pub struct CheckoutAsk {
    /// Where it ships, given with the checkout.
    pub address: Option<Address>,
    /// The way to ship and the codes (the place: the address's, filled in once known).
    pub request: QuoteRequest,
    /// The total the customer saw.
    pub expected_total: Option<Money>,
}

impl CheckoutBody {
    /// The body checked, or a 400 naming what is wrong.
    pub fn check(self) -> Result<CheckoutAsk, AppError> {
        let address = self.shipping_address.map(AddressBody::check).transpose()?;
        let mut codes = self
            .codes
            .iter()
            .map(|c| PromotionCode::parse(c))
            .collect::<Result<Vec<_>, _>>()?;
        codes.sort();
        codes.dedup();
        if codes.len() > MAX_CODES {
            return Err(AppError::invalid(format!(
                "a checkout takes at most {MAX_CODES} codes"
            )));
        }
        let expected_total = self
            .expected_total
            .as_deref()
            .map(crate::domain::shipping::amount)
            .transpose()?;
        Ok(CheckoutAsk {
            request: QuoteRequest {
                shipping_option: self
                    .shipping_option_id
                    .as_deref()
                    .map(ShippingOptionId::parse)
                    .transpose()?,
                place: address
                    .as_ref()
                    .map(|a| (a.country.clone(), a.region.clone())),
                codes,
            },
            address,
            expected_total,
        })
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
