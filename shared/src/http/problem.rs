//! The one place where an [`AppError`] becomes an HTTP status and an
//! `application/problem+json` body (RFC 9457), and where it is logged: `classify` is the
//! table.

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

/// Where every problem type lives: a problem's `type` is this and its slug (`classify`).
const PROBLEM_TYPES: &str = "/problems/";

/// The problem type (RFC 9457 `type`) of a slug from `classify`.
fn problem_type(slug: &str) -> String {
    format!("{PROBLEM_TYPES}{slug}")
}

/// The one table of what each error is on the wire: status, problem type's slug, title.
fn classify(err: &AppError) -> (StatusCode, &'static str, &'static str) {
    use StatusCode as S;
    match err {
        AppError::Invalid(_) => (S::BAD_REQUEST, "invalid-request", "Invalid request"),
        AppError::Unauthorized(_) => (S::UNAUTHORIZED, "unauthorized", "Unauthorized"),
        AppError::Forbidden(_) => (S::FORBIDDEN, "forbidden", "Forbidden"),
        AppError::NotFound(_) => (S::NOT_FOUND, "not-found", "Not found"),
        AppError::StatusConflict { .. } => (S::CONFLICT, "status-conflict", "Status conflict"),
        AppError::ConcurrentChange(_) => (S::CONFLICT, "concurrent-change", "Concurrent change"),
        AppError::TooManyOpenOrders(_) => {
            (S::CONFLICT, "too-many-open-orders", "Too many open orders")
        }
        AppError::TooMuchHeld { .. } => (S::CONFLICT, "too-much-held", "Too much held"),
        AppError::OutOfStock(_) => (S::CONFLICT, "out-of-stock", "Out of stock"),
        AppError::PriceChanged(_) => (S::CONFLICT, "price-changed", "Price changed"),
        AppError::UnknownProducts(_) => (
            S::UNPROCESSABLE_ENTITY,
            "unknown-product",
            "Unknown product",
        ),
        AppError::NotForSale(_) => (S::CONFLICT, "not-for-sale", "Not for sale"),
        AppError::SkuTaken(_) => (S::CONFLICT, "sku-taken", "SKU taken"),
        AppError::CodeTaken(_) => (S::CONFLICT, "code-taken", "Code taken"),
        AppError::UnknownCode(_) => (S::UNPROCESSABLE_ENTITY, "unknown-code", "Unknown code"),
        AppError::QuoteChanged { .. } => (S::CONFLICT, "quote-changed", "Quote changed"),
        AppError::CodeUsedUp(_) => (S::CONFLICT, "code-used-up", "Code used up"),
        AppError::CartFull(_) => (S::CONFLICT, "cart-full", "Cart full"),
        AppError::CartEmpty => (S::CONFLICT, "cart-empty", "Cart empty"),
        AppError::RefundRefused(_) => (S::CONFLICT, "refund-refused", "Refund refused"),
        AppError::LinesRefused(_) => (S::CONFLICT, "lines-refused", "Lines refused"),
        AppError::MoveRefused(_) => (S::CONFLICT, "move-refused", "Move refused"),
        AppError::CapReached(_) => (S::CONFLICT, "cap-reached", "Cap reached"),
        AppError::TotalTooLarge { .. } => (
            S::UNPROCESSABLE_ENTITY,
            "total-too-large",
            "Total too large",
        ),
        AppError::IdempotencyKeyReused => (
            S::UNPROCESSABLE_ENTITY,
            "idempotency-key-reused",
            "Idempotency-Key reused",
        ),
        AppError::PayloadTooLarge(_) => (S::PAYLOAD_TOO_LARGE, "too-large", "Payload too large"),
        AppError::UnsupportedMediaType(_) => (
            S::UNSUPPORTED_MEDIA_TYPE,
            "unsupported-media-type",
            "Unsupported media type",
        ),
        AppError::Unavailable(_) => (S::SERVICE_UNAVAILABLE, "unavailable", "Service unavailable"),
        AppError::Internal(_) => (S::INTERNAL_SERVER_ERROR, "internal", "Internal error"),
    }
}

impl AppError {
    /// The HTTP status this error is answered with.
    pub fn status(&self) -> u16 {
        classify(self).0.as_u16()
    }
}

/// What a client reads in `detail`: the error's own words, except for 5xx, which say nothing
/// internal.
fn public_detail(err: &AppError) -> String {
    match err {
        AppError::Unavailable(_) => "The store is busy; retry the request shortly.".to_owned(),
        AppError::Internal(_) => {
            "The request could not be completed; the failure has been logged.".to_owned()
        }
        _ => err.to_string(),
    }
}

/// The problem document (RFC 9457) for an error.
pub fn problem(err: &AppError) -> Response<Body> {
    let (status, slug, title) = classify(err);
    let kind = problem_type(slug);
    let detail = public_detail(err);
    let current_status = match err {
        AppError::StatusConflict { current, .. } => Some(*current),
        _ => None,
    };
    let skus = match err {
        AppError::OutOfStock(skus)
        | AppError::PriceChanged(skus)
        | AppError::UnknownProducts(skus)
        | AppError::NotForSale(skus)
        | AppError::SkuTaken(skus)
        | AppError::TooMuchHeld { skus, .. } => Some(skus.as_slice()),
        _ => None,
    };
    let body = Problem {
        kind: &kind,
        title,
        status: status.as_u16(),
        detail: &detail,
        current_status,
        skus,
    };
    let mut response = json_response(status, &body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    if matches!(err, AppError::Unauthorized(_)) {
        headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    if matches!(err, AppError::Unavailable(_)) {
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

/// One error of each variant, for the tests that hold the variants to their documentation (this
/// table's, the OpenAPI contract's): the exhaustive `match` fails to compile when a variant is
/// added without a line here.
pub fn one_of_each_kind() -> Vec<AppError> {
    let sku = || Sku::parse("sku-1").map(|sku| vec![sku]).unwrap_or_default();
    let all = vec![
        AppError::invalid("x"),
        AppError::Unauthorized("x".into()),
        AppError::Forbidden("x".into()),
        AppError::not_found("x"),
        AppError::StatusConflict {
            current: OrderStatus::Shipped,
            next: OrderStatus::Cancelled,
        },
        AppError::concurrent_change("x"),
        AppError::TooManyOpenOrders(10),
        AppError::TooMuchHeld {
            skus: sku(),
            max: 100,
        },
        AppError::OutOfStock(sku()),
        AppError::PriceChanged(sku()),
        AppError::UnknownProducts(sku()),
        AppError::NotForSale(sku()),
        AppError::SkuTaken(sku()),
        AppError::CodeTaken("SAVE10".into()),
        AppError::UnknownCode("SAVE10".into()),
        AppError::CodeUsedUp("SAVE10".into()),
        AppError::QuoteChanged {
            expected: crate::domain::money::Money::default(),
            now: crate::domain::money::Money::default(),
        },
        AppError::CartFull(32),
        AppError::CartEmpty,
        AppError::RefundRefused("x".into()),
        AppError::LinesRefused("x".into()),
        AppError::MoveRefused("x".into()),
        AppError::CapReached("x".into()),
        AppError::TotalTooLarge {
            total: crate::domain::money::Money::default(),
            max: crate::domain::money::Money::default(),
        },
        AppError::IdempotencyKeyReused,
        AppError::PayloadTooLarge("x".into()),
        AppError::UnsupportedMediaType("x".into()),
        AppError::unavailable("x"),
        AppError::internal("x"),
    ];
    for err in &all {
        match err {
            AppError::Invalid(_)
            | AppError::Unauthorized(_)
            | AppError::Forbidden(_)
            | AppError::NotFound(_)
            | AppError::StatusConflict { .. }
            | AppError::ConcurrentChange(_)
            | AppError::TooManyOpenOrders(_)
            | AppError::TooMuchHeld { .. }
            | AppError::OutOfStock(_)
            | AppError::PriceChanged(_)
            | AppError::UnknownProducts(_)
            | AppError::NotForSale(_)
            | AppError::SkuTaken(_)
            | AppError::CodeTaken(_)
            | AppError::UnknownCode(_)
            | AppError::QuoteChanged { .. }
            | AppError::CodeUsedUp(_)
            | AppError::CartFull(_)
            | AppError::CartEmpty
            | AppError::RefundRefused(_)
            | AppError::LinesRefused(_)
            | AppError::MoveRefused(_)
            | AppError::CapReached(_)
            | AppError::TotalTooLarge { .. }
            | AppError::IdempotencyKeyReused
            | AppError::PayloadTooLarge(_)
            | AppError::UnsupportedMediaType(_)
            | AppError::Unavailable(_)
            | AppError::Internal(_) => {}
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::response::json_response;

    /// docs/errors-and-faults.md's table, `(status, type, variant)` per row.
    fn documented() -> Vec<(u16, String, String)> {
        include_str!("../../../docs/errors-and-faults.md")
            .lines()
            .skip_while(|line| !line.starts_with("| status | problem type | variant |"))
            .skip(2)
            .take_while(|line| line.starts_with('|'))
            .map(|row| {
                let cells: Vec<String> =
                    row.split('|').map(|c| c.trim().replace('`', "")).collect();
                (
                    cells[1].parse().expect("status"),
                    cells[2].clone(),
                    cells[3].clone(),
                )
            })
            .collect()
    }

    #[test]
    fn each_problem_type_is_one_variant_and_the_docs_table_says_which() {
        let mut table: Vec<(u16, String, String)> = one_of_each_kind()
            .iter()
            .map(|err| {
                let (status, slug, _) = classify(err);
                let variant = format!("{err:?}");
                let variant = variant
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                (status.as_u16(), problem_type(slug), variant)
            })
            .collect();
        let mut kinds: Vec<&String> = table.iter().map(|(_, kind, _)| kind).collect();
        kinds.sort();
        kinds.dedup();
        assert_eq!(
            kinds.len(),
            table.len(),
            "two variants share a problem type"
        );
        let mut docs = documented();
        table.sort();
        docs.sort();
        assert_eq!(docs, table, "docs/errors-and-faults.md");
    }

    #[test]
    fn json_goes_out_as_text_so_api_gateway_does_not_base64_it() {
        let response = json_response(StatusCode::OK, &serde_json::json!({"a": 1}));
        assert!(matches!(response.body(), Body::Text(text) if text == r#"{"a":1}"#));
        let problem = problem(&AppError::not_found("no such order"));
        assert_eq!(problem.status(), StatusCode::NOT_FOUND);
        assert!(matches!(problem.body(), Body::Text(_)));
        assert_eq!(
            problem.headers()[header::CONTENT_TYPE],
            "application/problem+json"
        );
    }
}
