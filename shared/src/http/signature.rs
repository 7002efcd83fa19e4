//! The payment provider's webhook signature, checked as the provider's scheme defines it: a
//! `Stripe-Signature` header `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, each `v1` the hex
//! HMAC-SHA256 of `"<t>.<raw body>"` under an endpoint secret. Compared in constant time; a
//! timestamp more than [`TOLERANCE_SECONDS`] from now is refused, so a captured call cannot be
//! replayed later. While the provider rolls a secret it signs with both (two `v1`), and while
//! the store rolls its own it may hold both: any pair that matches admits the call.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The header the provider signs with.
pub const SIGNATURE_HEADER: &str = "stripe-signature";

/// How far the signed timestamp may be from the store's clock, either way.
pub const TOLERANCE_SECONDS: u64 = 300;

/// The most `v1` values a header may carry: the provider signs with one secret, two while it
/// rolls; more is no delivery of its, and is refused before any hashing.
pub const MAX_SIGNATURES: usize = 4;

/// The longest header accepted, checked before it is parsed: `t=`, ten digits and
/// [`MAX_SIGNATURES`] `v1` values of 64 hex digits, with room for a `v0` and spaces.
pub const MAX_HEADER_BYTES: usize = 512;

/// The most digits a timestamp may have: Unix seconds until the year 33658.
const MAX_TIMESTAMP_DIGITS: usize = 12;

/// The endpoint secrets the store accepts signatures under (one, or two while rolling).
#[derive(Clone)]
pub struct WebhookSecrets(Vec<Vec<u8>>);

impl std::fmt::Debug for WebhookSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WebhookSecrets({} secret(s), redacted)", self.0.len())
    }
}

/// Why a webhook call was refused (each a 400: the provider retries, and nothing changed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// No `Stripe-Signature` header.
    #[error("the Stripe-Signature header is missing")]
    Missing,
    /// The header is not `t=…,v1=…`.
    #[error("the Stripe-Signature header is malformed")]
    Malformed,
    /// The header is longer than [`MAX_HEADER_BYTES`], or carries more than [`MAX_SIGNATURES`]
    /// `v1` values.
    #[error(
        "the Stripe-Signature header is too long: at most {} bytes and {} signatures",
        MAX_HEADER_BYTES,
        MAX_SIGNATURES
    )]
    TooLong,
    /// The timestamp is more than five minutes from now.
    #[error("the signature's timestamp is outside the 300-second tolerance")]
    OutOfTolerance,
    /// No `v1` matches any secret.
    #[error("no signature matches the endpoint secret")]
    NoMatch,
}

impl WebhookSecrets {
    /// The secrets in `raw`: one, or several separated by commas or whitespace (the new one
    /// first while rolling). `None` when it holds none.
    pub fn parse(raw: &str) -> Option<Self> {
        let secrets: Vec<Vec<u8>> = raw
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .map(|s| s.as_bytes().to_vec())
            .collect();
        (!secrets.is_empty()).then_some(Self(secrets))
    }

    /// Whether `header` signs `body` under one of the secrets, at a time within the tolerance
    /// of `now` (Unix seconds). The body is hashed once per secret, whatever the header holds:
    /// its length and its count of `v1` values are bounded before anything is hashed.
    pub fn verify(
        &self,
        header: Option<&str>,
        body: &[u8],
        now: i64,
    ) -> Result<(), SignatureError> {
        let header = header.ok_or(SignatureError::Missing)?;
        let (timestamp, signatures) = parse_header(header)?;
        if now.abs_diff(timestamp) > TOLERANCE_SECONDS {
            return Err(SignatureError::OutOfTolerance);
        }
        let signatures: Vec<Vec<u8>> = signatures
            .iter()
            .filter_map(|signature| hex::decode(signature).ok())
            .collect();
        for secret in &self.0 {
            let hashed = mac(secret, timestamp, body);
            // Constant time: `verify_slice` compares every byte. Each comparison finalizes a
            // copy of the one hashed state; the body is not hashed again.
            if signatures
                .iter()
                .any(|raw| hashed.clone().verify_slice(raw).is_ok())
            {
                return Ok(());
            }
        }
        Err(SignatureError::NoMatch)
    }
}

impl WebhookSecrets {
    /// The `Stripe-Signature` header the provider sends for `body` at `timestamp` from an
    /// endpoint holding these secrets: one `v1` for each (`store-pay`, and the tests).
    pub fn sign(&self, timestamp: i64, body: &[u8]) -> String {
        self.0
            .iter()
            .fold(format!("t={timestamp}"), |header, secret| {
                let digest = mac(secret, timestamp, body).finalize().into_bytes();
                format!("{header},v1={}", hex::encode(digest))
            })
    }
}

/// The MAC of `"<timestamp>.<body>"` under `secret`, not yet finalized.
fn mac(secret: &[u8], timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret)
        .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// `t` and every `v1` of a header; other schemes (`v0`) are ignored, as the provider's own
/// libraries ignore them. `t` is read as the provider writes it: digits only (no sign).
fn parse_header(header: &str) -> Result<(i64, Vec<&str>), SignatureError> {
    if header.len() > MAX_HEADER_BYTES {
        return Err(SignatureError::TooLong);
    }
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        let (key, value) = part
            .trim()
            .split_once('=')
            .ok_or(SignatureError::Malformed)?;
        match key {
            "t" => timestamp = Some(parse_timestamp(value)?),
            "v1" if signatures.len() == MAX_SIGNATURES => return Err(SignatureError::TooLong),
            "v1" => signatures.push(value),
            _ => {}
        }
    }
    match (timestamp, signatures.is_empty()) {
        (Some(t), false) => Ok((t, signatures)),
        _ => Err(SignatureError::Malformed),
    }
}

/// A header's `t`: one to [`MAX_TIMESTAMP_DIGITS`] ASCII digits.
fn parse_timestamp(value: &str) -> Result<i64, SignatureError> {
    if value.is_empty()
        || value.len() > MAX_TIMESTAMP_DIGITS
        || !value.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(SignatureError::Malformed);
    }
    value.parse().map_err(|_| SignatureError::Malformed)
}

/// The `Stripe-Signature` header the provider would send for `body` at `timestamp` under the
/// one `secret`.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    WebhookSecrets(vec![secret.as_bytes().to_vec()]).sign(timestamp, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &[u8] = br#"{"id":"evt_1"}"#;
    const NOW: i64 = 1_764_590_400;

    fn secrets(raw: &str) -> WebhookSecrets {
        WebhookSecrets::parse(raw).expect("secrets")
    }

    #[test]
    fn a_signature_is_the_hex_hmac_of_the_timestamp_and_the_body() {
        // Independently: printf '1764590400.{"id":"evt_1"}' | openssl dgst -sha256 -hmac whsec_test
        assert_eq!(
            sign("whsec_test", NOW, BODY),
            "t=1764590400,v1=3febd89270dc3135942172e808ff63476cdee2a0c470660a2524998099449d95"
        );
    }

    #[test]
    fn only_a_matching_fresh_signature_admits_the_call() {
        let s = secrets("whsec_test");
        let good = sign("whsec_test", NOW, BODY);
        assert_eq!(s.verify(Some(&good), BODY, NOW), Ok(()));
        assert_eq!(s.verify(Some(&good), BODY, NOW + 300), Ok(()));
        assert_eq!(s.verify(Some(&good), BODY, NOW - 300), Ok(()));
        assert_eq!(
            s.verify(Some(&good), BODY, NOW + 301),
            Err(SignatureError::OutOfTolerance)
        );
        assert_eq!(
            s.verify(Some(&good), br#"{"id":"evt_2"}"#, NOW),
            Err(SignatureError::NoMatch)
        );
        let wrong = sign("whsec_other", NOW, BODY);
        assert_eq!(
            s.verify(Some(&wrong), BODY, NOW),
            Err(SignatureError::NoMatch)
        );
        assert_eq!(s.verify(None, BODY, NOW), Err(SignatureError::Missing));
        for bad in ["", "t=1", "v1=ab", "t=x,v1=ab", "garbage"] {
            assert_eq!(
                s.verify(Some(bad), BODY, NOW),
                Err(SignatureError::Malformed),
                "{bad}"
            );
        }
        let not_hex = format!("t={NOW},v1=zz");
        assert_eq!(
            s.verify(Some(&not_hex), BODY, NOW),
            Err(SignatureError::NoMatch)
        );
    }

    #[test]
    fn a_timestamp_is_digits_as_the_provider_writes_it_and_never_overflows() {
        let s = secrets("whsec_test");
        for t in [
            "-9223372036854775808",
            "+123",
            "-1",
            " 1",
            "1e9",
            "9223372036854775807",
        ] {
            let header = format!("t={t},v1={}", "00".repeat(32));
            assert_eq!(
                s.verify(Some(&header), BODY, NOW),
                Err(SignatureError::Malformed),
                "{t}"
            );
        }
        // The largest timestamp read, against the earliest and the latest clocks: refused for
        // its age, never by an overflow.
        let far = format!("t=999999999999,v1={}", "00".repeat(32));
        for now in [i64::MIN, 0, i64::MAX] {
            assert_eq!(
                s.verify(Some(&far), BODY, now),
                Err(SignatureError::OutOfTolerance)
            );
        }
    }

    #[test]
    fn a_header_too_long_or_with_too_many_signatures_is_refused_before_hashing() {
        let s = secrets("whsec_test");
        let good = sign("whsec_test", NOW, BODY);
        let v1 = good.split("v1=").nth(1).expect("v1").to_owned();
        // The provider's own roll: the match is found among several.
        let rolled = format!("t={NOW},v1={},v1={v1}", "00".repeat(32));
        assert_eq!(s.verify(Some(&rolled), BODY, NOW), Ok(()));
        let many = format!("t={NOW}{}", ",v1=00".repeat(MAX_SIGNATURES + 1));
        assert_eq!(
            s.verify(Some(&many), BODY, NOW),
            Err(SignatureError::TooLong)
        );
        let long = format!("{good},v0={}", "a".repeat(MAX_HEADER_BYTES));
        assert_eq!(
            s.verify(Some(&long), BODY, NOW),
            Err(SignatureError::TooLong)
        );
        // The review's header: 1,600 `v1=00`.
        let flood = format!("t={NOW}{}", ",v1=00".repeat(1_600));
        assert_eq!(
            s.verify(Some(&flood), BODY, NOW),
            Err(SignatureError::TooLong)
        );
    }

    #[test]
    fn secrets_roll_on_either_side() {
        // The provider rolls: it signs with the old and the new secret at once.
        let new = sign("whsec_new", NOW, BODY);
        let old = sign("whsec_old", NOW, BODY);
        let both = format!("{old},v1={}", new.split("v1=").nth(1).expect("v1"));
        assert_eq!(secrets("whsec_new").verify(Some(&both), BODY, NOW), Ok(()));
        // The store rolls: it holds both until the provider signs with the new one only.
        let holding = secrets("whsec_new, whsec_old");
        assert_eq!(holding.verify(Some(&old), BODY, NOW), Ok(()));
        assert_eq!(holding.verify(Some(&new), BODY, NOW), Ok(()));
        assert!(WebhookSecrets::parse(" , ").is_none());
        assert!(!format!("{holding:?}").contains("whsec"));
    }
}
