//! DynamoDB's own faults, which the embedded engine never produces (it serialises every request
//! and never throttles): injected between the SDK and the engine, at the HTTP layer, so the
//! SDK's real error parsing, retry classification, backoff and timeouts all run.
//!
//! A test names an operation (`TransactWriteItems`), the fault and how many matching requests
//! get it; everything else reaches the engine untouched.

use std::collections::VecDeque;
use std::fmt;
use std::future::pending;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_sdk_dynamodb::config::SharedHttpClient;
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;
use serde_json::{Value, json};

/// A fault DynamoDB can answer a request with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `TransactionCanceledException`, the first action's reason `TransactionConflict`: another
    /// transaction held one of the items. Nothing is written.
    TransactionConflict,
    /// 400 `ThrottlingException`. Nothing is written.
    Throttling,
    /// 400 `ProvisionedThroughputExceededException`. Nothing is written.
    ThroughputExceeded,
    /// 500 `InternalServerError`. Nothing is written.
    InternalServerError,
    /// No answer, and the engine never sees the request: the client's attempt timeout ends it.
    TimeoutUnsent,
    /// The engine applies the request but its answer is lost: the client's attempt timeout
    /// ends it, and a retry must not apply it twice.
    TimeoutAfterApplying,
    /// An eventually consistent read that has not yet seen the table's writes: a GetItem,
    /// BatchGetItem or Query without `ConsistentRead` answers as if the table were empty (a
    /// consistent one is answered by the engine and does not count).
    StaleRead,
    /// EventBridge's partial failure of a `PutEvents`: its first entry is not taken, with this
    /// error code (`FailedEntryCount` 1), the others reach the bus and are answered as it
    /// answers them.
    FirstEntryFailed(&'static str),
}

struct Rule {
    operation: String,
    fault: Fault,
    /// Matching requests still to fault (`usize::MAX`: every one).
    remaining: usize,
}

/// The plan of faults, shared by the test and the client it configured.
#[derive(Clone, Default)]
pub struct Faults {
    rules: Arc<Mutex<VecDeque<Rule>>>,
    injected: Arc<Mutex<Vec<(String, Fault)>>>,
    /// Added before every request: a network round trip the loopback engine does not have.
    latency: Arc<Mutex<Duration>>,
}

impl fmt::Debug for Faults {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Faults")
            .field("injected", &self.injected())
            .finish_non_exhaustive()
    }
}

impl Faults {
    /// The next `times` requests of `operation` get `fault` (after any rule already set for it).
    pub fn inject(&self, operation: &str, fault: Fault, times: usize) -> &Self {
        self.lock_rules().push_back(Rule {
            operation: operation.to_owned(),
            fault,
            remaining: times,
        });
        self
    }

    /// Every request of `operation` gets `fault`, until [`Faults::clear`].
    pub fn always(&self, operation: &str, fault: Fault) -> &Self {
        self.inject(operation, fault, usize::MAX)
    }

    /// Every request waits `latency` before it reaches the engine, as over a network (the
    /// benchmark's model of DynamoDB's round trip; requests sent at once wait at once).
    pub fn with_latency(&self, latency: Duration) -> &Self {
        *self
            .latency
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = latency;
        self
    }

    pub fn clear(&self) {
        self.lock_rules().clear();
    }

    /// Every fault given so far, in order, with its operation.
    pub fn injected(&self) -> Vec<(String, Fault)> {
        self.injected
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn lock_rules(&self) -> std::sync::MutexGuard<'_, VecDeque<Rule>> {
        self.rules
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The fault for a request of `operation`, if one is planned and `applies` to this request;
    /// counts it down.
    fn take(&self, operation: &str, applies: impl FnOnce(Fault) -> bool) -> Option<Fault> {
        let mut rules = self.lock_rules();
        let index = rules.iter().position(|r| r.operation == operation)?;
        let rule = &mut rules[index];
        let fault = rule.fault;
        if !applies(fault) {
            return None;
        }
        if rule.remaining != usize::MAX {
            rule.remaining -= 1;
            if rule.remaining == 0 {
                rules.remove(index);
            }
        }
        drop(rules);
        self.injected
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((operation.to_owned(), fault));
        Some(fault)
    }

    /// `inner` with these faults in front of it.
    pub fn client(&self, inner: SharedHttpClient) -> SharedHttpClient {
        SharedHttpClient::new(FaultyClient {
            inner,
            faults: self.clone(),
        })
    }
}

#[derive(Debug)]
struct FaultyClient {
    inner: SharedHttpClient,
    faults: Faults,
}

impl HttpClient for FaultyClient {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(FaultyConnector {
            inner: self.inner.http_connector(settings, components),
            faults: self.faults.clone(),
        })
    }
}

#[derive(Debug)]
struct FaultyConnector {
    inner: SharedHttpConnector,
    faults: Faults,
}

/// `DynamoDB_20120810.PutItem` → `PutItem` (the JSON protocols name it in a header); SES v2's
/// REST `POST /v2/email/outbound-emails` → `SendEmail`.
pub(crate) fn operation(request: &HttpRequest) -> String {
    if let Some(target) = request.headers().get("x-amz-target") {
        return target.rsplit('.').next().unwrap_or_default().to_owned();
    }
    if request.uri().ends_with("/v2/email/outbound-emails") {
        return "SendEmail".to_owned();
    }
    String::new()
}

/// The JSON a request sends (null when there is none in memory).
pub(crate) fn json_body(request: &HttpRequest) -> Value {
    request
        .body()
        .bytes()
        .and_then(|body| serde_json::from_slice(body).ok())
        .unwrap_or_default()
}

/// A read asks for strongly consistent results (a BatchGetItem: from every table).
pub(crate) fn consistent(body: &Value) -> bool {
    body["ConsistentRead"] == json!(true)
        || body["RequestItems"]
            .as_object()
            .is_some_and(|tables| tables.values().all(|t| t["ConsistentRead"] == json!(true)))
}

/// The answer of a read that has seen nothing of the table yet.
fn nothing_seen(operation: &str, body: &Value) -> HttpResponse {
    let empty = match operation {
        "BatchGetItem" => {
            let responses: serde_json::Map<String, Value> = body["RequestItems"]
                .as_object()
                .into_iter()
                .flat_map(|tables| tables.keys())
                .map(|table| (table.clone(), json!([])))
                .collect();
            json!({"Responses": responses, "UnprocessedKeys": {}})
        }
        "Query" => json!({"Items": [], "Count": 0, "ScannedCount": 0}),
        _ => json!({}),
    };
    json_answer(200, &empty)
}

/// An answer of DynamoDB's JSON protocol.
pub(crate) fn json_answer(status: u16, body: &Value) -> HttpResponse {
    let mut response = HttpResponse::new(
        StatusCode::try_from(status).unwrap_or(StatusCode::try_from(500).expect("500")),
        SdkBody::from(body.to_string()),
    );
    response
        .headers_mut()
        .insert("content-type", "application/x-amz-json-1.0");
    response
}

/// DynamoDB's JSON error answer.
pub(crate) fn error(status: u16, kind: &str, message: &str, extra: Value) -> HttpResponse {
    let mut body = json!({"__type": kind, "message": message});
    if let (Value::Object(body), Value::Object(extra)) = (&mut body, extra) {
        body.extend(extra);
    }
    let mut response = json_answer(status, &body);
    response.headers_mut().insert(
        "x-amzn-requestid",
        "INJECTEDFAULT0000000000000000000000000000000000",
    );
    response
}

fn transaction_conflict(request: &HttpRequest) -> HttpResponse {
    let actions = json_body(request)["TransactItems"]
        .as_array()
        .map_or(1, Vec::len);
    cancelled(
        actions,
        0,
        "TransactionConflict",
        "Transaction is ongoing for the item",
    )
}

/// `TransactionCanceledException` for a transaction of `actions` actions: the one at `at`
/// cancelled with `code` and `message`, the others `None`, and the message listing every
/// action's code as DynamoDB's does.
pub(crate) fn cancelled(actions: usize, at: usize, code: &str, message: &str) -> HttpResponse {
    let codes: Vec<&str> = (0..actions)
        .map(|i| if i == at { code } else { "None" })
        .collect();
    let reasons: Vec<Value> = codes
        .iter()
        .map(|code| match *code {
            "None" => json!({"Code": "None"}),
            code => json!({"Code": code, "Message": message}),
        })
        .collect();
    error(
        400,
        "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
        &format!(
            "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
            codes.join(", ")
        ),
        json!({ "CancellationReasons": reasons }),
    )
}

/// `response` read whole: itself again, and its JSON (null when it is not JSON).
pub(crate) async fn read_whole(
    response: HttpResponse,
) -> Result<(HttpResponse, Value), ConnectorError> {
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = aws_smithy_types::byte_stream::ByteStream::new(response.into_body())
        .collect()
        .await
        .map_err(|err| ConnectorError::other(err.into(), None))?
        .into_bytes();
    let answer = serde_json::from_slice(&bytes).unwrap_or_default();
    let mut again = HttpResponse::new(status, SdkBody::from(bytes));
    *again.headers_mut() = headers;
    Ok((again, answer))
}

impl HttpConnector for FaultyConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let latency = *self
            .faults
            .latency
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let operation = operation(&request);
        // A strongly consistent read is never stale.
        let applies = |fault| fault != Fault::StaleRead || !consistent(&json_body(&request));
        let Some(fault) = self.faults.take(&operation, applies) else {
            if latency.is_zero() {
                return self.inner.call(request);
            }
            let inner = self.inner.clone();
            return HttpConnectorFuture::new(async move {
                tokio::time::sleep(latency).await;
                inner.call(request).await
            });
        };
        let answer = |response: HttpResponse| HttpConnectorFuture::ready(Ok(response));
        match fault {
            Fault::TransactionConflict => answer(transaction_conflict(&request)),
            Fault::Throttling => answer(error(
                400,
                "com.amazon.coral.availability#ThrottlingException",
                "Rate of requests exceeds the allowed throughput.",
                json!({}),
            )),
            Fault::ThroughputExceeded => answer(error(
                400,
                "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                "The level of configured provisioned throughput for the table was exceeded.",
                json!({}),
            )),
            Fault::InternalServerError => answer(error(
                500,
                "com.amazonaws.dynamodb.v20120810#InternalServerError",
                "Internal server error",
                json!({}),
            )),
            Fault::TimeoutUnsent => HttpConnectorFuture::new(pending()),
            Fault::TimeoutAfterApplying => {
                let sent = self.inner.call(request);
                HttpConnectorFuture::new(async move {
                    let _applied = sent.await;
                    pending().await
                })
            }
            Fault::StaleRead => answer(nothing_seen(&operation, &json_body(&request))),
            Fault::FirstEntryFailed(code) => first_entry_failed(&self.inner, request, code),
        }
    }
}

/// `request` (a `PutEvents`) sent on without its first entry; the answer, with that entry
/// failed with `code` in first place.
fn first_entry_failed(
    inner: &SharedHttpConnector,
    mut request: HttpRequest,
    code: &'static str,
) -> HttpConnectorFuture {
    let mut body = json_body(&request);
    if let Some(entries) = body["Entries"].as_array_mut()
        && !entries.is_empty()
    {
        entries.remove(0);
    }
    let sent = body.to_string();
    request
        .headers_mut()
        .insert("content-length", sent.len().to_string());
    *request.body_mut() = SdkBody::from(sent);
    let rest_empty = body["Entries"].as_array().is_none_or(Vec::is_empty);
    let call = (!rest_empty).then(|| inner.call(request));
    HttpConnectorFuture::new(async move {
        let mut answer = json!({"FailedEntryCount": 0, "Entries": []});
        if let Some(call) = call {
            let (_, sent) = read_whole(call.await?).await?;
            if !sent.is_null() {
                answer = sent;
            }
        }
        let failed =
            json!({"ErrorCode": code, "ErrorMessage": "injected: the entry was not taken"});
        if let Some(entries) = answer["Entries"].as_array_mut() {
            entries.insert(0, failed);
        }
        let count = answer["FailedEntryCount"].as_i64().unwrap_or(0) + 1;
        answer["FailedEntryCount"] = json!(count);
        Ok(json_answer(200, &answer))
    })
}
