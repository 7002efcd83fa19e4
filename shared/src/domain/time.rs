//! The store's timestamp: whole seconds in UTC, one fixed-width text form.

use std::fmt;

use chrono::{DateTime, Datelike, NaiveDate, SubsecRound, Timelike, Utc};
use serde::{Deserialize, Serialize};

use crate::AppError;

/// A point in time, kept to the second in UTC and written `2026-10-08T14:30:00Z`.
///
/// One fixed width matters: order sort keys embed it, and only equal-width ISO-8601 strings
/// sort in time order (a fractional `…00.5Z` would sort before `…00Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// Now, to the second.
    pub fn now() -> Self {
        Self(Utc::now().trunc_subsecs(0))
    }

    /// The earliest and latest times the fixed-width form can hold.
    pub const MIN_TEXT: &'static str = "0000-01-01T00:00:00Z";
    /// The latest time a key can hold: one width keeps sort keys in time order.
    pub const MAX_TEXT: &'static str = "9999-12-31T23:59:59Z";

    /// Accepts any RFC 3339 time (any offset, fractions of a second are cut off) whose UTC
    /// instant has a four-digit year: an offset can carry `9999-12-31T23:30:00-01:00` into year
    /// 10000, which no fixed-width key can hold, so it is refused rather than misplaced.
    pub fn parse(raw: &str) -> Result<Self, AppError> {
        if let Some(at) = Self::parse_canonical(raw) {
            return Ok(at);
        }
        let at = DateTime::parse_from_rfc3339(raw)
            .map(|t| t.with_timezone(&Utc).trunc_subsecs(0))
            .map_err(|_| {
                AppError::invalid(format!(
                    "'{}' is not an ISO-8601 timestamp such as 2026-10-08T14:30:00Z",
                    raw.escape_default()
                ))
            })?;
        if !(0..=9999).contains(&at.year()) {
            return Err(AppError::invalid(format!(
                "'{}' is outside {} to {} in UTC",
                raw.escape_default(),
                Self::MIN_TEXT,
                Self::MAX_TEXT
            )));
        }
        Ok(Self(at))
    }

    /// A timestamp from a query string. An unencoded `+` in an offset
    /// (`from=2026-10-01T00:00:00+02:00`) reaches the handler as a space, as form decoding of a
    /// query string makes it; RFC 3339 never has a space there, so it is read as the `+` it was.
    pub fn parse_query_value(raw: &str) -> Result<Self, AppError> {
        let b = raw.as_bytes();
        match b.len().checked_sub(6) {
            Some(at) if b[at] == b' ' && b[at + 3] == b':' && at >= 19 => {
                let mut fixed = raw.to_owned();
                fixed.replace_range(at..=at, "+");
                Self::parse(&fixed)
            }
            _ => Self::parse(raw),
        }
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

    /// The time, for arithmetic.
    pub fn as_datetime(&self) -> DateTime<Utc> {
        self.at()
    }

    /// How long ago it was, now (zero for a time still to come).
    pub fn age(&self) -> std::time::Duration {
        (Utc::now() - self.at()).to_std().unwrap_or_default()
    }

    /// `days` days earlier (the earliest time a Timestamp holds, when that is out of range).
    pub fn minus_days(&self, days: u32) -> Self {
        Self(
            self.0
                .checked_sub_signed(chrono::Duration::days(i64::from(days)))
                .unwrap_or(DateTime::<Utc>::MIN_UTC),
        )
    }

    fn at(&self) -> DateTime<Utc> {
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
        // [`Timestamp::parse`] admits only years 0–9999, and chrono's `Utc::now()` is in range.
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

    mod edges {
        use super::*;
        use chrono::{Duration, FixedOffset, TimeZone};
        use proptest::prelude::*;

        fn written(year: i32, second_of_year: i64, offset_minutes: i32) -> (String, DateTime<Utc>) {
            let offset = FixedOffset::east_opt(offset_minutes * 60).expect("offset");
            let local = NaiveDate::from_ymd_opt(year, 1, 1)
                .expect("year")
                .and_hms_opt(0, 0, 0)
                .expect("midnight")
                + Duration::seconds(second_of_year);
            let at = offset.from_local_datetime(&local).single().expect("fixed");
            (at.to_rfc3339(), at.with_timezone(&Utc))
        }

        proptest! {
            /// Any offset on any day of the years at either end: the instant is read exactly
            /// when its UTC year has four digits, its text is the fixed-width form and sorts as
            /// the instant does; otherwise it is invalid, never a wrapped or inverted key.
            #[test]
            fn timestamps_are_exact_or_refused(
                year in prop_oneof![0..=2i32, 9997..=9999i32, 1970..=2100i32],
                second_of_year in 0i64..365 * 86_400,
                offset_minutes in -(23 * 60 + 59)..=(23 * 60 + 59),
                other in (0..=9999i32, 0i64..365 * 86_400),
            ) {
                let (raw, utc) = written(year, second_of_year, offset_minutes);
                match Timestamp::parse(&raw) {
                    Ok(at) => {
                        prop_assert!((0..=9999).contains(&utc.year()), "{raw}");
                        prop_assert_eq!(at.as_datetime(), utc);
                        let text = at.to_string();
                        prop_assert_eq!(&text, &utc.format("%Y-%m-%dT%H:%M:%SZ").to_string());
                        prop_assert_eq!(Timestamp::parse(&text).expect("own text"), at);
                        let (other_raw, _) = written(other.0, other.1, 0);
                        let other = Timestamp::parse(&other_raw).expect("in range");
                        prop_assert_eq!(text.cmp(&other.to_string()), at.cmp(&other));
                    }
                    Err(err) => {
                        prop_assert!(!(0..=9999).contains(&utc.year()), "{raw}: {err}");
                        prop_assert!(matches!(err, AppError::Invalid(_)));
                    }
                }
                // The same time with its `+` decoded to a space, as an unencoded query gives it.
                let spaced = raw.replacen('+', " ", 1);
                prop_assert_eq!(
                    Timestamp::parse_query_value(&spaced).ok(),
                    Timestamp::parse(&raw).ok()
                );
            }
        }

        #[test]
        fn the_ends_of_the_fixed_width_form() {
            for ok in [
                Timestamp::MIN_TEXT,
                Timestamp::MAX_TEXT,
                "9999-12-31T22:59:59-01:00",
                "0000-01-01T01:00:00+01:00",
            ] {
                assert!(Timestamp::parse(ok).is_ok(), "{ok}");
            }
            for refused in ["9999-12-31T23:30:00-01:00", "0000-01-01T00:30:00+01:00"] {
                assert!(
                    matches!(Timestamp::parse(refused), Err(AppError::Invalid(_))),
                    "{refused}"
                );
            }
            assert_eq!(
                Timestamp::parse_query_value("2026-10-01T00:00:00 02:00")
                    .expect("spaced")
                    .to_string(),
                "2026-09-30T22:00:00Z"
            );
        }
    }
}
