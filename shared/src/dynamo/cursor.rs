//! The opaque pagination cursor: a query's LastEvaluatedKey, authenticated and bound to the
//! listing it came from.
//!
//! Layout: base64url(tag[16] ‖ key as JSON), where tag = HMAC-SHA256(secret, scope ‖ 0 ‖ key).
//! The scope names the listing (access pattern, partition, range), so a cursor from another
//! customer's or another status's listing fails to verify, as does any edited byte. The key
//! inside is not secret (it is the key of the last item the client was already shown); what the
//! tag buys is that a client can neither make one up nor carry one elsewhere.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::AppError;
use crate::dynamo::codec::Item;

const TAG_LEN: usize = 16;
/// Far above any real cursor (four keys of at most 1 KiB each would not reach it).
const MAX_CURSOR_LEN: usize = 8 * 1024;

#[derive(Clone)]
pub struct CursorCodec {
    mac: Hmac<Sha256>,
}

impl std::fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorCodec(..)")
    }
}

impl CursorCodec {
    pub fn new(secret: &[u8]) -> Self {
        Self {
            // HMAC takes keys of any length.
            mac: Hmac::new_from_slice(secret).unwrap_or_else(|_| unreachable!()),
        }
    }

    fn tagger(&self, scope: &str, key_json: &[u8]) -> Hmac<Sha256> {
        let mut mac = self.mac.clone();
        mac.update(scope.as_bytes());
        mac.update(&[0]);
        mac.update(key_json);
        mac
    }

    /// Seals a key made only of string attributes (every key in this table is).
    pub fn seal(&self, scope: &str, key: &Item) -> Result<String, AppError> {
        let plain: BTreeMap<&str, &str> = key
            .iter()
            .map(|(name, value)| match value {
                AttributeValue::S(s) => Ok((name.as_str(), s.as_str())),
                _ => Err(AppError::internal(format!(
                    "key attribute {name} is not a string"
                ))),
            })
            .collect::<Result<_, _>>()?;
        let json = serde_json::to_vec(&plain).map_err(AppError::internal)?;
        let tag = self.tagger(scope, &json).finalize().into_bytes();
        let mut raw = Vec::with_capacity(TAG_LEN + json.len());
        raw.extend_from_slice(&tag[..TAG_LEN]);
        raw.extend_from_slice(&json);
        Ok(URL_SAFE_NO_PAD.encode(raw))
    }

    /// Opens a cursor sealed for `scope`; anything else is a 400.
    pub fn open(&self, scope: &str, cursor: &str) -> Result<Item, AppError> {
        let invalid = || AppError::invalid("cursor is not valid for this listing");
        if cursor.len() > MAX_CURSOR_LEN {
            return Err(invalid());
        }
        let raw = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
        if raw.len() <= TAG_LEN {
            return Err(invalid());
        }
        let (tag, json) = raw.split_at(TAG_LEN);
        self.tagger(scope, json)
            .verify_truncated_left(tag)
            .map_err(|_| invalid())?;
        let plain: BTreeMap<String, String> =
            serde_json::from_slice(json).map_err(|_| invalid())?;
        Ok(plain
            .into_iter()
            .map(|(name, value)| (name, AttributeValue::S(value)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Item {
        Item::from([
            ("PK".into(), AttributeValue::S("CUSTOMER#c1".into())),
            (
                "SK".into(),
                AttributeValue::S("ORDER#2026-10-08T14:30:00Z#o100".into()),
            ),
        ])
    }

    #[test]
    fn a_cursor_round_trips_within_its_scope() {
        let codec = CursorCodec::new(b"test secret");
        let cursor = codec.seal("orders|c1", &key()).expect("seals");
        assert_eq!(codec.open("orders|c1", &cursor).expect("opens"), key());
        assert!(!cursor.contains("CUSTOMER"), "keys are not in the clear");
    }

    #[test]
    fn a_cursor_from_another_scope_or_secret_is_refused() {
        let codec = CursorCodec::new(b"test secret");
        let cursor = codec.seal("orders|c1", &key()).expect("seals");
        assert!(codec.open("orders|c2", &cursor).is_err());
        assert!(
            CursorCodec::new(b"other")
                .open("orders|c1", &cursor)
                .is_err()
        );
    }

    #[test]
    fn every_edited_character_is_refused() {
        let codec = CursorCodec::new(b"test secret");
        let cursor = codec.seal("s", &key()).expect("seals");
        for i in 0..cursor.len() {
            let mut bytes = cursor.clone().into_bytes();
            bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
            let edited = String::from_utf8(bytes).expect("ascii");
            let err = codec
                .open("s", &edited)
                .expect_err("edited cursor accepted");
            assert_eq!(err.status(), 400);
        }
    }

    #[test]
    fn garbage_is_refused_not_panicked_on() {
        let codec = CursorCodec::new(b"test secret");
        for bad in ["", "!!!", "AAAA", &"A".repeat(10_000), "eyJQSyI6IngifQ"] {
            assert!(codec.open("s", bad).is_err(), "{bad:?} accepted");
        }
    }
}
