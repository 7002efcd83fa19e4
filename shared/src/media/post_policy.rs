//! An S3 POST policy signed with Signature Version 4, as S3's documentation for browser-based
//! uploads specifies it ("Creating a POST policy", "Calculating a signature"): the policy a JSON
//! document of an expiration and conditions, base64-encoded, and its signature HMAC-SHA256 of
//! that text under the SigV4 signing key of the day, region and service `s3`. The signing key
//! is derived by aws-sigv4 (the SDK's own signer), never by hand.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use aws_sdk_s3::config::Credentials;
use aws_sigv4::sign::v4::{calculate_signature, generate_signing_key};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::UploadForm;
use crate::AppError;

/// What signs the bucket's upload forms.
#[derive(Debug, Clone)]
pub struct PostPolicy {
    url: String,
    bucket: String,
    region: String,
    credentials: Credentials,
}

impl PostPolicy {
    /// Forms posted to `url`, for `bucket` in `region`, signed with `credentials`.
    pub fn new(url: String, bucket: String, region: String, credentials: Credentials) -> Self {
        Self {
            url,
            bucket,
            region,
            credentials,
        }
    }

    /// A form for one object at `key` of `content_type`, 1 to `max_bytes` bytes, usable for
    /// `valid_for` from now.
    pub fn sign(
        &self,
        key: &str,
        content_type: &str,
        max_bytes: u64,
        valid_for: Duration,
    ) -> Result<UploadForm, AppError> {
        self.sign_at(SystemTime::now(), key, content_type, max_bytes, valid_for)
    }

    fn sign_at(
        &self,
        now: SystemTime,
        key: &str,
        content_type: &str,
        max_bytes: u64,
        valid_for: Duration,
    ) -> Result<UploadForm, AppError> {
        let at: DateTime<Utc> = now.into();
        let expires: DateTime<Utc> = (now + valid_for).into();
        let credential = format!(
            "{}/{}/{}/s3/aws4_request",
            self.credentials.access_key_id(),
            at.format("%Y%m%d"),
            self.region
        );
        let mut fields = BTreeMap::from([
            ("key".to_owned(), key.to_owned()),
            ("Content-Type".to_owned(), content_type.to_owned()),
            ("x-amz-algorithm".to_owned(), "AWS4-HMAC-SHA256".to_owned()),
            ("x-amz-credential".to_owned(), credential),
            (
                "x-amz-date".to_owned(),
                at.format("%Y%m%dT%H%M%SZ").to_string(),
            ),
        ]);
        if let Some(token) = self.credentials.session_token() {
            fields.insert("x-amz-security-token".to_owned(), token.to_owned());
        }
        // Every field is held to its exact value, the bucket too; the size by its range.
        let mut conditions: Vec<Value> = vec![json!({ "bucket": self.bucket })];
        conditions.extend(fields.iter().map(|(name, value)| json!({ name: value })));
        conditions.push(json!(["content-length-range", 1, max_bytes]));
        let policy = json!({
            "expiration": expires.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
            "conditions": conditions,
        });
        let encoded = STANDARD.encode(policy.to_string());
        let signing_key = generate_signing_key(
            self.credentials.secret_access_key(),
            now,
            &self.region,
            "s3",
        );
        let signature = calculate_signature(signing_key, encoded.as_bytes());
        fields.insert("policy".to_owned(), encoded);
        fields.insert("x-amz-signature".to_owned(), signature);
        if fields.values().any(|v| v.is_empty()) {
            return Err(AppError::internal("an upload form field is empty"));
        }
        Ok(UploadForm {
            url: self.url.clone(),
            fields,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The signing key of SigV4's documented derivation example ("Examples of how to derive a
    /// signing key for Signature Version 4": its secret, 2012-02-15, us-east-1, iam), and a
    /// signature is HMAC-SHA256 of the encoded policy under it, in hex.
    #[test]
    fn the_signature_is_sigv4s_over_the_encoded_policy() {
        let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
        let day = SystemTime::UNIX_EPOCH + Duration::from_secs(1_329_264_000);
        let key = generate_signing_key(secret, day, "us-east-1", "iam");
        assert_eq!(
            hex::encode(key.as_ref()),
            "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"
        );
        use hmac::{KeyInit, Mac};
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key.as_ref()).expect("a key");
        mac.update(b"eyJleHBpcmF0aW9uIjoiIn0=");
        assert_eq!(
            calculate_signature(key, b"eyJleHBpcmF0aW9uIjoiIn0="),
            hex::encode(mac.finalize().into_bytes())
        );
    }

    #[test]
    fn a_form_holds_every_field_to_its_value_and_the_size_to_its_range() {
        let credentials = Credentials::new("AKID", "SECRET", Some("TOKEN".into()), None, "t");
        let policy = PostPolicy::new(
            "https://media.s3.eu-west-1.amazonaws.com".into(),
            "media".into(),
            "eu-west-1".into(),
            credentials,
        );
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_558_400);
        let form = policy
            .sign_at(
                at,
                "media/tee/md_1",
                "image/png",
                2_048,
                Duration::from_secs(600),
            )
            .expect("signs");
        assert_eq!(form.fields["key"], "media/tee/md_1");
        assert_eq!(
            form.fields["x-amz-credential"],
            "AKID/20261206/eu-west-1/s3/aws4_request"
        );
        assert_eq!(form.fields["x-amz-security-token"], "TOKEN");
        let decoded = STANDARD.decode(&form.fields["policy"]).expect("base64");
        let policy: Value = serde_json::from_slice(&decoded).expect("json");
        assert_eq!(policy["expiration"], "2026-12-06T12:10:00.000Z");
        let conditions = policy["conditions"].as_array().expect("a list");
        assert!(conditions.contains(&json!({"bucket": "media"})));
        assert!(conditions.contains(&json!({"key": "media/tee/md_1"})));
        assert!(conditions.contains(&json!({"Content-Type": "image/png"})));
        assert!(conditions.contains(&json!(["content-length-range", 1, 2048])));
        assert_eq!(form.fields["x-amz-signature"].len(), 64);
    }
}
