//! API Gateway HTTP API events (payload format 2.0) in, and responses out.
//!
//! lambda_http reads an event by trying it as each kind of HTTP event it knows, into structs
//! holding every field (request context, authorizer, identity), then builds and re-parses a URL.
//! Measured with callgrind, that was ~62,000 instructions of the ~71,000 a warm
//! `GET /customers/{id}` spends beyond its DynamoDB request. Here the event is read into what
//! the handlers use, and the request is the same `lambda_http::Request` with the same
//! extensions (path parameters, query string parameters), so handlers cannot tell the
//! difference. A body that claims to be base64 and is not is a 400 rather than lambda_http's
//! panic. The authorizer's claims become the request's [`Caller`] (an extension); a request
//! without one is refused by the handler that asks for it.

use std::collections::HashMap;

use aws_lambda_events::apigw::ApiGatewayV2httpResponse;
use aws_lambda_events::query_map::QueryMap;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use lambda_http::http::header::{COOKIE, SET_COOKIE};
use lambda_http::http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};
use lambda_http::{Body, Request, RequestExt, Response};
use serde::Deserialize;

use crate::AppError;
use crate::domain::access::Caller;
use crate::http::routes::RouteKey;

/// What the handlers use of an HTTP API event; every other field is skipped unread, and any of
/// them but the request context may be absent.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpEvent {
    /// `GET /customers/{customerId}`: the route API Gateway matched, which says who may call.
    route_key: Option<String>,
    raw_path: Option<String>,
    raw_query_string: Option<String>,
    headers: Option<HashMap<String, String>>,
    path_parameters: Option<HashMap<String, String>>,
    cookies: Option<Vec<String>>,
    body: Option<String>,
    is_base64_encoded: Option<bool>,
    request_context: RequestContext,
}

#[derive(Debug, Deserialize)]
struct RequestContext {
    http: HttpContext,
    authorizer: Option<Authorizer>,
}

#[derive(Debug, Deserialize)]
struct Authorizer {
    jwt: Option<Jwt>,
}

/// What a JWT authorizer passes on: the token's claims (API Gateway flattens every value to a
/// string) and its scopes.
#[derive(Debug, Deserialize)]
struct Jwt {
    claims: Option<Claims>,
    scopes: Option<Vec<String>>,
}

/// The claims authorization reads; the others are skipped unread.
#[derive(Debug, Deserialize)]
struct Claims {
    sub: Option<String>,
    /// The OAuth client the token was issued to: `client_id` (Cognito), or `azp` (OIDC).
    client_id: Option<String>,
    azp: Option<String>,
    #[serde(rename = "cognito:groups")]
    groups: Option<Groups>,
    /// Space-separated, as OAuth access tokens carry it.
    scope: Option<String>,
}

/// `cognito:groups` as API Gateway passes it, flattened into one string (`[staff admins]`: one
/// pair of brackets, names separated by single spaces, which Cognito group names cannot hold),
/// or as a JSON array.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Groups {
    Flattened(String),
    List(Vec<String>),
}

impl Groups {
    fn names(&self) -> Vec<&str> {
        match self {
            Groups::Flattened(text) => {
                let inner = text
                    .strip_prefix('[')
                    .and_then(|rest| rest.strip_suffix(']'))
                    .unwrap_or(text);
                inner.split(' ').filter(|g| !g.is_empty()).collect()
            }
            Groups::List(names) => names.iter().map(String::as_str).collect(),
        }
    }
}

/// The machine clients whose `store/admin` scope makes a caller staff: `STAFF_CLIENT_IDS`
/// (comma-separated; the template sets it), read once by the bootstrap and handed to every
/// event's parsing. Empty: none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StaffClients(Vec<String>);

impl StaffClients {
    /// From a comma-separated list of client IDs.
    pub fn parse(list: &str) -> Self {
        Self(
            list.split(',')
                .map(str::trim)
                .filter(|id| !id.is_empty())
                .map(str::to_owned)
                .collect(),
        )
    }

    /// `STAFF_CLIENT_IDS`, unset being none.
    pub fn from_env() -> Self {
        Self::parse(&std::env::var("STAFF_CLIENT_IDS").unwrap_or_default())
    }

    fn contains(&self, client: &str) -> bool {
        self.0.iter().any(|known| known == client)
    }
}

impl Jwt {
    /// The caller, when the token names a subject.
    fn caller(&self, staff_clients: &StaffClients) -> Option<Caller> {
        let claims = self.claims.as_ref()?;
        let subject = claims.sub.as_deref().filter(|s| !s.is_empty())?;
        let groups = claims
            .groups
            .as_ref()
            .map(Groups::names)
            .unwrap_or_default();
        let scopes = self
            .scopes
            .iter()
            .flatten()
            .map(String::as_str)
            .chain(claims.scope.iter().flat_map(|s| s.split_whitespace()));
        let client = claims.client_id.as_deref().or(claims.azp.as_deref());
        let known = client.is_some_and(|client| staff_clients.contains(client));
        Some(Caller::new(subject, groups, scopes, known))
    }
}

#[derive(Debug, Deserialize)]
struct HttpContext {
    method: String,
}

impl HttpEvent {
    /// The request a handler receives; `staff_clients` are the machine clients whose admin
    /// scope makes a caller staff.
    pub fn into_request(self, staff_clients: &StaffClients) -> Result<Request, AppError> {
        let method = Method::from_bytes(self.request_context.http.method.as_bytes())
            .map_err(|_| AppError::invalid("the request method is not valid"))?;
        let path = self.raw_path.unwrap_or_else(|| "/".to_owned());
        let query = self.raw_query_string.unwrap_or_default();
        let target = if query.is_empty() {
            path
        } else {
            format!("{path}?{query}")
        };
        let uri = target
            .parse::<Uri>()
            .or_else(|_| escaped(&target).parse::<Uri>())
            .map_err(|_| AppError::invalid("the request path is not valid"))?;

        let body = match self.body {
            None => Body::Empty,
            Some(text) if self.is_base64_encoded == Some(true) => Body::Binary(
                STANDARD
                    .decode(text.as_bytes())
                    .map_err(|_| AppError::invalid("the request body is not valid base64"))?,
            ),
            Some(text) => Body::Text(text),
        };

        let mut headers = HeaderMap::with_capacity(self.headers.as_ref().map_or(0, HashMap::len));
        for (name, value) in self.headers.into_iter().flatten() {
            // The authorizer has checked the bearer token and passed its claims on; handlers
            // never need the token itself (about a kilobyte from Cognito), and a request that
            // does not carry it cannot leak it into a log.
            if name.eq_ignore_ascii_case("authorization") {
                continue;
            }
            // HTTP API has already joined repeated headers with commas.
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                headers.insert(name, value);
            }
        }
        if let Some(cookies) = self.cookies.filter(|c| !c.is_empty())
            && let Ok(value) = HeaderValue::from_str(&cookies.join("; "))
        {
            headers.insert(COOKIE, value);
        }

        let caller = self
            .request_context
            .authorizer
            .and_then(|a| a.jwt)
            .and_then(|jwt| jwt.caller(staff_clients));

        let mut request = Request::new(body);
        if let Some(caller) = caller {
            request.extensions_mut().insert(caller);
        }
        if let Some(key) = self.route_key {
            request.extensions_mut().insert(RouteKey(key));
        }
        *request.method_mut() = method;
        *request.uri_mut() = uri;
        *request.headers_mut() = headers;
        Ok(request
            .with_path_parameters(QueryMap::from(self.path_parameters.unwrap_or_default()))
            .with_query_string_parameters(query.parse::<QueryMap>().unwrap_or_default()))
    }
}

/// `target` with every byte a URI may not hold percent-encoded. API Gateway sends rawPath
/// encoded already; a hand-written event (a test, `sam local invoke -e`) may not.
fn escaped(target: &str) -> String {
    let mut out = String::with_capacity(target.len() + 8);
    for byte in target.bytes() {
        if byte.is_ascii_graphic() && !b"\"<>\\^`{|}".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Reads an event's JSON text into the request a handler receives (tests, `make dev`, bench).
pub fn request_from_json(text: &str, staff_clients: &StaffClients) -> Result<Request, AppError> {
    serde_json::from_str::<HttpEvent>(text)
        .map_err(|err| AppError::invalid(format!("not an HTTP API event: {err}")))?
        .into_request(staff_clients)
}

/// A handler's response as API Gateway takes it: cookies apart, binary bodies in base64.
pub fn into_gateway_response(response: Response<Body>) -> ApiGatewayV2httpResponse {
    let (parts, body) = response.into_parts();
    let mut headers = parts.headers;
    let cookies = headers
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok().map(str::to_owned))
        .collect();
    headers.remove(SET_COOKIE);
    let (is_base64_encoded, body) = match body {
        Body::Empty => (false, None),
        text @ Body::Text(_) => (false, Some(text)),
        binary => (true, Some(binary)),
    };
    let mut out = ApiGatewayV2httpResponse::default();
    out.status_code = i64::from(parts.status.as_u16());
    out.headers = headers;
    out.body = body;
    out.is_base64_encoded = is_base64_encoded;
    out.cookies = cookies;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The event as a Lambda reads it whose STAFF_CLIENT_IDS is the tests' machine client.
    fn read(text: &str) -> Result<Request, AppError> {
        request_from_json(text, &StaffClients::parse("exampleclientid, other"))
    }

    const EVENT: &str = r#"{
        "version": "2.0",
        "routeKey": "GET /customers/{customerId}/orders",
        "rawPath": "/customers/c1/orders",
        "rawQueryString": "limit=5&from=2026-10-01T00%3A00%3A00Z&tag=a&tag=b",
        "cookies": ["a=1", "b=2"],
        "headers": {"accept": "application/json", "x-forwarded-proto": "https"},
        "queryStringParameters": {"limit": "5", "from": "2026-10-01T00:00:00Z", "tag": "a,b"},
        "pathParameters": {"customerId": "c1"},
        "requestContext": {
            "accountId": "123456789012", "apiId": "abc123", "domainName": "abc123.example",
            "http": {"method": "GET", "path": "/customers/c1/orders", "protocol": "HTTP/1.1",
                     "sourceIp": "203.0.113.7", "userAgent": "curl/8.5.0"},
            "authorizer": {"jwt": {"claims": {"sub": "x"}, "scopes": null}},
            "requestId": "id", "routeKey": "GET /customers/{customerId}/orders",
            "stage": "$default", "time": "08/Oct/2026:14:35:12 +0000", "timeEpoch": 1791470112000
        },
        "isBase64Encoded": false
    }"#;

    #[test]
    fn an_event_reads_as_lambda_http_reads_it() {
        let ours = read(EVENT).expect("reads");
        let theirs = lambda_http::request::from_str(EVENT).expect("reads");
        assert_eq!(ours.method(), theirs.method());
        assert_eq!(ours.uri().path(), theirs.uri().path());
        assert_eq!(ours.uri().query(), theirs.uri().query());
        assert_eq!(ours.headers(), theirs.headers());
        assert_eq!(ours.path_parameters(), theirs.path_parameters());
        assert_eq!(
            ours.query_string_parameters(),
            theirs.query_string_parameters()
        );
        let q = ours.query_string_parameters();
        assert_eq!(q.first("from"), Some("2026-10-01T00:00:00Z"));
        assert_eq!(q.all("tag"), Some(vec!["a", "b"]));
        assert_eq!(ours.headers()[COOKIE], "a=1; b=2");
        assert!(matches!(ours.body(), Body::Empty));
    }

    fn caller_of(authorizer: &str) -> Option<Caller> {
        let event = format!(
            r#"{{"requestContext": {{"http": {{"method": "GET"}}, "authorizer": {authorizer}}}}}"#
        );
        read(&event)
            .expect("reads")
            .extensions()
            .get::<Caller>()
            .cloned()
    }

    #[test]
    fn the_caller_is_read_from_the_jwt_authorizers_claims() {
        let c1 = caller_of(r#"{"jwt": {"claims": {"sub": "c1", "iss": "x", "exp": "1791473712"}, "scopes": null}}"#)
            .expect("caller");
        assert_eq!(c1.subject(), "c1");
        assert!(!c1.is_staff());
        // API Gateway flattens a claim's array into one string; a JSON array reads the same.
        for groups in [
            r#""[staff]""#,
            r#""[admins staff]""#,
            r#"["admins", "staff"]"#,
        ] {
            let claims =
                format!(r#"{{"jwt": {{"claims": {{"sub": "u-1", "cognito:groups": {groups}}}}}}}"#);
            assert!(caller_of(&claims).expect("caller").is_staff(), "{groups}");
        }
        // Names are exact, and only a space separates them: a group named `ops,staff` (which
        // Cognito allows) or `[staff]` is not the staff group.
        for not_staff in [
            r#""[staffers]""#,
            r#""[ops,staff]""#,
            r#""[[staff]]""#,
            r#""[staff,ops]""#,
            r#"["ops,staff"]"#,
        ] {
            let claims = format!(
                r#"{{"jwt": {{"claims": {{"sub": "u-1", "cognito:groups": {not_staff}}}}}}}"#
            );
            assert!(
                !caller_of(&claims).expect("caller").is_staff(),
                "{not_staff}"
            );
        }
        // A known machine client (one of STAFF_CLIENT_IDS, here "exampleclientid"): the scope
        // in `scopes`, or in the token's `scope` claim.
        for machine in [
            r#"{"jwt": {"claims": {"sub": "m", "client_id": "exampleclientid"}, "scopes": ["store/admin"]}}"#,
            r#"{"jwt": {"claims": {"sub": "m", "azp": "exampleclientid", "scope": "store/read store/admin"}}}"#,
        ] {
            assert!(caller_of(machine).expect("caller").is_staff(), "{machine}");
        }
        // The scope from any other client, or none named, is no staff: an external provider
        // may put whatever scope a user asks for into the user's token.
        for user in [
            r#"{"jwt": {"claims": {"sub": "u-1", "client_id": "spa-client"}, "scopes": ["store/admin"]}}"#,
            r#"{"jwt": {"claims": {"sub": "u-1", "azp": "spa-client", "scope": "openid store/admin"}}}"#,
            r#"{"jwt": {"claims": {"sub": "u-1", "scope": "openid store/admin"}}}"#,
        ] {
            assert!(!caller_of(user).expect("caller").is_staff(), "{user}");
        }
        for none in [
            "null",
            r#"{"jwt": null}"#,
            r#"{"jwt": {"claims": {}}}"#,
            r#"{"jwt": {"claims": {"sub": ""}}}"#,
            r#"{"lambda": {"sub": "c1"}}"#,
        ] {
            assert_eq!(caller_of(none), None, "{none}");
        }
    }

    #[test]
    fn the_sample_events_carry_the_callers_api_gateway_would_pass() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../events");
        let expected = [
            ("get-customer.json", "c1", false),
            ("get-order-items.json", "c1", false),
            ("get-order.json", "c1", false),
            ("list-customer-orders.json", "c1", false),
            ("list-orders-by-status.json", "staff-1", true),
            ("place-order.json", "staff-1", true),
            ("put-customer.json", "c7", false),
            ("update-order-status.json", "staff-1", true),
            ("get-product.json", "c1", false),
            ("list-products.json", "c1", false),
            ("put-product.json", "staff-1", true),
            ("adjust-stock.json", "staff-1", true),
            ("get-cart.json", "c1", false),
            ("edit-cart.json", "c1", false),
            ("edit-cart-remove-line.json", "c1", false),
            ("edit-cart-clear.json", "c1", false),
        ];
        for (file, subject, staff) in expected {
            let text = std::fs::read_to_string(dir.join(file)).expect(file);
            let request = read(&text).expect(file);
            let caller = request.extensions().get::<Caller>().expect(file);
            assert_eq!(
                (caller.subject(), caller.is_staff()),
                (subject, staff),
                "{file}"
            );
            assert!(
                request.headers().get("authorization").is_none(),
                "{file}: token dropped"
            );
        }
    }

    #[test]
    fn bodies_arrive_as_text_or_decoded_from_base64() {
        let with = |body: &str, b64: &str| {
            EVENT.replace(
                r#""isBase64Encoded": false"#,
                &format!(r#""body": {body}, "isBase64Encoded": {b64}"#),
            )
        };
        let text = read(&with(r#""{\"a\":1}""#, "false")).expect("reads");
        assert!(matches!(text.body(), Body::Text(t) if t == r#"{"a":1}"#));
        let binary = read(&with(r#""eyJhIjoxfQ==""#, "true")).expect("reads");
        assert!(matches!(binary.body(), Body::Binary(b) if b == br#"{"a":1}"#));
        let bad = read(&with(r#""not base64!""#, "true")).expect_err("refused");
        assert_eq!(bad.status(), 400);
    }

    #[test]
    fn a_minimal_event_reads_and_garbage_is_refused() {
        let minimal = r#"{"requestContext": {"http": {"method": "POST"}}, "headers": null}"#;
        let req = read(minimal).expect("reads");
        assert_eq!(req.method(), Method::POST);
        assert_eq!(req.uri().path(), "/");
        let raw =
            r#"{"rawPath": "/customers/c\n1 é", "requestContext": {"http": {"method": "GET"}}}"#;
        let req = read(raw).expect("reads");
        assert_eq!(req.uri().path(), "/customers/c%0A1%20%C3%A9");
        for bad in [
            "",
            "{}",
            "[]",
            r#"{"requestContext": {"http": {"method": "G T"}}}"#,
        ] {
            assert_eq!(read(bad).expect_err(bad).status(), 400, "{bad}");
        }
    }

    #[test]
    fn responses_carry_cookies_apart_and_binary_bodies_encoded() {
        let mut response = Response::new(Body::Binary(vec![0, 1, 2]));
        response
            .headers_mut()
            .append(SET_COOKIE, HeaderValue::from_static("a=1"));
        response.headers_mut().append(
            HeaderName::from_static("content-type"),
            HeaderValue::from_static("application/octet-stream"),
        );
        let out = into_gateway_response(response);
        assert_eq!(out.status_code, 200);
        assert_eq!(out.cookies, vec!["a=1".to_owned()]);
        assert!(out.headers.get(SET_COOKIE).is_none());
        assert!(out.is_base64_encoded);
        let json = serde_json::to_value(&out).expect("serializes");
        assert_eq!(json["body"], "AAEC");
        let text = into_gateway_response(Response::new(Body::Text("{}".into())));
        assert!(!text.is_base64_encoded);
        assert_eq!(serde_json::to_value(&text).expect("json")["body"], "{}");
    }
}
