//! Which DynamoDB errors are which: throttling, DynamoDB's own failures and timeouts are
//! "unavailable" (the SDK has retried them already; the client may retry later), everything else
//! is internal (a cancelled transaction is an outcome: `transaction.rs`). SDK errors are never flattened
//! into strings.

use std::error::Error as StdError;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

use crate::AppError;

/// DynamoDB error codes that mean "too much, try again later" (also counted by `metrics`).
pub const THROTTLING_CODES: [&str; 4] = [
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "ThrottlingException",
    "LimitExceededException",
];

impl<E> From<SdkError<E, HttpResponse>> for AppError
where
    E: ProvideErrorMetadata + StdError + Send + Sync + 'static,
{
    fn from(err: SdkError<E, HttpResponse>) -> Self {
        let throttled = err
            .as_service_error()
            .and_then(ProvideErrorMetadata::code)
            .is_some_and(|code| THROTTLING_CODES.contains(&code));
        let failed_or_silent = match &err {
            SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) => true,
            SdkError::ServiceError(service) => service.raw().status().is_server_error(),
            _ => false,
        };
        if throttled || failed_or_silent {
            AppError::Unavailable(Box::new(err))
        } else {
            AppError::Internal(Box::new(err))
        }
    }
}

/// A conditional write's answer: its output, or `None` when its condition failed (which a
/// caller expects: the item was there already, or had moved on); any other error as
/// [`AppError`].
pub fn unless_condition_failed<T, E>(
    sent: Result<T, SdkError<E, HttpResponse>>,
) -> Result<Option<T>, AppError>
where
    E: ProvideErrorMetadata + StdError + Send + Sync + 'static,
{
    match sent {
        Ok(out) => Ok(Some(out)),
        Err(err)
            if err.as_service_error().and_then(ProvideErrorMetadata::code)
                == Some("ConditionalCheckFailedException") =>
        {
            Ok(None)
        }
        Err(err) => Err(err.into()),
    }
}
