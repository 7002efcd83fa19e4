//! The one error type of the API; [`crate::http::problem`] maps it to HTTP.

use std::error::Error as StdError;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

pub type BoxError = Box<dyn StdError + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The request is malformed; the message is shown to the client.
    #[error("{0}")]
    Invalid(String),
    /// What the request names does not exist; the message is shown to the client.
    #[error("{0}")]
    NotFound(String),
    /// DynamoDB asked us to slow down; worth retrying later.
    #[error("throttled by DynamoDB")]
    Throttled(#[source] BoxError),
    /// Anything else. Its details go to the log only.
    #[error("internal error")]
    Internal(#[source] BoxError),
}

impl AppError {
    pub fn invalid(detail: impl Into<String>) -> Self {
        AppError::Invalid(detail.into())
    }

    pub fn not_found(detail: impl Into<String>) -> Self {
        AppError::NotFound(detail.into())
    }

    pub fn internal(err: impl Into<BoxError>) -> Self {
        AppError::Internal(err.into())
    }

    pub fn status(&self) -> u16 {
        match self {
            AppError::Invalid(_) => 400,
            AppError::NotFound(_) => 404,
            AppError::Throttled(_) => 503,
            AppError::Internal(_) => 500,
        }
    }
}

/// DynamoDB error codes that mean "too much, try again later".
const THROTTLING_CODES: [&str; 4] = [
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "ThrottlingException",
    "LimitExceededException",
];

impl<E, R> From<SdkError<E, R>> for AppError
where
    E: ProvideErrorMetadata + StdError + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    fn from(err: SdkError<E, R>) -> Self {
        let throttled = err
            .as_service_error()
            .and_then(ProvideErrorMetadata::code)
            .is_some_and(|code| THROTTLING_CODES.contains(&code));
        if throttled {
            AppError::Throttled(Box::new(err))
        } else {
            AppError::Internal(Box::new(err))
        }
    }
}
