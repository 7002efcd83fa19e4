//! Which DynamoDB errors are which: throttling, DynamoDB's own failures and timeouts are
//! "unavailable" (the SDK has retried them already; the client may retry later), a cancelled
//! transaction keeps its reasons, everything else is internal. SDK errors are never flattened
//! into strings.

use std::error::Error as StdError;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::CancellationReason;

use crate::AppError;

/// DynamoDB error codes that mean "too much, try again later".
const THROTTLING_CODES: [&str; 4] = [
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

/// The cancellation reasons of a cancelled transaction, or the error itself as an AppError.
pub(crate) fn cancellation_reasons(
    err: SdkError<TransactWriteItemsError, HttpResponse>,
) -> Result<Vec<CancellationReason>, AppError> {
    match err.as_service_error() {
        Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) => {
            Ok(cancelled.cancellation_reasons().to_vec())
        }
        _ => Err(err.into()),
    }
}

/// The code of the reason for action `index`: `"None"` for an action that did not fail.
pub(crate) fn reason_code(reasons: &[CancellationReason], index: usize) -> &str {
    reasons
        .get(index)
        .and_then(CancellationReason::code)
        .unwrap_or("None")
}

/// A cancellation caused by a concurrent transaction on the same items: worth another try.
pub(crate) fn conflicted(reasons: &[CancellationReason]) -> bool {
    reasons
        .iter()
        .any(|r| r.code() == Some("TransactionConflict"))
}
