//! Exact decimal money, and reading DynamoDB numbers without ever going through a float.

use std::fmt;
use std::str::FromStr;

pub use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// An amount of money. DynamoDB stores it as a number (`N`), the API shows it as a string with
/// at least two decimal places (`"39.90"`), and nothing in between is ever a float.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Money(Decimal);

impl Money {
    pub fn new(amount: Decimal) -> Self {
        Self(amount)
    }

    pub fn amount(self) -> Decimal {
        self.0
    }

    /// Parses a DynamoDB number string exactly: `"39.9"`, `"1E+2"`, `"-0.5"`.
    pub fn parse_number(raw: &str) -> Option<Self> {
        Decimal::from_str_exact(raw)
            .or_else(|_| Decimal::from_scientific(raw))
            .ok()
            .map(Self)
    }
}

impl fmt::Display for Money {
    /// At least two decimal places; more only where the stored value has them, since rounding
    /// would misstate it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut shown = self.0.normalize();
        if shown.scale() < 2 {
            shown.rescale(2);
        }
        write!(f, "{shown}")
    }
}

impl Serialize for Money {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Money {
    /// From a number string, as [`crate::entities::exact_numbers`] hands DynamoDB's `N` values.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Money::parse_number(&raw)
            .ok_or_else(|| serde::de::Error::custom(format!("{raw:?} is not a decimal number")))
    }
}

impl FromStr for Money {
    type Err = rust_decimal::Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Decimal::from_str_exact(s).map(Self)
    }
}

/// Deserializes a whole number from a DynamoDB number string, refusing fractions.
pub fn whole_number<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<u64>,
{
    let raw = String::deserialize(d)?;
    let exact = Money::parse_number(&raw).map(Money::amount);
    exact
        .filter(|n| n.fract().is_zero())
        .and_then(|n| u64::try_from(n).ok())
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| serde::de::Error::custom(format!("{raw:?} is not a whole number in range")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(raw: &str) -> String {
        Money::parse_number(raw).expect("number").to_string()
    }

    #[test]
    fn money_is_shown_with_two_places_without_rounding_anything_away() {
        assert_eq!(shown("39.9"), "39.90");
        assert_eq!(shown("39.90"), "39.90");
        assert_eq!(shown("40"), "40.00");
        assert_eq!(shown("1E+2"), "100.00");
        assert_eq!(shown("0.005"), "0.005");
        assert_eq!(shown("12345678901234567890.12"), "12345678901234567890.12");
    }

    #[test]
    fn money_sums_exactly() {
        let a = Money::parse_number("0.1").expect("number").amount();
        let b = Money::parse_number("0.2").expect("number").amount();
        assert_eq!(Money::new(a + b).to_string(), "0.30");
    }

    #[test]
    fn non_numbers_are_refused() {
        assert!(Money::parse_number("abc").is_none());
        assert!(Money::parse_number("").is_none());
    }
}
