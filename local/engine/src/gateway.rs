//! What API Gateway does between a client and a Lambda: an HTTP request becomes a payload 2.0
//! event (the JSON Lambda receives), which lambda_http turns into the handler's `Request`.

use shared::http::gateway::StaffClients;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use lambda_http::http::{HeaderMap, Method};

/// One request as it reached the local API.
pub struct Call<'a> {
    pub method: &'a Method,
    pub path: &'a str,
    pub raw_query: &'a str,
    pub headers: &'a HeaderMap,
    pub body: &'a [u8],
    /// The verified token's claims, when a JWT authorizer let the request through.
    pub claims: Option<&'a Map<String, Value>>,
}

/// A claim's value as a JWT authorizer passes it on: a string, an array flattened into one
/// (`["a","b"]` becomes `[a b]`), numbers and booleans as their text.
pub fn flattened(claim: &Value) -> Value {
    match claim {
        Value::String(text) => json!(text),
        Value::Array(values) => {
            let items: Vec<String> = values
                .iter()
                .map(|v| match flattened(v) {
                    Value::String(text) => text,
                    other => other.to_string(),
                })
                .collect();
            json!(format!("[{}]", items.join(" ")))
        }
        other => json!(other.to_string()),
    }
}

/// `requestContext.authorizer` for a JWT authorizer that verified a token with `claims`: the
/// claims flattened, and the token's scopes (from its `scope` claim) or null.
pub fn authorizer(claims: &Map<String, Value>) -> Value {
    let flat: Map<String, Value> = claims
        .iter()
        .map(|(name, value)| (name.clone(), flattened(value)))
        .collect();
    let scopes = claims
        .get("scope")
        .and_then(Value::as_str)
        .map(|scope| json!(scope.split_whitespace().collect::<Vec<_>>()))
        .unwrap_or(Value::Null);
    json!({"jwt": {"claims": flat, "scopes": scopes}})
}

static REQUEST_IDS: AtomicU64 = AtomicU64::new(1);

/// The event API Gateway (HTTP API, payload format 2.0) would send for `call` on the route
/// `route_key` (`GET /customers/{customerId}`).
pub fn event(route_key: &str, call: &Call<'_>, path_params: &BTreeMap<String, String>) -> Value {
    let mut headers = Map::new();
    for name in call.headers.keys() {
        let values: Vec<&str> = call
            .headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        headers.insert(name.as_str().to_owned(), json!(values.join(",")));
    }
    // API Gateway joins a repeated query parameter's values with commas.
    let mut query: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, value) in form_urlencoded::parse(call.raw_query.as_bytes()) {
        query
            .entry(name.into_owned())
            .or_default()
            .push(value.into_owned());
    }
    let query: Map<String, Value> = query
        .into_iter()
        .map(|(name, values)| (name, json!(values.join(","))))
        .collect();
    let now = chrono::Utc::now();
    let header = |name: &str| call.headers.get(name).and_then(|v| v.to_str().ok());
    let mut event = json!({
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": call.path,
        "rawQueryString": call.raw_query,
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "local",
            "domainName": header("host").unwrap_or("127.0.0.1"),
            "domainPrefix": "local",
            "http": {
                "method": call.method.as_str(),
                "path": call.path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": header("user-agent").unwrap_or_default(),
            },
            "requestId": format!("local-{}", REQUEST_IDS.fetch_add(1, Ordering::Relaxed)),
            "routeKey": route_key,
            "stage": "$default",
            "time": now.format("%d/%b/%Y:%H:%M:%S %z").to_string(),
            "timeEpoch": now.timestamp_millis(),
        },
        "isBase64Encoded": false,
    });
    if let Some(claims) = call.claims {
        event["requestContext"]["authorizer"] = authorizer(claims);
    }
    if !query.is_empty() {
        event["queryStringParameters"] = Value::Object(query);
    }
    if !path_params.is_empty() {
        event["pathParameters"] = json!(path_params);
    }
    if !call.body.is_empty() {
        match std::str::from_utf8(call.body) {
            Ok(text) => event["body"] = json!(text),
            Err(_) => {
                event["body"] = json!(STANDARD.encode(call.body));
                event["isBase64Encoded"] = json!(true);
            }
        }
    }
    event
}

/// The handler's request for an event, exactly as the Lambda builds it (`shared::http::gateway`),
/// `staff_clients` being its `STAFF_CLIENT_IDS`.
pub fn request(
    event: &Value,
    staff_clients: &StaffClients,
) -> Result<lambda_http::Request, shared::AppError> {
    shared::http::gateway::request_from_json(&event.to_string(), staff_clients)
}
