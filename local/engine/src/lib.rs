//! The local stack's engine, for `make dev` and the tests: an embedded DynamoDB-compatible
//! engine (dynoxide) behind its HTTP API, the table created from template.yaml's own
//! definition, the sample data, and an SDK client that can count its requests.

mod answer;
pub mod bus;
pub mod capacity;
pub mod contract;
pub mod counter;
pub mod declared;
pub mod faults;
pub mod files;
pub mod gateway;
pub mod heard;
pub mod journal;
pub mod limits;
pub mod plain_http;
pub mod provider;
pub mod relay;
pub mod runtime_api;
pub mod seed;
pub mod stand_in;
pub mod streams;
pub mod template;
pub mod testing;
pub mod upkeep;

use std::collections::HashMap;
use std::net::SocketAddr;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::types::AttributeValue;
use dynoxide::Database;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use counter::RequestCounter;
pub use dynoxide;

pub use shared::domain::error::BoxError as Error;

/// The table's name locally, as in the source design.
pub const LOCAL_TABLE: &str = "AppTable";

/// A running engine: the database and the DynamoDB HTTP API in front of it.
pub struct Engine {
    db: Database,
    endpoint: String,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<Result<(), String>>>,
}

impl Engine {
    /// Serves `db` on `addr` (port 0 picks a free one).
    pub async fn start(db: Database, addr: SocketAddr) -> Result<Self, Error> {
        let listener = TcpListener::bind(addr).await?;
        let endpoint = format!("http://{}", listener.local_addr()?);
        let (tx, rx) = oneshot::channel::<()>();
        let server = tokio::spawn(dynoxide::server::serve_with_shutdown(
            listener,
            db.clone(),
            async move {
                let _ = rx.await;
            },
        ));
        Ok(Self {
            db,
            endpoint,
            shutdown: Some(tx),
            server: Some(server),
        })
    }

    /// A fresh in-memory engine on a free loopback port, with the table created: what every
    /// test starts from, so tests never share state.
    pub async fn in_memory() -> Result<Self, Error> {
        let engine =
            Self::start(Database::memory()?, SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        template::create_table(&engine.db, LOCAL_TABLE)?;
        Ok(engine)
    }

    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    /// A client of this engine.
    pub fn client(&self) -> Client {
        client(&self.endpoint, None)
    }

    /// make dev's client: [`WithoutRequestTokens`], and its requests recorded in the
    /// explorer's [`journal`] when made inside a scope.
    pub fn dev_client(&self) -> Client {
        self.dev_client_with(None)
    }

    /// [`Engine::dev_client`], with DynamoDB's `limits` between it and the engine when given
    /// (`DYNAMODB_LIMITS` in make dev).
    pub fn dev_client_with(&self, limits: Option<&limits::Limits>) -> Client {
        let mut config = config(&self.endpoint)
            .interceptor(WithoutRequestTokens)
            .interceptor(journal::Journal);
        if let Some(limits) = limits {
            config = config.http_client(limits.client(shared::dynamo::client::http_client()));
        }
        Client::from_conf(config.build())
    }

    /// A client of this engine that counts every request it sends.
    pub fn counting_client(&self) -> (Client, RequestCounter) {
        let counter = RequestCounter::default();
        (client(&self.endpoint, Some(counter.clone())), counter)
    }

    /// A client of this engine that runs `interceptor` on its requests (tests that act between
    /// a handler's requests).
    pub fn intercepted_client(
        &self,
        interceptor: impl aws_smithy_runtime_api::client::interceptors::Intercept + 'static,
    ) -> Client {
        let config = config(&self.endpoint).interceptor(interceptor);
        Client::from_conf(config.build())
    }

    /// [`Engine::intercepted_client`], also counting its requests.
    pub fn counting_intercepted_client(
        &self,
        interceptor: impl aws_smithy_runtime_api::client::interceptors::Intercept + 'static,
    ) -> (Client, RequestCounter) {
        let counter = RequestCounter::default();
        let config = config(&self.endpoint)
            .interceptor(counter.clone())
            .interceptor(interceptor);
        (Client::from_conf(config.build()), counter)
    }

    /// A client of this engine with `faults` between it and the engine (see [`faults`]), and
    /// its request counter.
    pub fn faulty_client(&self, faults: &faults::Faults) -> (Client, RequestCounter) {
        let counter = RequestCounter::default();
        let config = config(&self.endpoint)
            .http_client(faults.client(shared::dynamo::client::http_client()))
            .interceptor(counter.clone());
        (Client::from_conf(config.build()), counter)
    }

    /// A client of this engine with DynamoDB's `limits` between it and the engine (see
    /// [`limits`]), and its request counter.
    pub fn limited_client(&self, limits: &limits::Limits) -> (Client, RequestCounter) {
        let counter = RequestCounter::default();
        let config = config(&self.endpoint)
            .http_client(limits.client(shared::dynamo::client::http_client()))
            .interceptor(counter.clone());
        (Client::from_conf(config.build()), counter)
    }

    /// Stops accepting requests and waits for those under way.
    pub async fn stop(mut self) -> Result<(), Error> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(server) = self.server.take() {
            server.await??;
        }
        Ok(())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Every item of `table`, by consistent Scans page after page: for tests and make dev's
/// explorer, which look at the whole table (the store itself never scans).
pub async fn scan_all(
    client: &Client,
    table: &str,
) -> Result<Vec<HashMap<String, AttributeValue>>, aws_sdk_dynamodb::Error> {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await?;
        items.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return Ok(items);
        }
    }
}

/// An SDK client for a local engine. Engines check that requests are signed, not by whom.
pub fn client(endpoint: &str, counter: Option<RequestCounter>) -> Client {
    let mut config = config(endpoint);
    if let Some(counter) = counter {
        config = config.interceptor(counter);
    }
    Client::from_conf(config.build())
}

/// The SDK configuration for a local engine: the functions' own timeouts, retries and metrics,
/// and the declarations' check ([`declared`]).
fn config(endpoint: &str) -> aws_sdk_dynamodb::config::Builder {
    aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .timeout_config(shared::dynamo::client::timeouts())
        .retry_config(shared::dynamo::client::retries())
        .http_client(shared::dynamo::client::http_client())
        .interceptor(shared::metrics::DynamoDbOutcomes)
        // Inside a handler's scope, each request held to its function's declaration.
        .interceptor(declared::Enforce)
        .credentials_provider(Credentials::new(
            "local",
            "local",
            None,
            None,
            "local-engine",
        ))
}

/// What make dev's own client leaves out of its requests: the `ClientRequestToken` the SDK puts
/// on every TransactWriteItems. dynoxide 3.2 walks its whole ten-minute token cache on every
/// transaction that carries one (`evict_expired` in its lib.rs), so under a steady load each
/// transaction slowed with every transaction of the last ten minutes (measured with `make load`:
/// a POST at 19 ms instead of 2 after 100,000 orders). On loopback no answer is lost, so nothing
/// needs the token; the tests of lost answers use their own clients, which keep it. The fix is
/// written up for dynoxide in `upstream/`.
#[derive(Debug, Clone, Copy, Default)]
pub struct WithoutRequestTokens;

impl aws_smithy_runtime_api::client::interceptors::Intercept for WithoutRequestTokens {
    fn name(&self) -> &'static str {
        "WithoutRequestTokens"
    }

    fn modify_before_signing(
        &self,
        context: &mut aws_smithy_runtime_api::client::interceptors::context::BeforeTransmitInterceptorContextMut<'_>,
        _runtime_components: &aws_smithy_runtime_api::client::runtime_components::RuntimeComponents,
        _cfg: &mut aws_smithy_types::config_bag::ConfigBag,
    ) -> Result<(), aws_smithy_runtime_api::box_error::BoxError> {
        let request = context.request_mut();
        if !request
            .body()
            .bytes()
            .is_some_and(|bytes| bytes.windows(18).any(|w| w == b"ClientRequestToken"))
        {
            return Ok(());
        }
        edit_json_body(request, |fields| {
            fields.remove("ClientRequestToken").is_some()
        })
    }
}

/// Edits the JSON object a request sends (`edit` says whether it changed anything), keeping
/// its content-length right. A body that is not an object in memory is left as it is.
pub(crate) fn edit_json_body(
    request: &mut aws_smithy_runtime_api::client::orchestrator::HttpRequest,
    edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>) -> bool,
) -> Result<(), aws_smithy_runtime_api::box_error::BoxError> {
    let Some(bytes) = request.body().bytes() else {
        return Ok(());
    };
    let mut body: serde_json::Value = serde_json::from_slice(bytes)?;
    let Some(fields) = body.as_object_mut() else {
        return Ok(());
    };
    if edit(fields) {
        let body = serde_json::to_vec(&body)?;
        request
            .headers_mut()
            .insert("content-length", body.len().to_string());
        *request.body_mut() = aws_smithy_types::body::SdkBody::from(body);
    }
    Ok(())
}
