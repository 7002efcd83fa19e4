//! DynamoDB's limits, which the embedded engine does not have (it serves every request, one at
//! a time, as fast as it can): each partition's units a second, and transactions that collide
//! on an item. Modelled between the SDK and the engine, at the HTTP layer like [`crate::faults`],
//! so the SDK's own error parsing and retries run, and answered as DynamoDB answers:
//!
//! - A partition (one partition key value, of the table or of an index) takes 1,000 write and
//!   3,000 read units a second (the developer guide's per-partition limits, "Burst and adaptive
//!   capacity"): a token bucket each, holding at most one second of its rate. Units are counted
//!   by the billing rules ([`demand`]). A request whose partitions lack the units is refused
//!   whole: `ProvisionedThroughputExceededException` with the `ThrottlingReasons` DynamoDB
//!   gives (`TableWriteKeyRangeThroughputExceeded`, `IndexWriteKeyRangeThroughputExceeded`, ...);
//!   in a transaction, `TransactionCanceledException` with `ThrottlingError` at the action; a
//!   BatchGetItem answers the keys it can and returns the others as `UnprocessedKeys`.
//! - A transaction holds its items for a service time, and answers once it is over; another
//!   transaction on one of them in that time is cancelled with `TransactionConflict`, and a
//!   write outside a transaction gets `TransactionConflictException`. Reads outside a
//!   transaction are never refused for it.
//!
//! Scaled down by a factor `k`, the rates are divided by `k` and the service time multiplied
//! by it: the same shape, slow enough for one machine to reach the ceiling; a figure measured
//! so is multiplied by `k` to be read at DynamoDB's scale.
//!
//! Not modelled: a partition holding several key values (the model gives every key value its
//! own, which is the most adaptive capacity grants a hot key, so a ceiling here is never lower
//! than DynamoDB's); splits for heat across sort keys; the table's and account's quotas; the
//! engine's own time, which is added to the service time, not counted in it.

mod demand;
mod ledger;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::SharedHttpClient;
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use dynoxide::Database;
use serde_json::{Value, json};

use crate::faults::{cancelled, consistent, error, json_answer, json_body, operation, read_whole};
use crate::{Error, LOCAL_TABLE};
use demand::{Demand, Schema};
use ledger::{Ledger, Verdict, scaled};

/// The limits modelled, at DynamoDB's scale, and the factor they are scaled down by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    /// How many times slower than DynamoDB (1: its own limits).
    pub scale: f64,
    /// A partition's write units a second, at DynamoDB's scale.
    pub write_units: f64,
    /// A partition's read units a second, at DynamoDB's scale.
    pub read_units: f64,
    /// How much of its rate a partition may spend at once.
    pub burst: Duration,
    /// How long a transaction holds its items, at DynamoDB's scale: the time in which another
    /// transaction on one of them is cancelled.
    pub transaction_service: Duration,
}

impl Model {
    /// DynamoDB's own: 1,000 write and 3,000 read units a second a partition, a second's worth
    /// at once, and a transaction holding its items 2 ms (the time its two units take at the
    /// partition's rate: neither limit is the tighter one for a lone item).
    pub const DYNAMODB: Model = Model {
        scale: 1.0,
        write_units: 1000.0,
        read_units: 3000.0,
        burst: Duration::from_secs(1),
        transaction_service: Duration::from_millis(2),
    };

    /// DynamoDB's, `factor` times slower.
    pub fn scaled(factor: f64) -> Model {
        Model {
            scale: factor,
            ..Model::DYNAMODB
        }
    }

    /// This model with another service time per transaction (at DynamoDB's scale).
    pub fn with_transaction_service(self, service: Duration) -> Model {
        Model {
            transaction_service: service,
            ..self
        }
    }

    /// Units a second, as modelled (scaled).
    fn rate(&self, write: bool) -> f64 {
        (if write {
            self.write_units
        } else {
            self.read_units
        }) / self.scale
    }

    /// How long a transaction holds its items, as modelled (scaled).
    fn service_time(&self) -> Duration {
        scaled(self.transaction_service, self.scale)
    }
}

/// What the limits refused so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Refusals {
    /// Requests (or a BatchGetItem's keys) refused for a partition's units.
    pub throttled: u64,
    /// Transactions and writes refused for an item a transaction held.
    pub conflicts: u64,
}

/// The limits of one engine, shared by every client given them.
#[derive(Clone)]
pub struct Limits {
    model: Model,
    schema: Arc<Schema>,
    db: Database,
    table: String,
    ledger: Arc<Mutex<Ledger>>,
}

impl std::fmt::Debug for Limits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limits")
            .field("model", &self.model)
            .field("refusals", &self.refusals())
            .finish_non_exhaustive()
    }
}

impl Limits {
    /// `model`'s limits on `db`'s `AppTable` (its keys and indexes as template.yaml defines
    /// them).
    pub fn new(db: &Database, model: Model) -> Result<Self, Error> {
        let (create, _) = crate::template::table_requests(LOCAL_TABLE)?;
        Ok(Self {
            model,
            schema: Arc::new(Schema::of_create_table(&create)),
            db: db.clone(),
            table: LOCAL_TABLE.to_owned(),
            ledger: Arc::default(),
        })
    }

    pub fn refusals(&self) -> Refusals {
        self.ledger().refusals()
    }

    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `inner` with these limits in front of it.
    pub fn client(&self, inner: SharedHttpClient) -> SharedHttpClient {
        SharedHttpClient::new(LimitedClient {
            inner,
            limits: self.clone(),
        })
    }

    /// The item stored under `key`, in DynamoDB JSON.
    fn lookup(&self, key: &Value) -> Option<Value> {
        let request = json!({"TableName": self.table, "Key": key, "ConsistentRead": true});
        let request = serde_json::from_value(request).ok()?;
        let found = self.db.get_item(request).ok()?;
        serde_json::to_value(found.item?).ok()
    }

    fn demand(&self, operation: &str, body: &Value) -> Demand {
        demand::of(operation, body, &self.schema, &|key| self.lookup(key))
    }

    fn admit(&self, demand: &Demand) -> Verdict {
        self.ledger().admit(
            &self.model,
            Instant::now(),
            &demand.charges,
            &demand.items,
            demand.transaction,
        )
    }

    /// When the transaction `body` sends again (its ClientRequestToken) is done, if it was
    /// admitted before.
    fn sent_again(&self, operation: &str, body: &Value) -> Option<Instant> {
        let token = body["ClientRequestToken"].as_str()?;
        (operation == "TransactWriteItems")
            .then(|| self.ledger().token_done(token, Instant::now()))
            .flatten()
    }

    /// The units a read spent beyond the smallest it was admitted with (a Query's beyond its
    /// first unit, a GetItem's or BatchGetItem's beyond one a key), known once it has answered.
    fn spend_after_read(&self, demand: &Demand, body: &Value, answer: &Value) {
        if demand.reads_items {
            self.spend_after_items(body, answer);
        }
        let Some(partition) = &demand.query else {
            return;
        };
        let sizes: Vec<usize> = answer["Items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(demand::item_size)
            .collect();
        let spent = crate::capacity::rules::query(&sizes, consistent(body));
        let first = crate::capacity::rules::read(0, consistent(body));
        self.ledger()
            .spend(&self.model, partition, spent - first, Instant::now());
    }

    /// The units a GetItem's or BatchGetItem's `answer` spent beyond one read a key, in the
    /// partitions of the items it returned.
    fn spend_after_items(&self, body: &Value, answer: &Value) {
        let now = Instant::now();
        let spent = demand::after_reads(&self.schema, body, answer);
        let mut ledger = self.ledger();
        for (partition, units) in spent {
            ledger.spend(&self.model, &partition, units, now);
        }
    }

    /// The ARN DynamoDB names the throttled table or index by.
    fn resource(&self, index: Option<&str>) -> String {
        let table = format!(
            "arn:aws:dynamodb:us-east-1:000000000000:table/{}",
            self.table
        );
        match index {
            Some(index) => format!("{table}/index/{index}"),
            None => table,
        }
    }
}

#[derive(Debug)]
struct LimitedClient {
    inner: SharedHttpClient,
    limits: Limits,
}

impl HttpClient for LimitedClient {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(LimitedConnector {
            inner: self.inner.http_connector(settings, components),
            limits: self.limits.clone(),
        })
    }
}

#[derive(Debug)]
struct LimitedConnector {
    inner: SharedHttpConnector,
    limits: Limits,
}

impl HttpConnector for LimitedConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let operation = operation(&request);
        let body = json_body(&request);
        if operation == "BatchGetItem" {
            return answers::batch_get(&self.inner, &self.limits, request, &body);
        }
        if let Some(done) = self.limits.sent_again(&operation, &body) {
            // The same transaction again (the SDK's retry after an attempt timed out): DynamoDB
            // answers it from its token, not from the limits, once the first is done. The
            // engine keeps tokens too: it commits the transaction once.
            let inner = self.inner.clone();
            return HttpConnectorFuture::new(async move {
                tokio::time::sleep_until(tokio::time::Instant::from_std(done)).await;
                inner.call(request).await
            });
        }
        let demand = self.limits.demand(&operation, &body);
        match self.limits.admit(&demand) {
            Verdict::Admitted if demand.query.is_some() || demand.reads_items => {
                let (inner, limits) = (self.inner.clone(), self.limits.clone());
                HttpConnectorFuture::new(async move {
                    let (response, answer) = read_whole(inner.call(request).await?).await?;
                    limits.spend_after_read(&demand, &body, &answer);
                    Ok(response)
                })
            }
            // A transaction answers once it is done: not before its items are free again.
            Verdict::Admitted if demand.transaction => {
                let (now, service) = (Instant::now(), self.limits.model.service_time());
                if let Some(token) = body["ClientRequestToken"].as_str() {
                    (self.limits.ledger()).admitted_token(token.to_owned(), now + service, now);
                }
                let done = tokio::time::Instant::from_std(now + service);
                let call = self.inner.call(request);
                HttpConnectorFuture::new(async move {
                    let response = call.await;
                    tokio::time::sleep_until(done).await;
                    response
                })
            }
            Verdict::Admitted => self.inner.call(request),
            refused => {
                let answer = answers::refused(&self.limits, &refused, &demand, &body);
                HttpConnectorFuture::ready(Ok(answer))
            }
        }
    }
}

/// The answers the limits give.
mod answers {
    use super::*;

    /// How DynamoDB refuses the request `demand` describes, as `verdict` says.
    pub(super) fn refused(
        limits: &Limits,
        verdict: &Verdict,
        demand: &Demand,
        body: &Value,
    ) -> HttpResponse {
        let actions = body["TransactItems"].as_array().map_or(1, Vec::len);
        match verdict {
            Verdict::Conflict(at) if demand.transaction => cancelled(
                actions,
                *at,
                "TransactionConflict",
                "Transaction is ongoing for the item",
            ),
            Verdict::Conflict(_) => error(
                400,
                "com.amazonaws.dynamodb.v20120810#TransactionConflictException",
                "Transaction is ongoing for the item",
                json!({}),
            ),
            Verdict::Throttled(charge) if demand.transaction => cancelled(
                actions,
                charge.action,
                "ThrottlingError",
                "Throughput exceeds the current capacity of your table or index.",
            ),
            Verdict::Throttled(charge) => {
                throttled(limits, std::slice::from_ref(&charge.partition))
            }
            // Never asked: an admitted request goes to the engine.
            Verdict::Admitted => error(
                500,
                "com.amazonaws.dynamodb.v20120810#InternalServerError",
                "Internal server error",
                json!({}),
            ),
        }
    }

    /// `ProvisionedThroughputExceededException`, naming each partition's reason.
    pub(super) fn throttled(limits: &Limits, partitions: &[ledger::Partition]) -> HttpResponse {
        let reasons: Vec<Value> = partitions
            .iter()
            .map(|p| json!({"reason": p.reason(), "resource": limits.resource(p.index.as_deref())}))
            .collect();
        error(
            400,
            "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
            "Throughput exceeds the current capacity of your table or index. If exceptions persist, check if you have a hot key.",
            json!({ "ThrottlingReasons": reasons }),
        )
    }

    /// A BatchGetItem, key by key: the keys whose partitions have the units are read, the
    /// others returned as `UnprocessedKeys`; refused whole when none has.
    pub(super) fn batch_get(
        inner: &SharedHttpConnector,
        limits: &Limits,
        mut request: HttpRequest,
        body: &Value,
    ) -> HttpConnectorFuture {
        let mut sent = body.clone();
        let mut unprocessed = serde_json::Map::new();
        let mut refused = Vec::new();
        let tables = body["RequestItems"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut any_admitted = false;
        for (table, wanted) in tables {
            let mut admitted = Vec::new();
            let mut left = Vec::new();
            for key in wanted["Keys"].as_array().into_iter().flatten() {
                let one = json!({"RequestItems": {&table: {"Keys": [key], "ConsistentRead": wanted["ConsistentRead"]}}});
                let demand = limits.demand("BatchGetItem", &one);
                match limits.admit(&demand) {
                    Verdict::Admitted => admitted.push(key.clone()),
                    Verdict::Throttled(charge) => {
                        refused.push(charge.partition);
                        left.push(key.clone());
                    }
                    Verdict::Conflict(_) => admitted.push(key.clone()),
                }
            }
            any_admitted |= !admitted.is_empty();
            if !left.is_empty() {
                let mut rest = wanted.clone();
                rest["Keys"] = json!(left);
                unprocessed.insert(table.clone(), rest);
            }
            if admitted.is_empty() {
                if let Some(items) = sent["RequestItems"].as_object_mut() {
                    items.remove(&table);
                }
            } else {
                sent["RequestItems"][&table]["Keys"] = json!(admitted);
            }
        }
        if !any_admitted && !unprocessed.is_empty() {
            return HttpConnectorFuture::ready(Ok(throttled(limits, &refused)));
        }
        if !unprocessed.is_empty() {
            let text = sent.to_string();
            request
                .headers_mut()
                .insert("content-length", text.len().to_string());
            *request.body_mut() = SdkBody::from(text);
        }
        let call = inner.call(request);
        let limits = limits.clone();
        HttpConnectorFuture::new(async move {
            let (response, mut answer) = read_whole(call.await?).await?;
            if !response.status().is_success() {
                return Ok(response);
            }
            limits.spend_after_items(&sent, &answer);
            if unprocessed.is_empty() {
                return Ok(response);
            }
            let others = answer["UnprocessedKeys"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            let mut all = unprocessed;
            all.extend(others);
            answer["UnprocessedKeys"] = Value::Object(all);
            Ok(json_answer(200, &answer))
        })
    }
}

#[cfg(test)]
mod tests;
