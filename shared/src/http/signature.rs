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
pub const TOLERANCE_SECONDS: i64 = 300;

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
    /// of `now` (Unix seconds).
    pub fn verify(
        &self,
        header: Option<&str>,
        body: &[u8],
        now: i64,
    ) -> Result<(), SignatureError> {
        let header = header.ok_or(SignatureError::Missing)?;
        let (timestamp, signatures) = parse_header(header)?;
        if (now - timestamp).abs() > TOLERANCE_SECONDS {
            return Err(SignatureError::OutOfTolerance);
        }
        for secret in &self.0 {
            for signature in &signatures {
                // Constant time: `verify_slice` compares every byte.
                if hex::decode(signature)
                    .is_ok_and(|raw| mac(secret, timestamp, body).verify_slice(&raw).is_ok())
                {
                    return Ok(());
                }
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
/// libraries ignore them.
fn parse_header(header: &str) -> Result<(i64, Vec<&str>), SignatureError> {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        let (key, value) = part
            .trim()
            .split_once('=')
            .ok_or(SignatureError::Malformed)?;
        match key {
            "t" => {
                timestamp = Some(
                    value
                        .parse::<i64>()
                        .map_err(|_| SignatureError::Malformed)?,
                )
            }
            "v1" => signatures.push(value),
            _ => {}
        }
    }
    match (timestamp, signatures.is_empty()) {
        (Some(t), false) => Ok((t, signatures)),
        _ => Err(SignatureError::Malformed),
    }
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
