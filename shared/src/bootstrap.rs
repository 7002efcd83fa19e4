//! The start of every Lambda: logging, configuration and the store, once per cold start; and
//! the loop that serves DynamoDB stream batches.

use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;

use aws_lambda_events::event::dynamodb::Event as StreamEvent;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use lambda_runtime::{LambdaEvent, service_fn};

use crate::Store;
use crate::domain::cart::CartTtl;
use crate::domain::checkout::HoldDuration;
use crate::domain::currency::Currency;
use crate::domain::error::BoxError;
use crate::dynamo::client;
use crate::dynamo::keys::StatusShards;
use crate::metrics;

pub use crate::http::serve::serve_http;

/// An environment variable that is set and not empty.
fn env_value(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// Reads a required environment variable.
fn required_env(name: &str) -> Result<String, BoxError> {
    env_value(name).ok_or_else(|| format!("environment variable {name} must be set").into())
}

/// `STATUS_SHARDS`: how many GSI1 partitions each status is spread over; `default` when unset
/// (a Lambda: 1, as the template sets it; `make dev`: the template's default).
pub fn status_shards_from_env(default: StatusShards) -> Result<StatusShards, BoxError> {
    match env_value("STATUS_SHARDS") {
        Some(raw) => {
            StatusShards::parse(&raw).map_err(|err| format!("STATUS_SHARDS: {err}").into())
        }
        None => Ok(default),
    }
}

/// `MAX_OPEN_ORDERS`: the most PLACED orders a customer may hold at once; `default` when unset
/// (a Lambda: the template always sets it; `make dev`: the template's default).
pub fn max_open_orders_from_env(default: Option<u32>) -> Result<Option<u32>, BoxError> {
    cap_from_env("MAX_OPEN_ORDERS", default)
}

/// `MAX_HELD_QUANTITY`: the most units of one product a customer's checked-out open orders may
/// hold at once; `default` when unset (as for `MAX_OPEN_ORDERS`).
pub fn max_held_quantity_from_env(default: Option<u32>) -> Result<Option<u32>, BoxError> {
    cap_from_env("MAX_HELD_QUANTITY", default)
}

/// A cap from the environment variable `name`: a whole number from 1.
fn cap_from_env(name: &str, default: Option<u32>) -> Result<Option<u32>, BoxError> {
    match env_value(name) {
        Some(raw) => match raw.trim().parse::<u32>() {
            Ok(max) if max >= 1 => Ok(Some(max)),
            _ => Err(format!("{name} must be a whole number from 1, not {raw:?}").into()),
        },
        None => Ok(default),
    }
}

/// `CART_TTL_DAYS`: how long a cart line lives after its last change; the default (30) when
/// unset.
pub fn cart_ttl_from_env() -> Result<CartTtl, BoxError> {
    match env_value("CART_TTL_DAYS") {
        Some(raw) => raw
            .trim()
            .parse::<u32>()
            .map_err(|_| format!("CART_TTL_DAYS must be a whole number of days, not {raw:?}"))
            .and_then(CartTtl::days)
            .map_err(|err| format!("CART_TTL_DAYS: {err}").into()),
        None => Ok(CartTtl::default()),
    }
}

/// `RETURN_WINDOW_DAYS`: how many days after their delivery units may be returned; `default`
/// when unset (a Lambda: the template always sets it; `make dev`: the template's default).
pub fn return_window_from_env(default: u32) -> Result<u32, BoxError> {
    match env_value("RETURN_WINDOW_DAYS") {
        Some(raw) => match raw.trim().parse::<u32>() {
            Ok(days) if (1..=3650).contains(&days) => Ok(days),
            _ => Err(format!(
                "RETURN_WINDOW_DAYS must be a whole number of days from 1 to 3650, not {raw:?}"
            )
            .into()),
        },
        None => Ok(default),
    }
}

/// `HOLD_MINUTES`: how long a checkout holds its stock (a fraction allowed); `default` when
/// unset (a Lambda: the template always sets it; `make dev`: the template's default).
pub fn hold_from_env(default: HoldDuration) -> Result<HoldDuration, BoxError> {
    match env_value("HOLD_MINUTES") {
        Some(raw) => {
            HoldDuration::parse_minutes(&raw).map_err(|err| format!("HOLD_MINUTES: {err}").into())
        }
        None => Ok(default),
    }
}

/// `CURRENCY`: the store's currency, lowercase ISO 4217 with cents; `default` when unset (as
/// for `HOLD_MINUTES`).
pub fn currency_from_env(default: Currency) -> Result<Currency, BoxError> {
    match env_value("CURRENCY") {
        Some(raw) => Currency::parse(raw.trim()).map_err(|err| format!("CURRENCY: {err}").into()),
        None => Ok(default),
    }
}

/// `PRICES_INCLUDE_TAX`: whether the catalog's prices include tax (`true` or `false`); `false`
/// when unset.
pub fn prices_include_tax_from_env(default: bool) -> Result<bool, BoxError> {
    match env_value("PRICES_INCLUDE_TAX").as_deref().map(str::trim) {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(other) => {
            Err(format!("PRICES_INCLUDE_TAX must be true or false, not {other:?}").into())
        }
        None => Ok(default),
    }
}

/// How Lambda is initialising this sandbox, as `AWS_LAMBDA_INITIALIZATION_TYPE` names it; it
/// decides whether init opens the function's connections ([`InitType::opens_connections`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitType {
    /// `on-demand`, and where the variable is unset or unknown (make dev, tests): the caller
    /// waits for init and the first invoke both.
    OnDemand,
    /// `provisioned-concurrency`: init runs ahead of traffic, under the memory size's share.
    Provisioned,
    /// `lambda-managed-instances`: init ahead of traffic too, on an instance kept running.
    ManagedInstances,
    /// `snap-start`: init runs once, for a snapshot that is restored later.
    SnapStart,
}

impl InitType {
    /// The type `value` names.
    pub fn parse(value: Option<&str>) -> Self {
        match value.map(str::trim) {
            Some("provisioned-concurrency") => Self::Provisioned,
            Some("lambda-managed-instances") => Self::ManagedInstances,
            Some("snap-start") => Self::SnapStart,
            _ => Self::OnDemand,
        }
    }

    /// This process's.
    pub fn of_process() -> Self {
        Self::parse(
            std::env::var("AWS_LAMBDA_INITIALIZATION_TYPE")
                .ok()
                .as_deref(),
        )
    }

    /// Whether a connection opened in init shortens what a caller waits for, at `memory_mb`
    /// (`AWS_LAMBDA_FUNCTION_MEMORY_SIZE`; `None` where Lambda does not run the process). Where
    /// init runs ahead of traffic, always: its connections live on into the invocations. A
    /// snapshot's do not survive its restore. On-demand the caller waits for init too, and a
    /// connection opened there costs one request more; but init runs on a whole CPU and the
    /// first invoke at the memory size's share, which Lambda hands out per 20 ms or so, and
    /// opening the connection (the TLS handshake, the SDK's first request) needs ~3 ms of CPU, a
    /// checkout's two ~7 ms: more than a small size's share of a period, so the first invoke
    /// would wait for the next. Below [`ON_DEMAND_WARM_UP_BELOW_MB`] it is opened in init
    /// (`make bench`, docs/performance.md, "The warm-up, by the kind of init").
    pub fn opens_connections(self, memory_mb: Option<u32>) -> bool {
        match self {
            Self::Provisioned | Self::ManagedInstances => true,
            Self::OnDemand => memory_mb.is_some_and(|mb| mb < ON_DEMAND_WARM_UP_BELOW_MB),
            Self::SnapStart => false,
        }
    }
}

/// The memory size from which an on-demand init leaves the connections to the first request:
/// 1,024 MB gets 11.6 ms of CPU in a 20 ms period, room for a checkout's first invoke; 128 MB
/// gets 1.45 ms, less than a read's.
pub const ON_DEMAND_WARM_UP_BELOW_MB: u32 = 1024;

/// `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`, as Lambda sets it.
fn memory_size() -> Option<u32> {
    env_value("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")?
        .trim()
        .parse()
        .ok()
}

/// Whether init opens this function's connections (DynamoDB's, and checkout's to the payment
/// provider): where its [`InitType`] says that shortens what a caller waits for. In `make
/// bench`'s build only, `STORE_BENCH_WARMUP=always` or `never` overrides the init type, so that
/// the bench can show what each model's other choice would cost; every build that ships decides
/// by the init type alone.
pub fn opens_connections_in_init() -> bool {
    match bench_value("STORE_BENCH_WARMUP").as_deref() {
        Some("always") => true,
        Some("never") => false,
        _ => InitType::of_process().opens_connections(memory_size()),
    }
}

/// `make bench`'s build only: the value of its switch `name`. In every build that ships it is
/// `None`, whatever the environment holds.
pub fn bench_value(name: &str) -> Option<String> {
    if cfg!(feature = "bench-build") {
        std::env::var(name).ok()
    } else {
        None
    }
}

/// Logging (JSON when `AWS_LAMBDA_LOG_FORMAT=JSON`, level from `AWS_LAMBDA_LOG_LEVEL` or
/// `RUST_LOG`), then the store: `TABLE_NAME`, `STATUS_SHARDS`, and an SDK client from the
/// Lambda environment ([`client::Environment`]), its connection opened in init where that pays
/// ([`opens_connections_in_init`]).
///
/// A wrong environment (no `TABLE_NAME`, an empty or malformed endpoint) is logged as one clear
/// error, and `main` then exits non-zero: never a panic, which under `panic = "abort"` is a core
/// dump and a `Sandbox.Failure` with no message.
pub async fn init() -> Result<Store, BoxError> {
    lambda_runtime::tracing::init_default_subscriber();
    let configured = required_env("TABLE_NAME").and_then(|table| {
        let shards = status_shards_from_env(StatusShards::ONE)?;
        let caps = (
            max_open_orders_from_env(None)?,
            max_held_quantity_from_env(None)?,
        );
        let cart_ttl = (
            cart_ttl_from_env()?,
            return_window_from_env(crate::domain::returns::DEFAULT_RETURN_WINDOW_DAYS)?,
        );
        let checkout = (
            hold_from_env(HoldDuration::default())?,
            currency_from_env(Currency::default())?,
            prices_include_tax_from_env(false)?,
        );
        let environment = client::Environment::of_process()?;
        Ok((table, shards, caps, cart_ttl, checkout, environment))
    });
    match configured {
        Ok((
            table,
            shards,
            (max_open, max_held),
            (cart_ttl, return_window),
            (hold, currency, prices_include_tax),
            environment,
        )) => {
            let media = env_value("MEDIA_BUCKET")
                .map(|bucket| crate::media::MediaBucket::from_environment(&environment, bucket));
            let store = client::connect(environment, table, opens_connections_in_init()).await;
            let store = match media {
                Some(bucket) => store.with_media(bucket),
                None => store,
            };
            Ok(store
                .with_status_shards(shards)
                .with_max_open_orders(max_open)
                .with_max_held_quantity(max_held)
                .with_cart_ttl(cart_ttl)
                .with_return_window_days(return_window)
                .with_hold(hold)
                .with_currency(currency)
                .with_prices_include_tax(prices_include_tax))
        }
        Err(err) => {
            tracing::error!(error = %err, "cannot start: the function's environment is wrong");
            Err(err)
        }
    }
}

/// Serves DynamoDB stream batches with `handler` until the runtime stops. The handler reports
/// what failed in its response rather than failing the whole invocation.
pub async fn serve_stream<'a, F, Fut>(store: &'a Store, handler: F) -> Result<(), BoxError>
where
    F: Fn(&'a Store, StreamEvent) -> Fut + Copy + Send + 'a,
    Fut: Future<Output = DynamoDbEventResponse> + Send + 'a,
{
    serve_batches(store, move |store, event, _| handler(store, event)).await
}

/// The answer to a stream batch whose records from position `first` on are not done: each of
/// them reported by its sequence number (and counted in `RecordsFailed`), so that Lambda
/// delivers them again, from the first; the records before it are done.
pub fn failed_from(
    records: &[aws_lambda_events::event::dynamodb::EventRecord],
    first: usize,
) -> DynamoDbEventResponse {
    let failed = &records[first.min(records.len())..];
    metrics::count(metrics::Metric::RecordsFailed, failed.len() as u64);
    let mut response = DynamoDbEventResponse::default();
    for record in failed {
        match &record.change.sequence_number {
            Some(sequence) => {
                let mut failure =
                    aws_lambda_events::event::streams::DynamoDbBatchItemFailure::default();
                failure.item_identifier = Some(sequence.clone());
                response.batch_item_failures.push(failure);
            }
            None => tracing::error!(
                event_id = %record.event_id,
                "a failed record has no sequence number to report"
            ),
        }
    }
    response
}

/// Serves the batches an event source mapping hands over (a stream's records, a queue's
/// messages) with `handler`, given the time it may spend before its deadline (less
/// [`SCHEDULED_MARGIN`]), until the runtime stops. The handler reports what failed in its
/// response (its partial batch failures) rather than failing the whole invocation.
pub async fn serve_batches<'a, D, E, R, F, Fut>(deps: &'a D, handler: F) -> Result<(), BoxError>
where
    D: Sync + ?Sized,
    E: serde::de::DeserializeOwned + Send,
    R: serde::Serialize,
    F: Fn(&'a D, E, Duration) -> Fut + Copy + Send + 'a,
    Fut: Future<Output = R> + Send + 'a,
{
    lambda_runtime::run(service_fn(
        move |LambdaEvent { payload, context }: LambdaEvent<E>| async move {
            let cold_start = metrics::cold_start();
            let budget = budget_until(context.deadline);
            let (response, recorded) =
                metrics::recorded(cold_start, handler(deps, payload, budget)).await;
            metrics::emit(&recorded, &context);
            Ok::<_, Infallible>(response)
        },
    ))
    .await
}

/// How much of an invocation's time a scheduled run keeps for itself: what is left after this is
/// its budget, so it reports its progress before Lambda stops it.
pub const SCHEDULED_MARGIN: Duration = Duration::from_secs(5);

/// What a scheduled run may spend: the time to its invocation's deadline (milliseconds since
/// the epoch) less [`SCHEDULED_MARGIN`].
pub fn budget_until(deadline_ms: u64) -> Duration {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    Duration::from_millis(deadline_ms.saturating_sub(now_ms)).saturating_sub(SCHEDULED_MARGIN)
}

/// Serves scheduled invocations (an EventBridge schedule) with `handler`, given the time it
/// may spend, until the runtime stops. What the handler reports is the invocation's result; an
/// error fails the invocation (logged, and counted by Lambda's `Errors`).
pub async fn serve_scheduled<'a, D: Sync + ?Sized, F, Fut, T>(
    deps: &'a D,
    handler: F,
) -> Result<(), BoxError>
where
    F: Fn(&'a D, Duration) -> Fut + Copy + Send + 'a,
    Fut: Future<Output = Result<T, crate::AppError>> + Send + 'a,
    T: serde::Serialize,
{
    lambda_runtime::run(service_fn(
        move |LambdaEvent { context, .. }: LambdaEvent<serde_json::Value>| async move {
            let cold_start = metrics::cold_start();
            let budget = budget_until(context.deadline);
            let (result, recorded) = metrics::recorded(cold_start, handler(deps, budget)).await;
            metrics::emit(&recorded, &context);
            result.map_err(|err| {
                tracing::error!(error = %err, "scheduled run failed");
                BoxError::from(err.to_string())
            })
        },
    ))
    .await
}

#[cfg(test)]
mod tests {
    use super::InitType;

    #[test]
    fn an_init_ahead_of_traffic_or_on_demand_at_a_small_size_opens_connections() {
        let of = |value| InitType::parse(value);
        assert_eq!(of(Some("on-demand")), InitType::OnDemand);
        assert_eq!(of(None), InitType::OnDemand, "make dev, tests");
        assert_eq!(of(Some("")), InitType::OnDemand);
        assert_eq!(of(Some("a-type-not-yet-known")), InitType::OnDemand);
        assert_eq!(of(Some("provisioned-concurrency")), InitType::Provisioned);
        assert_eq!(
            of(Some("lambda-managed-instances")),
            InitType::ManagedInstances
        );
        assert_eq!(of(Some("snap-start")), InitType::SnapStart);
        let opening = |memory_mb| -> Vec<InitType> {
            [
                InitType::OnDemand,
                InitType::Provisioned,
                InitType::ManagedInstances,
                InitType::SnapStart,
            ]
            .into_iter()
            .filter(|init| init.opens_connections(memory_mb))
            .collect()
        };
        let ahead = [InitType::Provisioned, InitType::ManagedInstances];
        assert_eq!(opening(None), ahead, "make dev and tests: no memory size");
        assert_eq!(opening(Some(1024)), ahead);
        assert_eq!(opening(Some(1769)), ahead);
        let small = [
            InitType::OnDemand,
            InitType::Provisioned,
            InitType::ManagedInstances,
        ];
        assert_eq!(opening(Some(128)), small, "the template's size");
        assert_eq!(opening(Some(1023)), small);
    }
}
