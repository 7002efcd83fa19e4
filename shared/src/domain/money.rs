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
    /// An amount, exact, in the store's currency.
    pub fn new(amount: Decimal) -> Self {
        Self(amount)
    }

    /// The exact amount.
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

/// The text of an amount: a decimal has at most 29 digits (28 after the point, or two
/// padding zeros), a sign and a point.
struct MoneyText {
    buf: [u8; 40],
    len: usize,
}

impl MoneyText {
    fn as_str(&self) -> &str {
        // Only ASCII digits, '-' and '.' are ever written.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl Money {
    /// At least two decimal places; more only where the stored value has them, since rounding
    /// would misstate it. Written digit by digit: it is on every order a listing shows.
    fn text(self) -> MoneyText {
        let shown = self.0.normalize();
        let scale = shown.scale() as usize;
        // Mantissa digits, least significant first, with a zero before the point if needed.
        let mut digits = [0u8; 40];
        let mut count = 0;
        // 128-bit division is a library call: split off the low 19 digits once (only amounts
        // beyond u64 need it) and write the rest with 64-bit arithmetic.
        let mantissa = shown.mantissa().unsigned_abs();
        const E19: u128 = 10_000_000_000_000_000_000;
        let (high, low) = if mantissa > u128::from(u64::MAX) {
            (Some((mantissa / E19) as u64), (mantissa % E19) as u64)
        } else {
            (None, mantissa as u64)
        };
        let mut write = |mut n: u64, at_least: usize| {
            let start = count;
            while n > 0 || count - start < at_least {
                digits[count] = b'0' + (n % 10) as u8;
                n /= 10;
                count += 1;
            }
        };
        match high {
            Some(high) => {
                write(low, 19);
                write(high, 0);
            }
            None => write(low, scale + 1),
        }
        // A zero before the point, and zeros after it, for small values.
        while count <= scale {
            digits[count] = b'0';
            count += 1;
        }
        let mut text = MoneyText {
            buf: [0; 40],
            len: 0,
        };
        let mut push = |byte: u8| {
            text.buf[text.len] = byte;
            text.len += 1;
        };
        if shown.is_sign_negative() && !shown.is_zero() {
            push(b'-');
        }
        for i in (scale..count).rev() {
            push(digits[i]);
        }
        push(b'.');
        for i in (0..scale).rev() {
            push(digits[i]);
        }
        for _ in scale..2 {
            push(b'0');
        }
        text
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text().as_str())
    }
}

impl Serialize for Money {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.text().as_str())
    }
}

impl<'de> Deserialize<'de> for Money {
    /// From a decimal string, as the API and stored responses write it.
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

/// A whole number from a DynamoDB number string (`"2"`, `"2.0"`, `"1E+1"`); fractions and
/// values out of `T`'s range are `None`.
pub fn whole_number<T: TryFrom<u64>>(raw: &str) -> Option<T> {
    Money::parse_number(raw)
        .map(Money::amount)
        .filter(|n| n.fract().is_zero())
        .and_then(|n| u64::try_from(n).ok())
        .and_then(|n| T::try_from(n).ok())
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
        assert_eq!(shown("0"), "0.00");
        assert_eq!(shown("0.5"), "0.50");
        assert_eq!(shown("-19.95"), "-19.95");
        assert_eq!(shown("-0.05"), "-0.05");
        assert_eq!(shown("1000000"), "1000000.00");
        assert_eq!(
            shown("79228162514264337593543950335"),
            "79228162514264337593543950335.00"
        );
        assert_eq!(
            shown("0.0000000000000000000000000001"),
            "0.0000000000000000000000000001"
        );
    }

    #[test]
    fn the_digit_writer_agrees_with_decimal_formatting() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let scale = (x % 12) as u32;
            let value = Decimal::new(
                (x >> 8) as i64 * if x.is_multiple_of(3) { -1 } else { 1 },
                scale,
            );
            let mut reference = value.normalize();
            if reference.scale() < 2 {
                reference.rescale(2);
            }
            assert_eq!(
                Money::new(value).to_string(),
                reference.to_string(),
                "{value}"
            );
        }
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
