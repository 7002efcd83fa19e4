//! The HTTP edge shared by every function: request parameters, JSON responses, and the one
//! place where an [`AppError`] becomes a status and an `application/problem+json` body.

use std::future::Future;

use lambda_http::http::{HeaderValue, StatusCode, header};
use lambda_http::{Body, Request, RequestExt, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::ids::OrderStatus;
use crate::repo::PageRequest;
use crate::{AppError, Store};

pub type HttpResult = Result<Response<Body>, AppError>;

/// Runs a handler and turns its error, if any, into a problem response.
pub async fn dispatch<'a, F, Fut>(store: &'a Store, req: Request, handler: F) -> Response<Body>
where
    F: FnOnce(&'a Store, Request) -> Fut,
    Fut: Future<Output = HttpResult> + 'a,
{
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    match handler(store, req).await {
        Ok(response) => response,
        Err(err) => {
            log_error(&err, method.as_str(), &path);
            problem(&err)
        }
    }
}

fn log_error(err: &AppError, method: &str, path: &str) {
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
        AppError::NotFound(_) => ("/problems/not-found", "Not found", detail.as_str()),
        AppError::Conflict { .. } => ("/problems/conflict", "Conflict", detail.as_str()),
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
        AppError::Throttled(_) => (
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
    let body = Problem {
        kind,
        title,
        status: err.status(),
        detail,
        current_status,
    };
    let mut response = json_response(
        StatusCode::from_u16(err.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        &body,
    );
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    if matches!(err, AppError::Throttled(_)) {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

/// A JSON response, as text: a binary body would reach API Gateway base64-encoded. Serializing
/// our own response types cannot fail; if it ever did, the client gets an empty 500 rather
/// than a panic.
pub fn json_response<T: Serialize>(status: StatusCode, body: &T) -> Response<Body> {
    // Sized for a page of orders, so the buffer is not regrown as it fills.
    let mut buffer = Vec::with_capacity(2048);
    let text = serde_json::to_writer(&mut buffer, body)
        .map_err(|err| err.to_string())
        .and_then(|()| String::from_utf8(buffer).map_err(|err| err.to_string()));
    let (status, body) = match text {
        Ok(text) => (status, Body::Text(text)),
        Err(err) => {
            tracing::error!(error = %err, "response did not serialize");
            (StatusCode::INTERNAL_SERVER_ERROR, Body::Empty)
        }
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A path parameter, parsed by the ID's own validation.
pub fn path_param<T>(
    req: &Request,
    name: &str,
    parse: impl FnOnce(&str) -> Result<T, AppError>,
) -> Result<T, AppError> {
    let raw = req
        .path_parameters_ref()
        .and_then(|params| params.first(name))
        .ok_or_else(|| AppError::invalid(format!("{name} is required in the path")))?;
    parse(raw)
}

/// A query string parameter, if given. A parameter given twice is refused rather than guessed.
pub fn query_param<'r>(req: &'r Request, name: &str) -> Result<Option<&'r str>, AppError> {
    let Some(params) = req.query_string_parameters_ref() else {
        return Ok(None);
    };
    match params.all(name).as_deref() {
        None | Some([]) => Ok(None),
        Some([one]) => Ok(Some(one)),
        Some(_) => Err(AppError::invalid(format!("{name} may be given only once"))),
    }
}

/// `limit` and `cursor` from the query string.
pub fn page_request(req: &Request) -> Result<PageRequest, AppError> {
    PageRequest::parse(query_param(req, "limit")?, query_param(req, "cursor")?)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListBody<T> {
    items: Vec<T>,
    next_cursor: Option<String>,
}

/// The body every listing returns: `{items, nextCursor}`.
pub fn list_response<T: Serialize>(items: Vec<T>, next_cursor: Option<String>) -> Response<Body> {
    json_response(StatusCode::OK, &ListBody { items, next_cursor })
}

/// A request header, if given and readable.
pub fn header_value<'r>(req: &'r Request, name: &str) -> Result<Option<&'r str>, AppError> {
    req.headers()
        .get(name)
        .map(|value| {
            value
                .to_str()
                .map_err(|_| AppError::invalid(format!("{name} must be visible ASCII")))
        })
        .transpose()
}

/// The JSON body as `T`: at most `max_bytes`, JSON by content type if one is given, and
/// nothing `T` does not name (`T` should deny unknown fields).
pub fn json_body<T: DeserializeOwned>(req: &Request, max_bytes: usize) -> Result<T, AppError> {
    let bytes: &[u8] = match req.body() {
        Body::Empty => &[],
        Body::Text(text) => text.as_bytes(),
        Body::Binary(bytes) => bytes,
        _ => &[],
    };
    if bytes.len() > max_bytes {
        return Err(AppError::PayloadTooLarge(format!(
            "the body may be at most {max_bytes} bytes"
        )));
    }
    if let Some(content_type) = header_value(req, "content-type")? {
        let essence = content_type.split(';').next().unwrap_or_default().trim();
        let json = essence.eq_ignore_ascii_case("application/json")
            || essence.to_ascii_lowercase().ends_with("+json");
        if !json {
            return Err(AppError::UnsupportedMediaType(
                "the body must be application/json".into(),
            ));
        }
    }
    if bytes.is_empty() {
        return Err(AppError::invalid("a JSON body is required"));
    }
    serde_json::from_slice(bytes).map_err(|err| AppError::invalid(format!("invalid body: {err}")))
}

/// A JSON response with a `Location` header, for what a request created.
pub fn created<T: Serialize>(location: &str, body: &T) -> Response<Body> {
    let mut response = json_response(StatusCode::CREATED, body);
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

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
