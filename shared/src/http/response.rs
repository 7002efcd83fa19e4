//! JSON responses: bodies as text with their content type, listings as `{items, nextCursor}`.

use lambda_http::http::{HeaderValue, StatusCode, header};
use lambda_http::{Body, Response};
use serde::Serialize;

use crate::AppError;
use crate::domain::idempotency::IdempotencyRecord;
use crate::http::HttpResult;

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

/// A JSON response with a `Location` header, for what a request created.
pub fn created<T: Serialize>(location: &str, body: &T) -> Response<Body> {
    let mut response = json_response(StatusCode::CREATED, body);
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// The 201 the first request with an Idempotency-Key got, again, byte for byte, with
/// `Idempotent-Replayed: true` and the `Location` of the order it made; a 422 when this request
/// is not the first one (`fingerprint` differs).
pub fn replayed(record: &IdempotencyRecord, fingerprint: &str) -> HttpResult {
    if record.fingerprint != fingerprint {
        return Err(AppError::IdempotencyKeyReused);
    }
    let mut response = Response::new(Body::Text(record.response.clone()));
    *response.status_mut() = StatusCode::CREATED;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(marked_replayed(response, record))
}

/// A replay's 201 whose body is `body`, what the first request made as it is now (a checkout's
/// order, paid since or not), with `Idempotent-Replayed: true` and the order's `Location`.
pub fn replayed_as_now<T: Serialize>(record: &IdempotencyRecord, body: &T) -> Response<Body> {
    marked_replayed(json_response(StatusCode::CREATED, body), record)
}

fn marked_replayed(mut response: Response<Body>, record: &IdempotencyRecord) -> Response<Body> {
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&format!("/orders/{}", record.order_id)) {
        headers.insert(header::LOCATION, value);
    }
    headers.insert("idempotent-replayed", HeaderValue::from_static("true"));
    response
}
