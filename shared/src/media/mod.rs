//! The media bucket (S3): where products' pictures live, the table keeping only a reference
//! (the source design's rule for big files). Staff upload straight to the bucket with a form
//! the store signs ([`MediaBucket::upload_form`], an S3 POST policy); the store reads the first
//! bytes of what arrived to check it, deletes what it refuses or what staff remove, and signs
//! the URLs answers carry ([`MediaBucket::view_url`]). The bucket is private: nothing in it is
//! readable without a signature.

mod post_policy;

use std::time::Duration;

use aws_sdk_s3::config::{BehaviorVersion, Region};
use aws_sdk_s3::presigning::PresigningConfig;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use serde::Serialize;

use crate::AppError;
use crate::domain::media::{Arrived, MediaType, UPLOAD_SECONDS, VIEW_SECONDS};
use crate::dynamo::client::{self, Environment};

pub use aws_sdk_s3::config::Credentials;
pub use post_policy::PostPolicy;

/// An upload form: where a browser posts it, and the fields to post before the file (which
/// must be the form's last field, named `file`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UploadForm {
    /// The bucket's URL.
    pub url: String,
    /// The signed fields, posted as they are.
    pub fields: std::collections::BTreeMap<String, String>,
}

/// The bucket and the client that reaches it, for the functions that use it (`MEDIA_BUCKET`
/// set). The client is built when a request first needs it, not at init: most requests of
/// these functions sign URLs or forms only, and a cold start pays nothing for a picture it
/// does not show.
#[derive(Debug, Clone)]
pub struct MediaBucket {
    region: String,
    credentials: Credentials,
    endpoint: Option<String>,
    client: std::sync::Arc<std::sync::OnceLock<aws_sdk_s3::Client>>,
    bucket: String,
    policy: PostPolicy,
}

impl MediaBucket {
    /// Bucket `bucket` with the Lambda environment's region and credentials; its endpoint
    /// `AWS_ENDPOINT_URL_S3` (or `AWS_ENDPOINT_URL`) when set (a local S3, addressed by path).
    pub fn from_environment(environment: &Environment, bucket: String) -> Self {
        let endpoint = client::endpoint_from_env("AWS_ENDPOINT_URL_S3");
        Self::new(
            &environment.region,
            environment.credentials.clone(),
            endpoint,
            bucket,
        )
    }

    /// Bucket `bucket` in `region`, reached with `credentials` at `endpoint` (none: AWS's own).
    pub fn new(
        region: &str,
        credentials: Credentials,
        endpoint: Option<String>,
        bucket: String,
    ) -> Self {
        let url = match &endpoint {
            Some(endpoint) => format!("{}/{bucket}", endpoint.trim_end_matches('/')),
            None => format!("https://{bucket}.s3.{region}.amazonaws.com"),
        };
        Self {
            policy: PostPolicy::new(url, bucket.clone(), region.to_owned(), credentials.clone()),
            region: region.to_owned(),
            credentials,
            endpoint,
            client: Default::default(),
            bucket,
        }
    }

    /// The S3 client, built on first use.
    fn client(&self) -> &aws_sdk_s3::Client {
        self.client.get_or_init(|| {
            let mut config = aws_sdk_s3::Config::builder()
                .behavior_version(BehaviorVersion::latest())
                .region(Region::new(self.region.clone()))
                .credentials_provider(self.credentials.clone())
                .http_client(client::http_client())
                .timeout_config(client::timeouts())
                .retry_config(client::retries())
                // A local S3 answers on one host: buckets by path. AWS's: by host name.
                .force_path_style(self.endpoint.is_some());
            config.set_endpoint_url(self.endpoint.clone());
            aws_sdk_s3::Client::from_conf(config.build())
        })
    }

    /// The bucket's name.
    pub fn name(&self) -> &str {
        &self.bucket
    }

    /// A form that uploads one picture of `media_type` to `key`, of 1 to `max_bytes` bytes,
    /// within [`UPLOAD_SECONDS`].
    pub fn upload_form(
        &self,
        key: &str,
        media_type: MediaType,
        max_bytes: u64,
    ) -> Result<UploadForm, AppError> {
        self.policy.sign(
            key,
            media_type.as_str(),
            max_bytes,
            Duration::from_secs(UPLOAD_SECONDS),
        )
    }

    /// A URL that loads `key` for [`VIEW_SECONDS`]; signing it sends nothing.
    pub async fn view_url(&self, key: &str) -> Result<String, AppError> {
        let config = PresigningConfig::expires_in(Duration::from_secs(VIEW_SECONDS))
            .map_err(AppError::internal)?;
        let signed = self
            .client()
            .get_object()
            .bucket(&self.bucket)
            .key(key)
            .presigned(config)
            .await
            .map_err(AppError::internal)?;
        Ok(signed.uri().to_owned())
    }

    /// What arrived at `key`: its size, its stored content type and its first bytes, by one
    /// ranged GetObject; `None` when nothing is there (removed since).
    pub async fn arrived(&self, key: &str) -> Result<Option<Arrived>, AppError> {
        let read = self
            .client()
            .get_object()
            .bucket(&self.bucket)
            .key(key)
            .range(format!("bytes=0-{}", MediaType::SIGNATURE_BYTES - 1))
            .send()
            .await;
        let out = match read {
            Ok(out) => out,
            Err(err) => {
                return match err.code() {
                    Some("NoSuchKey") => Ok(None),
                    // A range of an empty object is not satisfiable: it is 0 bytes.
                    Some("InvalidRange") => Ok(Some(Arrived {
                        size: 0,
                        content_type: None,
                        head: Vec::new(),
                    })),
                    _ => Err(AppError::internal(err)),
                };
            }
        };
        let size = out
            .content_range()
            .and_then(|range| range.rsplit('/').next())
            .and_then(|total| total.parse().ok())
            .or_else(|| out.content_length().and_then(|n| u64::try_from(n).ok()))
            .unwrap_or(0);
        let content_type = out.content_type().map(str::to_owned);
        let head = out
            .body
            .collect()
            .await
            .map_err(AppError::internal)?
            .into_bytes()
            .to_vec();
        Ok(Some(Arrived {
            size,
            content_type,
            head,
        }))
    }

    /// Deletes `key` (nothing there is no error: a retry finds it gone).
    pub async fn delete(&self, key: &str) -> Result<(), AppError> {
        self.client()
            .delete_object()
            .bucket(&self.bucket)
            .key(key)
            .send()
            .await
            .map_err(AppError::internal)?;
        Ok(())
    }
}
