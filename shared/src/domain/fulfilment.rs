//! Fulfilments: an order's lines shipped in parts, each part (a fulfilment) with its carrier's
//! tracking, moving on its own from SHIPPED to DELIVERED; what of each line may still ship; and
//! the order's status as its lines make it (PARTIALLY_SHIPPED while some are unshipped, SHIPPED
//! when all are, DELIVERED when every fulfilment is).

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::ids::FulfilmentId;
use crate::domain::lines::LineQuantity;
use crate::domain::text::invisible;
use crate::domain::time::Timestamp;

crate::listed! {
    /// Where one fulfilment is.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum FulfilmentStatus as "status" {
        /// Handed to the carrier.
        Shipped = "SHIPPED",
        /// The carrier reports it on its way.
        InTransit = "IN_TRANSIT",
        /// Arrived: the end of its life.
        Delivered = "DELIVERED",
        /// The carrier could not deliver it; it may still be (IN_TRANSIT again, or DELIVERED).
        FailedDelivery = "FAILED_DELIVERY",
    }
}

impl FulfilmentStatus {
    /// The moves a fulfilment may make: on, never back to SHIPPED, and nothing after DELIVERED.
    pub fn can_become(self, next: FulfilmentStatus) -> bool {
        use FulfilmentStatus::*;
        matches!(
            (self, next),
            (Shipped, InTransit | Delivered | FailedDelivery)
                | (InTransit, Delivered | FailedDelivery)
                | (FailedDelivery, InTransit | Delivered)
        )
    }
}

/// The most characters of a carrier's name or a tracking number (at most 4 bytes each).
pub const MAX_TRACKING_CHARS: usize = 100;
/// The most characters of a tracking URL: ASCII only, so as many bytes.
pub const MAX_TRACKING_URL_CHARS: usize = 512;
/// The most times one fulfilment's tracking may be corrected: its history stays small.
pub const MAX_TRACKING_CHANGES: usize = 5;
/// The most fulfilments one order may have: with [`MAX_TRACKING_CHANGES`] and the text caps,
/// they keep the order's partition under the 1 MB one Query reads (docs/fulfilment.md).
pub const MAX_FULFILMENTS_PER_ORDER: usize = 12;

/// How a shipment is followed: who carries it, its number with them, and where to look it up.
/// Each part is optional (a parcel handed over in person has none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tracking {
    /// The carrier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier: Option<String>,
    /// The carrier's number for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking_number: Option<String>,
    /// Where the customer follows it (`https://`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking_url: Option<String>,
}

impl Tracking {
    /// Tracking from what a client sent: a carrier and a number of 1-100 characters with no
    /// control, bidirectional-control or zero-width characters (trimmed), a URL of `https://`
    /// in printable ASCII (a non-ASCII address is percent-encoded), at most
    /// [`MAX_TRACKING_URL_CHARS`] of them.
    pub fn parse(
        carrier: Option<String>,
        tracking_number: Option<String>,
        tracking_url: Option<String>,
    ) -> Result<Self, AppError> {
        let text = |raw: Option<String>, what: &str| -> Result<Option<String>, AppError> {
            let Some(raw) = raw else { return Ok(None) };
            let trimmed = raw.trim();
            if trimmed.is_empty()
                || raw.chars().count() > MAX_TRACKING_CHARS
                || raw.chars().any(invisible)
            {
                return Err(AppError::invalid(format!(
                    "{what} must be 1-{MAX_TRACKING_CHARS} characters without control or zero-width characters"
                )));
            }
            Ok(Some(trimmed.to_owned()))
        };
        let url = match tracking_url {
            None => None,
            Some(url) => {
                let host_ok = url
                    .strip_prefix("https://")
                    .is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'));
                if !host_ok
                    || url.len() > MAX_TRACKING_URL_CHARS
                    || !url.bytes().all(|b| b.is_ascii_graphic())
                {
                    return Err(AppError::invalid(format!(
                        "trackingUrl must be an https:// URL of at most {MAX_TRACKING_URL_CHARS} printable ASCII characters (percent-encode the rest)"
                    )));
                }
                Some(url)
            }
        };
        Ok(Self {
            carrier: text(carrier, "carrier")?,
            tracking_number: text(tracking_number, "trackingNumber")?,
            tracking_url: url,
        })
    }

    /// Whether it says nothing.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Tracking a correction replaced, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrackingChange {
    /// What it was.
    #[serde(flatten)]
    pub tracking: Tracking,
    /// When it was replaced.
    pub replaced_at: Timestamp,
}

/// One shipment of some of an order's lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fulfilment {
    /// Which one.
    pub fulfilment_id: FulfilmentId,
    /// Where it is.
    pub status: FulfilmentStatus,
    /// What it carries, in SKU order.
    pub lines: Vec<LineQuantity>,
    /// How it is followed now.
    #[serde(flatten)]
    pub tracking: Tracking,
    /// When it was shipped.
    pub shipped_at: Timestamp,
    /// When it was delivered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered_at: Option<Timestamp>,
    /// When its status or tracking last changed.
    pub updated_at: Timestamp,
    /// The tracking corrections replaced, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<TrackingChange>,
    /// How many events it has given (its record's counter): every change of it moves this on,
    /// and is made only if it is still the one read.
    #[serde(skip)]
    pub event_sequence: u64,
}

impl Fulfilment {
    /// A new fulfilment of `lines`, shipped `now`.
    pub fn shipped(
        fulfilment_id: FulfilmentId,
        mut lines: Vec<LineQuantity>,
        tracking: Tracking,
        now: Timestamp,
    ) -> Self {
        lines.sort_by(|a, b| a.sku.cmp(&b.sku));
        Self {
            fulfilment_id,
            status: FulfilmentStatus::Shipped,
            lines,
            tracking,
            shipped_at: now,
            delivered_at: None,
            updated_at: now,
            history: Vec::new(),
            event_sequence: 1,
        }
    }

    /// How many of `sku` it carries.
    pub fn quantity_of(&self, sku: &crate::domain::ids::Sku) -> u32 {
        self.lines
            .iter()
            .filter(|line| line.sku == *sku)
            .map(|line| line.quantity)
            .sum()
    }

    /// This fulfilment after `update` at `now`: its status moved, its tracking replaced (the
    /// replaced values kept in its history), one event more for each. A 409 for a move its
    /// status cannot make, tracking changed after delivery, or too many corrections. An update
    /// that asks for what it already is (a retried request) changes nothing: the fulfilment as
    /// it stands, equal to `self`, as a return answers the same move again.
    pub fn updated(&self, update: &FulfilmentUpdate, now: Timestamp) -> Result<Self, AppError> {
        let mut next = self.clone();
        let mut events = 0;
        if let Some(status) = update.status.filter(|status| *status != self.status) {
            if !self.status.can_become(status) {
                return Err(AppError::MoveRefused(format!(
                    "fulfilment {} is {} and cannot become {status}",
                    self.fulfilment_id, self.status
                )));
            }
            next.status = status;
            if status == FulfilmentStatus::Delivered {
                next.delivered_at = Some(now);
            }
            events += 1;
        }
        if let Some(tracking) = update.tracking.as_ref().filter(|t| **t != self.tracking) {
            if self.status == FulfilmentStatus::Delivered {
                return Err(AppError::MoveRefused(format!(
                    "fulfilment {} is DELIVERED: its tracking can no longer change",
                    self.fulfilment_id
                )));
            }
            if self.history.len() >= MAX_TRACKING_CHANGES {
                return Err(AppError::CapReached(format!(
                    "fulfilment {}'s tracking was corrected {MAX_TRACKING_CHANGES} times, the most it may be",
                    self.fulfilment_id
                )));
            }
            next.history.push(TrackingChange {
                tracking: self.tracking.clone(),
                replaced_at: now,
            });
            next.tracking = tracking.clone();
            events += 1;
        }
        if events == 0 {
            return Ok(next);
        }
        next.updated_at = now;
        next.event_sequence += events;
        Ok(next)
    }
}

/// What staff change of a fulfilment: its status, its tracking (replaced whole), or both.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FulfilmentUpdate {
    /// The status it moves to.
    pub status: Option<FulfilmentStatus>,
    /// The tracking that replaces its own.
    pub tracking: Option<Tracking>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::test_support::{at, lines};

    #[test]
    fn only_forward_moves_are_allowed() {
        use FulfilmentStatus::*;
        let allowed: Vec<_> = FulfilmentStatus::ALL
            .into_iter()
            .flat_map(|from| FulfilmentStatus::ALL.into_iter().map(move |to| (from, to)))
            .filter(|(from, to)| from.can_become(*to))
            .collect();
        assert_eq!(
            allowed,
            [
                (Shipped, InTransit),
                (Shipped, Delivered),
                (Shipped, FailedDelivery),
                (InTransit, Delivered),
                (InTransit, FailedDelivery),
                (FailedDelivery, InTransit),
                (FailedDelivery, Delivered),
            ]
        );
        assert_eq!(
            "IN_TRANSIT".parse::<FulfilmentStatus>().ok(),
            Some(InTransit)
        );
        assert_eq!(
            "shipped"
                .parse::<FulfilmentStatus>()
                .expect_err("lower case")
                .to_string(),
            "status must be one of SHIPPED, IN_TRANSIT, DELIVERED, FAILED_DELIVERY, not \"shipped\""
        );
    }

    #[test]
    fn tracking_is_corrected_until_delivery_and_the_old_kept() {
        let mut fulfilment = Fulfilment::shipped(
            FulfilmentId::parse("f1").expect("id"),
            lines(&[("a", 1)]),
            Tracking::parse(Some("DHL".into()), Some("123".into()), None).expect("tracking"),
            at("2026-12-02T10:00:00Z"),
        );
        let corrected = Tracking::parse(
            Some(" UPS ".into()),
            Some("1Z999".into()),
            Some("https://ups.example/1Z999".into()),
        )
        .expect("tracking");
        assert_eq!(corrected.carrier.as_deref(), Some("UPS"));
        let later = at("2026-12-02T11:00:00Z");
        fulfilment = fulfilment
            .updated(
                &FulfilmentUpdate {
                    status: Some(FulfilmentStatus::InTransit),
                    tracking: Some(corrected.clone()),
                },
                later,
            )
            .expect("moves");
        assert_eq!(
            fulfilment.event_sequence, 3,
            "shipped, in transit, corrected"
        );
        assert_eq!(fulfilment.history.len(), 1);
        assert_eq!(
            fulfilment.history[0].tracking.carrier.as_deref(),
            Some("DHL")
        );
        assert_eq!(fulfilment.history[0].replaced_at, later);
        let delivered = fulfilment
            .updated(
                &FulfilmentUpdate {
                    status: Some(FulfilmentStatus::Delivered),
                    tracking: None,
                },
                later,
            )
            .expect("delivers");
        assert_eq!(delivered.delivered_at, Some(later));
        for refused in [
            FulfilmentUpdate {
                status: Some(FulfilmentStatus::InTransit),
                tracking: None,
            },
            FulfilmentUpdate {
                status: None,
                tracking: Some(Tracking::default()),
            },
        ] {
            assert!(matches!(
                delivered.updated(&refused, later),
                Err(AppError::MoveRefused(_))
            ));
        }
        let again = FulfilmentUpdate {
            status: Some(FulfilmentStatus::Delivered),
            tracking: None,
        };
        assert_eq!(
            delivered.updated(&again, later).expect("as it stands"),
            delivered,
            "the same move again changes nothing"
        );
    }

    #[test]
    fn tracking_refuses_what_would_mislead() {
        for (carrier, number, url) in [
            (Some(""), None, None),
            (Some("DHL\u{202E}"), None, None),
            (None, Some("1\n2"), None),
            (None, None, Some("javascript:alert(1)")),
            (None, None, Some("https://")),
            (None, None, Some("https://a.example/x y")),
            // Round five: http, a non-ASCII address, zero-width characters, past the length.
            (None, None, Some("http://a.example/t/1")),
            (None, None, Some("https://a.example/t/\u{e9}")),
            (None, None, Some("https:///path")),
            (Some("D\u{200B}HL"), None, None),
            (None, Some("JD\u{FEFF}0001"), None),
            (None, Some("JD\u{2060}0001"), None),
        ] {
            assert!(
                Tracking::parse(
                    carrier.map(str::to_owned),
                    number.map(str::to_owned),
                    url.map(str::to_owned)
                )
                .is_err(),
                "{carrier:?} {number:?} {url:?}"
            );
        }
        assert!(Tracking::parse(None, None, None).expect("none").is_empty());
        let longest = format!(
            "https://a.example/{}",
            "x".repeat(MAX_TRACKING_URL_CHARS - 18)
        );
        assert_eq!(longest.len(), MAX_TRACKING_URL_CHARS);
        assert!(Tracking::parse(None, None, Some(longest.clone())).is_ok());
        assert!(Tracking::parse(None, None, Some(format!("{longest}x"))).is_err());
        assert!(
            Tracking::parse(
                Some("ヤマト運輸".into()),
                None,
                Some("https://a.example/%C3%A9".into())
            )
            .is_ok()
        );
    }
}
