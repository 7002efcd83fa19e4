//! What each of `make dev`'s API requests asked of DynamoDB: every request its store sent while
//! a [`Calls`] scope was open — the operation, the request as the store wrote it, the keys of
//! the items that came back, and the capacity the engine reported (the journal adds
//! `ReturnConsumedCapacity: INDEXES` to the requests it records, and only to those). Requests
//! outside a scope (the stream consumer's) pass untouched.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use aws_sdk_dynamodb::types::AttributeValue;
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::{
    AfterDeserializationInterceptorContextRef, BeforeTransmitInterceptorContextMut,
};
use aws_smithy_runtime_api::client::orchestrator::Metadata;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::{ConfigBag, Storable, StoreReplace};
use serde_json::{Value, json};
use shared::dynamo::capacity::Capacity;
use shared::dynamo::keys;

tokio::task_local! {
    static CURRENT: Calls;
}

/// One DynamoDB request (one attempt: a retry is a request of its own).
#[derive(Debug, Clone)]
pub struct DynamoCall {
    pub operation: String,
    /// The request body as the store sent it.
    pub request: Value,
    /// `(PK, SK)` of every item the answer held.
    pub read: Vec<(String, String)>,
    /// What the engine reported; `None` when it reported nothing.
    pub capacity: Option<Capacity>,
    /// Whether it wrote (its capacity is then write units).
    pub write: bool,
    /// The error DynamoDB answered with, by its type (`TransactionCanceledException`, ...).
    pub error: Option<String>,
}

impl DynamoCall {
    pub fn to_json(&self) -> Value {
        json!({
            "operation": self.operation,
            "request": self.request,
            "read": self.read.iter().map(|(pk, sk)| json!([pk, sk])).collect::<Vec<_>>(),
            "capacity": self.capacity.as_ref().map(|c| json!(c)),
            "units": if self.write { "write" } else { "read" },
            "error": self.error,
        })
    }
}

/// The requests made inside one scope.
#[derive(Debug, Clone, Default)]
pub struct Calls(Arc<Mutex<Vec<DynamoCall>>>);

impl Calls {
    /// Runs `work` with its DynamoDB requests recorded here.
    pub async fn record<F: Future>(&self, work: F) -> F::Output {
        CURRENT.scope(self.clone(), work).await
    }

    pub fn take(&self) -> Vec<DynamoCall> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn push(&self, call: DynamoCall) -> usize {
        let mut calls = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        calls.push(call);
        calls.len() - 1
    }

    fn update(&self, index: usize, change: impl FnOnce(&mut DynamoCall)) {
        if let Some(call) = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(index)
        {
            change(call);
        }
    }
}

/// Which of the scope's calls an attempt is, kept in the attempt's own configuration.
#[derive(Debug, Clone)]
struct CallIndex(Calls, usize);

impl Storable for CallIndex {
    type Storer = StoreReplace<Self>;
}

/// The interceptor: install it on the client whose requests are to be recorded.
#[derive(Debug, Clone, Copy, Default)]
pub struct Journal;

impl Intercept for Journal {
    fn name(&self) -> &'static str {
        "Journal"
    }

    fn modify_before_signing(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Ok(calls) = CURRENT.try_with(Calls::clone) else {
            return Ok(());
        };
        let operation = cfg
            .load::<Metadata>()
            .map_or("unknown", Metadata::name)
            .to_owned();
        let request = context
            .request()
            .body()
            .bytes()
            .and_then(|bytes| serde_json::from_slice(bytes).ok())
            .unwrap_or(Value::Null);
        let index = calls.push(DynamoCall {
            operation,
            request,
            read: Vec::new(),
            capacity: None,
            write: false,
            error: None,
        });
        cfg.interceptor_state().store_put(CallIndex(calls, index));
        crate::answer::ask_for_capacity(context.request_mut())
    }

    fn read_after_deserialization(
        &self,
        context: &AfterDeserializationInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(CallIndex(calls, index)) = cfg.load::<CallIndex>().cloned() else {
            return Ok(());
        };
        calls.update(index, |call| match context.output_or_error() {
            Ok(output) => {
                if let Some(answered) = crate::answer::Answered::of(output) {
                    call.read = answered.items.into_iter().filter_map(key_of).collect();
                    call.capacity =
                        (!answered.capacity.is_empty()).then(|| Capacity::of(answered.capacity));
                    call.write = answered.write;
                }
            }
            Err(_) => call.error = Some(error_type(context)),
        });
        Ok(())
    }
}

type Item = HashMap<String, AttributeValue>;

fn key_of(item: &Item) -> Option<(String, String)> {
    let text = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
    Some((text(keys::PK)?, text(keys::SK)?))
}

/// The error's type from DynamoDB's answer (`__type`, after its namespace).
fn error_type(context: &AfterDeserializationInterceptorContextRef<'_>) -> String {
    context
        .response()
        .body()
        .bytes()
        .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
        .and_then(|body| body["__type"].as_str().map(str::to_owned))
        .map(|kind| kind.rsplit('#').next().unwrap_or_default().to_owned())
        .unwrap_or_else(|| format!("HTTP {}", context.response().status().as_u16()))
}
