//! Reading a request: path and query parameters, headers and JSON bodies, each refused with a
//! 400-class problem when it is not what the endpoint takes.

use lambda_http::{Body, Request, RequestExt};
use serde::de::DeserializeOwned;

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::IdempotencyKey;
use crate::domain::page::{PageRequest, PlacedWindow};
use crate::domain::time::Timestamp;

/// A JSON number that is a whole number, as JSON Schema's `integer` means one: `3`, `3.0` and
/// `3e0` alike (a client that serialises through a float still means 3); `3.5` is refused, and
/// so is anything outside `T`. For `#[serde(deserialize_with = "whole_number")]`.
pub fn whole_number<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<i64>,
{
    use serde::Deserialize;
    use serde::de::Error;
    // Beyond 2^53 a float no longer says which whole number it is.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    let number = serde_json::Number::deserialize(d)?;
    let whole = match (number.as_i64(), number.as_f64()) {
        (Some(n), _) => Some(n),
        (None, Some(f)) if f.fract() == 0.0 && f.abs() <= EXACT => Some(f as i64),
        _ => None,
    };
    whole
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| D::Error::custom(format!("{number} is not a whole number in range")))
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
/// The `from` (inclusive) and `to` (exclusive) bounds on when an order was placed, as a
/// listing's query string gives them (any offset; `+` may arrive unencoded).
pub fn placed_window(req: &Request) -> Result<PlacedWindow, AppError> {
    let timestamp = |name: &str| {
        query_param(req, name)?
            .map(|raw| {
                Timestamp::parse_query_value(raw)
                    .map_err(|err| AppError::invalid(format!("{name}: {err}")))
            })
            .transpose()
    };
    PlacedWindow::new(timestamp("from")?, timestamp("to")?)
}

/// `limit` and `cursor` from the query string.
pub fn page_request(req: &Request) -> Result<PageRequest, AppError> {
    PageRequest::parse(query_param(req, "limit")?, query_param(req, "cursor")?)
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

/// The request's `Idempotency-Key`, which a route that creates something requires: the key
/// names what it creates, so a retry whose answer was lost finds it instead of making another.
/// A 400 that says `why` when it is missing.
pub fn required_key(req: &Request, why: &str) -> Result<IdempotencyKey, AppError> {
    header_value(req, "idempotency-key")?
        .map(IdempotencyKey::parse)
        .transpose()?
        .ok_or_else(|| AppError::invalid(format!("Idempotency-Key is required: {why}")))
}

/// The body's bytes as they arrived (API Gateway's base64 already decoded), at most
/// `max_bytes` (else a 413).
pub fn raw_body(req: &Request, max_bytes: usize) -> Result<&[u8], AppError> {
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
    Ok(bytes)
}

/// The JSON body as `T`: at most `max_bytes`, JSON by content type if one is given, a JSON
/// object (serde would build a struct from an array too: `[2]` for `{"quantity": 2}`), and
/// nothing `T` does not name (`T` should deny unknown fields).
pub fn json_body<T: DeserializeOwned>(req: &Request, max_bytes: usize) -> Result<T, AppError> {
    let bytes = raw_body(req, max_bytes)?;
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
    // JSON's whitespace is these four; after it, an object starts with its brace.
    let first = bytes
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if first != Some(&b'{') {
        return Err(AppError::invalid("the body must be a JSON object"));
    }
    serde_json::from_slice(bytes).map_err(|err| AppError::invalid(format!("invalid body: {err}")))
}

/// Who is asking, as the authorizer vouched for them; a request without a caller (a route
/// deployed without the authorizer, a hand-made event) is a 401.
pub fn caller(req: &Request) -> Result<&Caller, AppError> {
    req.extensions()
        .get::<Caller>()
        .ok_or_else(|| AppError::Unauthorized("a valid bearer token is required".into()))
}

/// Who is asking on a route any caller may use, the storefront's among them: the caller the
/// authorizer vouched for, or [`ANONYMOUS`](crate::domain::access::ANONYMOUS) where no
/// authorizer runs. Dispatch has already refused a request without a caller on every route that
/// needs one ([`crate::http::routes::authorize`]).
pub fn viewer(req: &Request) -> &Caller {
    req.extensions()
        .get::<Caller>()
        .unwrap_or(&crate::domain::access::ANONYMOUS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Quantity {
        #[allow(dead_code)]
        quantity: u32,
    }

    fn read(body: &str) -> Result<Quantity, AppError> {
        json_body::<Quantity>(&Request::new(Body::Text(body.to_owned())), 1024)
    }

    #[test]
    fn a_body_is_read_only_when_it_is_a_json_object() {
        assert!(read(r#"{"quantity":2}"#).is_ok());
        assert!(read(" \n\t{\"quantity\":2}").is_ok());
        // serde alone builds the struct from a sequence of its fields.
        assert!(serde_json::from_str::<Quantity>("[2]").is_ok());
        for body in ["[2]", " [2]", "2", "\"x\"", "null", "true"] {
            let err = read(body).expect_err(body);
            assert_eq!(err.status(), 400, "{body}");
            assert!(err.to_string().contains("JSON object"), "{body}: {err}");
        }
    }
}
