//! Validated identifiers: what may reach a key.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::AppError;

/// The longest ID the store makes or takes from a client.
const MAX_ID_LEN: usize = 64;
/// The longest ID the payment provider makes: its documentation promises object IDs never
/// exceed 255 characters.
const MAX_PROVIDER_ID_LEN: usize = 255;

/// An ID is 1 to `max` characters of `[A-Za-z0-9_-]`, so `#` (the key separator) and control
/// characters can never reach a key.
fn validate_id(kind: &'static str, raw: &str, max: usize) -> Result<(), AppError> {
    let ok = (1..=max).contains(&raw.len())
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(AppError::invalid(format!(
            "{kind} must be 1-{max} characters of letters, digits, '_' or '-'"
        )))
    }
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        id_type!($(#[$doc])* $name, $kind, MAX_ID_LEN);
    };
    ($(#[$doc:meta])* $name:ident, $kind:literal, $max:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The ID, if `raw` is 1 to its kind's most characters (64; the provider's, 255)
            /// of `[A-Za-z0-9_-]`; a 400 otherwise.
            pub fn parse(raw: &str) -> Result<Self, AppError> {
                validate_id($kind, raw, $max)?;
                Ok(Self(raw.to_owned()))
            }

            /// The ID's text, as it stands in keys.
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
    /// A variant's stock-keeping unit, as in `ITEM#<sku>`: what is sold, stocked and ordered.
    Sku,
    "sku"
);
id_type!(
    /// A product's ID, as in `PRODUCT#<productId>`: what the catalog shows, its variants
    /// grouped under it.
    ProductId,
    "productId"
);
id_type!(
    /// A category's ID, as in `CATEGORY#<categoryId>`.
    CategoryId,
    "categoryId"
);

id_type!(
    /// A way to ship, as in `SHIPPING` / `OPTION#<optionId>`.
    ShippingOptionId,
    "optionId"
);

id_type!(
    /// A promotion, as in `PROMOTIONS` / `PROMOTION#<promotionId>`.
    PromotionId,
    "promotionId"
);

id_type!(
    /// A product's picture, as in `PRODUCT#<productId>` / `MEDIA#<mediaId>` and its object key
    /// `media/<productId>/<mediaId>`.
    MediaId,
    "mediaId"
);

impl MediaId {
    /// A new, time-sortable ID ([`ulid`]): the store chooses it, and with it the object's key.
    pub fn generate() -> Result<Self, AppError> {
        Ok(Self(format!("md_{}", ulid(Utc::now())?)))
    }
}

id_type!(
    /// A payment provider's event ID (`evt_…`): each event is applied at most once.
    PaymentEventId,
    "event id",
    MAX_PROVIDER_ID_LEN
);
id_type!(
    /// A payment provider's payment ID (`pi_…`): one customer payment.
    PaymentId,
    "payment id",
    MAX_PROVIDER_ID_LEN
);

id_type!(
    /// A provider's refund ID (`re_…`): what the provider made of one of the store's refunds.
    ProviderRefundId,
    "provider refund id",
    MAX_PROVIDER_ID_LEN
);

id_type!(
    /// A provider's dispute ID (`dp_…`): a payer's bank contesting a payment.
    DisputeId,
    "dispute id",
    MAX_PROVIDER_ID_LEN
);
id_type!(
    /// The store's ID of one refund (`ORDER#<orderId>` / `REFUND#<refundId>`): the
    /// `Idempotency-Key` it is sent to the provider with, and its `metadata[refundId]` there, so
    /// that an answer lost on the way back is looked for before the refund is sent again.
    RefundId,
    "refund id",
    MAX_PROVIDER_ID_LEN + 8
);

impl RefundId {
    /// The refund of payment `payment`, which placed nothing: one per payment, however often
    /// it is reported.
    pub fn of_payment(payment: &PaymentId) -> Self {
        Self(format!("pay_{payment}"))
    }

    /// The refund a paid order's cancellation requests: one per order (CANCELLED is final).
    pub fn of_cancellation(order: &OrderId) -> Self {
        Self(format!("cancel_{order}"))
    }

    /// A staff refund of `order` asked for under the client's `key`: the same key names the
    /// same refund, so a retried request refunds once.
    pub fn of_request(order: &OrderId, key: &IdempotencyKey) -> Self {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(format!("{order}\n{key}").as_bytes());
        Self(format!("rf_{}", hex::encode(&digest[..16])))
    }
}

/// A new, time-sortable ID (a ULID): 48 bits of milliseconds since the Unix epoch and 80
/// random bits, in Crockford base32, so IDs made later sort after earlier ones.
fn ulid(at: DateTime<Utc>) -> Result<String, AppError> {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let millis = u128::try_from(at.timestamp_millis()).unwrap_or(0) & ((1 << 48) - 1);
    let mut random = [0u8; 10];
    getrandom::fill(&mut random).map_err(|err| AppError::internal(err.to_string()))?;
    let bits = random
        .iter()
        .fold(millis, |acc, byte| (acc << 8) | u128::from(*byte));
    Ok((0..26)
        .rev()
        .map(|i| char::from(ALPHABET[((bits >> (i * 5)) & 0x1f) as usize]))
        .collect())
}

impl OrderId {
    /// A new, time-sortable ID ([`ulid`]).
    pub fn generate(at: DateTime<Utc>) -> Result<Self, AppError> {
        Ok(Self(ulid(at)?))
    }
}

id_type!(
    /// One shipment of an order's lines (`ORDER#<orderId>` / `FULFILMENT#<fulfilmentId>`).
    FulfilmentId,
    "fulfilmentId"
);

impl FulfilmentId {
    /// A new, time-sortable ID (to the millisecond): an order's fulfilments list in the order
    /// they were made.
    pub fn generate() -> Result<Self, AppError> {
        Ok(Self(ulid(Utc::now())?))
    }

    /// The fulfilment of `order` asked for under the client's `key`: a retried request names
    /// the same fulfilment, which is made once.
    pub fn of_request(order: &OrderId, key: &IdempotencyKey) -> Self {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(format!("fulfilment\n{order}\n{key}").as_bytes());
        Self(format!("ff_{}", hex::encode(&digest[..12])))
    }
}

id_type!(
    /// Unshipped lines of an order cancelled at once (`ORDER#<orderId>` /
    /// `CANCELLATION#<cancellationId>`).
    CancellationId,
    "cancellationId"
);

impl CancellationId {
    /// The cancellation of `order` asked for under the client's `key`: a retried request names
    /// the same cancellation, which is made once.
    pub fn of_request(order: &OrderId, key: &IdempotencyKey) -> Self {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(format!("cancellation\n{order}\n{key}").as_bytes());
        Self(format!("cn_{}", hex::encode(&digest[..12])))
    }
}

id_type!(
    /// A customer's return of delivered lines (`ORDER#<orderId>` / `RETURN#<returnId>`).
    ReturnId,
    "returnId"
);

impl ReturnId {
    /// The return of `order` asked for under the client's `key`: a retried request names the
    /// same return, which is made once.
    pub fn of_request(order: &OrderId, key: &IdempotencyKey) -> Self {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(format!("return\n{order}\n{key}").as_bytes());
        Self(format!("rt_{}", hex::encode(&digest[..12])))
    }
}

impl RefundId {
    /// The refund a cancellation of lines requests: one per cancellation.
    pub fn of_lines_cancelled(cancellation: &CancellationId) -> Self {
        Self(format!("rf_{cancellation}"))
    }

    /// The refund a return's receipt requests: one per return.
    pub fn of_return(order_return: &ReturnId) -> Self {
        Self(format!("rf_{order_return}"))
    }
}

/// A client's `Idempotency-Key`: 1–128 characters of `[A-Za-z0-9_.:-]` (a UUID fits).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// The key, if `raw` is 1-128 visible characters of `[A-Za-z0-9_.:-]`; a 400 otherwise.
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

    /// The key's text, as the client sent it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time::Timestamp;

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
    fn the_providers_ids_may_be_as_long_as_it_documents() {
        let longest = format!("evt_{}", "x".repeat(251));
        assert_eq!(
            PaymentEventId::parse(&longest).expect("255").as_str(),
            longest
        );
        assert!(PaymentId::parse(&format!("pi_{}", "x".repeat(252))).is_ok());
        assert!(PaymentEventId::parse(&"x".repeat(256)).is_err());
        assert!(PaymentId::parse("pi#1").is_err());
        // The store's own stay at 64.
        assert!(OrderId::parse(&"x".repeat(65)).is_err());
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
}
