//! The one place where an [`AppError`] becomes an HTTP status and an
//! `application/problem+json` body (RFC 9457), and where it is logged.

use lambda_http::http::{HeaderValue, StatusCode, header};
use lambda_http::{Body, Response};
use serde::Serialize;

use crate::AppError;
use crate::domain::ids::Sku;
use crate::domain::status::OrderStatus;
use crate::http::response::json_response;

/// Logs a refused or failed request: 4xx briefly, 5xx with the whole error chain.
pub fn log(err: &AppError, method: &str, path: &str) {
    if err.status() >= 500 {
        // The full chain, SDK error metadata included, goes to the log and nowhere else.
        let mut chain = String::new();
        let mut source = std::error::Error::source(err);
        while let Some(cause) = source {
            chain.push_str(&format!(": {cause:?}"));
            source = cause.source();
        }
        tracing::error!(status = err.status(), %method, %path, error = %err, cause = %chain, "request failed");
    } else {
        tracing::info!(status = err.status(), %method, %path, error = %err, "request refused");
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Problem<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    title: &'a str,
    status: u16,
    detail: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    current_status: Option<OrderStatus>,
    /// The products a catalog problem is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    skus: Option<&'a [Sku]>,
}

/// The problem document (RFC 9457) for an error. 5xx bodies say nothing internal.
pub fn problem(err: &AppError) -> Response<Body> {
    let detail = err.to_string();
    let (kind, title, detail) = match err {
        AppError::Invalid(_) => (
            "/problems/invalid-request",
            "Invalid request",
            detail.as_str(),
        ),
        AppError::Unauthorized(_) => ("/problems/unauthorized", "Unauthorized", detail.as_str()),
        AppError::Forbidden(_) => ("/problems/forbidden", "Forbidden", detail.as_str()),
        AppError::NotFound(_) => ("/problems/not-found", "Not found", detail.as_str()),
        AppError::Conflict { .. } => ("/problems/conflict", "Conflict", detail.as_str()),
        AppError::OutOfStock(_) => ("/problems/out-of-stock", "Out of stock", detail.as_str()),
        AppError::PriceChanged(_) => ("/problems/price-changed", "Price changed", detail.as_str()),
        AppError::UnknownProducts(_) => (
            "/problems/unknown-product",
            "Unknown product",
            detail.as_str(),
        ),
        AppError::Unprocessable(_) => (
            "/problems/idempotency-key-reused",
            "Idempotency-Key reused",
            detail.as_str(),
        ),
        AppError::PayloadTooLarge(_) => {
            ("/problems/too-large", "Payload too large", detail.as_str())
        }
        AppError::UnsupportedMediaType(_) => (
            "/problems/unsupported-media-type",
            "Unsupported media type",
            detail.as_str(),
        ),
        AppError::Unavailable(_) => (
            "/problems/unavailable",
            "Service unavailable",
            "The store is busy; retry the request shortly.",
        ),
        AppError::Internal(_) => (
            "/problems/internal",
            "Internal error",
            "The request could not be completed; the failure has been logged.",
        ),
    };
    let current_status = match err {
        AppError::Conflict { current_status, .. } => *current_status,
        _ => None,
    };
    let skus = match err {
        AppError::OutOfStock(skus)
        | AppError::PriceChanged(skus)
        | AppError::UnknownProducts(skus) => Some(skus.as_slice()),
        _ => None,
    };
    let body = Problem {
        kind,
        title,
        status: err.status(),
        detail,
        current_status,
        skus,
    };
    let mut response = json_response(
        StatusCode::from_u16(err.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        &body,
    );
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    if matches!(err, AppError::Unauthorized(_)) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    if matches!(err, AppError::Unavailable(_)) {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::response::json_response;

    #[test]
    fn json_goes_out_as_text_so_api_gateway_does_not_base64_it() {
        let response = json_response(StatusCode::OK, &serde_json::json!({"a": 1}));
        assert!(matches!(response.body(), Body::Text(text) if text == r#"{"a":1}"#));
        let problem = problem(&AppError::not_found("no such order"));
        assert!(matches!(problem.body(), Body::Text(_)));
        assert_eq!(
            problem.headers()[header::CONTENT_TYPE],
            "application/problem+json"
        );
    }
}
