//! Validated identifiers, the order status and the timestamp: what may reach a key.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Datelike, NaiveDate, SubsecRound, Timelike, Utc};
use serde::{Deserialize, Serialize};

use crate::AppError;

const MAX_ID_LEN: usize = 64;

/// An ID is 1–64 characters of `[A-Za-z0-9_-]`, so `#` (the key separator) and control
/// characters can never reach a key.
fn validate_id(kind: &'static str, raw: &str) -> Result<(), AppError> {
    let ok = (1..=MAX_ID_LEN).contains(&raw.len())
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(AppError::invalid(format!(
            "{kind} must be 1-{MAX_ID_LEN} characters of letters, digits, '_' or '-'"
        )))
    }
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn parse(raw: &str) -> Result<Self, AppError> {
                validate_id($kind, raw)?;
                Ok(Self(raw.to_owned()))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let raw = String::deserialize(d)?;
                Self::parse(&raw).map_err(serde::de::Error::custom)
            }
        }
    };
}

id_type!(
    /// A customer's ID, as in `CUSTOMER#<customerId>`.
    CustomerId,
    "customerId"
);
id_type!(
    /// An order's ID, as in `ORDER#<orderId>`.
    OrderId,
    "orderId"
);
id_type!(
    /// A product's stock-keeping unit, as in `ITEM#<sku>`.
    Sku,
    "sku"
);

impl OrderId {
    /// A new, time-sortable ID (a ULID): 48 bits of milliseconds since the Unix epoch and 80
    /// random bits, in Crockford base32, so IDs made later sort after earlier ones.
    pub fn generate(at: DateTime<Utc>) -> Result<Self, AppError> {
        const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
        let millis = u128::try_from(at.timestamp_millis()).unwrap_or(0) & ((1 << 48) - 1);
        let mut random = [0u8; 10];
        getrandom::fill(&mut random).map_err(|err| AppError::internal(err.to_string()))?;
        let bits = random
            .iter()
            .fold(millis, |acc, byte| (acc << 8) | u128::from(*byte));
        let id: String = (0..26)
            .rev()
            .map(|i| char::from(ALPHABET[((bits >> (i * 5)) & 0x1f) as usize]))
            .collect();
        Ok(Self(id))
    }
}

/// A client's `Idempotency-Key`: 1–128 characters of `[A-Za-z0-9_.:-]` (a UUID fits).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    pub fn parse(raw: &str) -> Result<Self, AppError> {
        let ok = (1..=128).contains(&raw.len())
            && raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'));
        if ok {
            Ok(Self(raw.to_owned()))
        } else {
            Err(AppError::invalid(
                "Idempotency-Key must be 1-128 characters of letters, digits, '_', '-', '.' or ':'",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where an order is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    Placed,
    Shipped,
    Delivered,
    Cancelled,
}

impl OrderStatus {
    pub const ALL: [OrderStatus; 4] = [
        OrderStatus::Placed,
        OrderStatus::Shipped,
        OrderStatus::Delivered,
        OrderStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OrderStatus::Placed => "PLACED",
            OrderStatus::Shipped => "SHIPPED",
            OrderStatus::Delivered => "DELIVERED",
            OrderStatus::Cancelled => "CANCELLED",
        }
    }
}

impl OrderStatus {
    /// The allowed moves: PLACED→SHIPPED→DELIVERED, and PLACED→CANCELLED.
    pub fn can_become(self, next: OrderStatus) -> bool {
        matches!(
            (self, next),
            (OrderStatus::Placed, OrderStatus::Shipped)
                | (OrderStatus::Shipped, OrderStatus::Delivered)
                | (OrderStatus::Placed, OrderStatus::Cancelled)
        )
    }
}

impl FromStr for OrderStatus {
    type Err = AppError;

    fn from_str(s: &str) -> Result<Self, AppError> {
        OrderStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| {
                AppError::invalid("status must be one of PLACED, SHIPPED, DELIVERED, CANCELLED")
            })
    }
}

impl fmt::Display for OrderStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A point in time, kept to the second in UTC and written `2026-10-08T14:30:00Z`.
///
/// One fixed width matters: order sort keys embed it, and only equal-width ISO-8601 strings
/// sort in time order (a fractional `…00.5Z` would sort before `…00Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    pub fn now() -> Self {
        Self(Utc::now().trunc_subsecs(0))
    }

    /// Accepts any RFC 3339 time (any offset, fractions of a second are cut off).
    pub fn parse(raw: &str) -> Result<Self, AppError> {
        if let Some(at) = Self::parse_canonical(raw) {
            return Ok(at);
        }
        DateTime::parse_from_rfc3339(raw)
            .map(|t| Self(t.with_timezone(&Utc).trunc_subsecs(0)))
            .map_err(|_| {
                AppError::invalid(format!(
                    "'{}' is not an ISO-8601 timestamp such as 2026-10-08T14:30:00Z",
                    raw.escape_default()
                ))
            })
    }

    /// The form this store writes (`2026-10-08T14:30:00Z`, in every order's keys), read
    /// without the general RFC 3339 parser; anything else is left to it.
    fn parse_canonical(raw: &str) -> Option<Self> {
        let b = raw.as_bytes();
        if b.len() != 20
            || b[4] != b'-'
            || b[7] != b'-'
            || b[10] != b'T'
            || b[13] != b':'
            || b[16] != b':'
            || b[19] != b'Z'
        {
            return None;
        }
        let number = |from: usize, to: usize| {
            b[from..to].iter().try_fold(0u32, |n, &d| {
                d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
            })
        };
        let date = NaiveDate::from_ymd_opt(
            i32::try_from(number(0, 4)?).ok()?,
            number(5, 7)?,
            number(8, 10)?,
        )?;
        let time = date.and_hms_opt(number(11, 13)?, number(14, 16)?, number(17, 19)?)?;
        Some(Self(time.and_utc()))
    }

    /// `at`, to the second.
    pub fn from_datetime(at: DateTime<Utc>) -> Self {
        Self(at.trunc_subsecs(0))
    }

    pub fn as_datetime(&self) -> DateTime<Utc> {
        self.0
    }
}

impl Timestamp {
    /// `2026-10-08T14:30:00Z`, written without going through a formatter: it is on every order
    /// a listing shows. (RFC 3339 parsing only admits four-digit years, so the width is fixed.)
    fn text(&self) -> [u8; 20] {
        let t = self.0;
        let mut out = *b"0000-00-00T00:00:00Z";
        let mut put = |at: usize, width: usize, mut value: u32| {
            for i in (at..at + width).rev() {
                out[i] = b'0' + (value % 10) as u8;
                value /= 10;
            }
        };
        put(0, 4, u32::try_from(t.year()).unwrap_or(0));
        put(5, 2, t.month());
        put(8, 2, t.day());
        put(11, 2, t.hour());
        put(14, 2, t.minute());
        put(17, 2, t.second());
        out
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.text();
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = self.text();
        s.serialize_str(std::str::from_utf8(&text).map_err(serde::ser::Error::custom)?)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Self::parse(&raw).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_accept_the_documented_alphabet_up_to_64_characters() {
        for ok in ["c1", "o100", "sku-1", "A_b-9", &"x".repeat(64)] {
            assert_eq!(CustomerId::parse(ok).expect(ok).as_str(), ok);
        }
    }

    #[test]
    fn ids_reject_separators_control_characters_and_bad_lengths() {
        let long = "x".repeat(65);
        for bad in ["", "c#1", "c 1", "c\n1", "c\u{0}", "é", "a/b", "a.b", &long] {
            assert!(OrderId::parse(bad).is_err(), "{bad:?} was accepted");
            assert!(Sku::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn status_round_trips_through_its_wire_name() {
        for status in OrderStatus::ALL {
            assert_eq!(
                status.as_str().parse::<OrderStatus>().expect("parses"),
                status
            );
        }
        assert!("placed".parse::<OrderStatus>().is_err());
        assert!("".parse::<OrderStatus>().is_err());
    }

    #[test]
    fn only_the_documented_transitions_are_allowed() {
        use OrderStatus::*;
        let allowed: Vec<_> = OrderStatus::ALL
            .into_iter()
            .flat_map(|from| OrderStatus::ALL.into_iter().map(move |to| (from, to)))
            .filter(|(from, to)| from.can_become(*to))
            .collect();
        assert_eq!(
            allowed,
            [(Placed, Shipped), (Placed, Cancelled), (Shipped, Delivered)]
        );
    }

    #[test]
    fn generated_order_ids_are_valid_unique_and_sort_by_time() {
        let early = Timestamp::parse("2026-10-08T14:30:00Z")
            .expect("t")
            .as_datetime();
        let late = early + chrono::Duration::milliseconds(1);
        let a = OrderId::generate(early).expect("id");
        let b = OrderId::generate(early).expect("id");
        let c = OrderId::generate(late).expect("id");
        assert_eq!(a.as_str().len(), 26);
        assert_eq!(OrderId::parse(a.as_str()).expect("valid"), a);
        assert_ne!(a, b);
        assert!(a < c && b < c);
    }

    #[test]
    fn idempotency_keys_allow_uuids_and_refuse_separators() {
        assert!(IdempotencyKey::parse("3f1c9a2e-6b7d-4c1e-9f00-0a1b2c3d4e5f").is_ok());
        for bad in ["", "a#b", "a b", "a\nb", &"k".repeat(129)] {
            assert!(IdempotencyKey::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn timestamps_normalise_to_whole_seconds_in_utc() {
        let t = Timestamp::parse("2026-10-08T16:30:00.987+02:00").expect("parses");
        assert_eq!(t.to_string(), "2026-10-08T14:30:00Z");
        assert!(Timestamp::parse("2026-10-08").is_err());
        assert!(Timestamp::parse("yesterday").is_err());
    }

    #[test]
    fn the_canonical_form_reads_as_the_general_parser_reads_it() {
        let general = |raw: &str| {
            DateTime::parse_from_rfc3339(raw)
                .ok()
                .map(|t| t.with_timezone(&Utc))
        };
        for raw in [
            "2026-10-08T14:30:00Z",
            "2024-02-29T23:59:59Z",
            "2026-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-12-32T00:00:00Z",
            "2026-10-08T24:00:00Z",
            "2026-10-08T14:60:00Z",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "2026-1a-08T14:30:00Z",
            "2026-10-08 14:30:00Z",
            "+026-10-08T14:30:00Z",
        ] {
            let fast = Timestamp::parse_canonical(raw).map(|t| t.as_datetime());
            if fast.is_some() {
                assert_eq!(fast, general(raw), "{raw}");
            } else {
                assert_eq!(
                    Timestamp::parse(raw).ok().map(|t| t.as_datetime()),
                    general(raw),
                    "{raw}"
                );
            }
        }
        assert!(Timestamp::parse_canonical("2026-10-08T14:30:00Z").is_some());
        assert!(Timestamp::parse_canonical("2026-10-08T14:30:00+00:00").is_none());
    }
}
