//! What the tests share: a fresh engine and store per test, and requests made the way API
//! Gateway makes them.

use std::collections::BTreeMap;

use lambda_http::http::{HeaderMap, Method};
use lambda_http::{Body, Request, Response};
use serde_json::Value;
use shared::Store;

use crate::gateway::{self, Call};
use crate::{Engine, Error, LOCAL_CURSOR_SECRET, LOCAL_TABLE, RequestCounter, seed};

/// One test's own engine, table and store; its client counts requests.
pub struct TestApp {
    pub engine: Engine,
    pub store: Store,
    pub requests: RequestCounter,
}

impl TestApp {
    /// An empty table.
    pub async fn empty() -> Result<Self, Error> {
        let engine = Engine::in_memory().await?;
        let (client, requests) = engine.counting_client();
        let store = Store::new(client, LOCAL_TABLE, LOCAL_CURSOR_SECRET.as_bytes());
        Ok(Self {
            engine,
            store,
            requests,
        })
    }

    /// The sample data of `make dev`, written as the article's boto3 code writes it.
    pub async fn seeded() -> Result<Self, Error> {
        let app = Self::empty().await?;
        seed::seed_if_empty(&app.engine.client(), LOCAL_TABLE).await?;
        Ok(app)
    }
}

/// A GET on `route_key` (`GET /customers/{customerId}`) for `path`, with `query` as raw query
/// string, turned into the handler's request through an API Gateway payload 2.0 event.
pub fn get(route_key: &str, path: &str, query: &str) -> Request {
    let template = route_key.split_once(' ').map_or(route_key, |(_, p)| p);
    let params = path_params(template, path);
    let headers = HeaderMap::new();
    let call = Call {
        method: &Method::GET,
        path,
        raw_query: query,
        headers: &headers,
        body: &[],
    };
    let event = gateway::event(route_key, &call, &params);
    gateway::request(&event).unwrap_or_else(|err| panic!("event for {path}: {err}"))
}

/// The request lambda_http makes of a saved event file's JSON.
pub fn from_event_file(path: &str) -> Result<Request, Error> {
    let text = std::fs::read_to_string(path)?;
    Ok(lambda_http::request::from_str(&text)?)
}

/// `{name}` segments of `template` matched against `path`, as API Gateway does.
pub fn path_params(template: &str, path: &str) -> BTreeMap<String, String> {
    template
        .split('/')
        .zip(path.split('/'))
        .filter_map(|(t, p)| {
            let name = t.strip_prefix('{')?.strip_suffix('}')?;
            Some((name.to_owned(), p.to_owned()))
        })
        .collect()
}

/// Status, content type and JSON body of a response.
pub fn parts(response: Response<Body>) -> (u16, String, Value) {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = match response.body() {
        Body::Text(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        Body::Binary(bytes) => serde_json::from_slice(bytes).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    (status, content_type, body)
}
