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
