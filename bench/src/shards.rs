//! The status shards (template parameter StatusShards): list-orders-by-status with 1 and 8
//! shards, read side measured, write side modelled.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::operation::query::QueryOutput;
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::AfterDeserializationInterceptorContextRef;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;
use std::path::Path;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use lambda_http::Body;
use local_engine::runtime_api::{Error, lambda_environment};
use shared::http::gateway::StaffClients;

use crate::cli::Options;
use crate::patterns::handler;
use crate::process::{Model, command, measure, percentile};
use crate::report::ms;
use local_engine::{Engine, LOCAL_TABLE, seed};
use shared::Store;
use shared::domain::ids::{CustomerId, OrderId};
use shared::domain::money::Money;
use shared::domain::order::Order;
use shared::domain::status::OrderStatus;
use shared::domain::time::Timestamp;
use shared::dynamo::codec::item_size;
use shared::dynamo::entities::order_listing;
use shared::dynamo::keys::StatusShards;

/// A round trip to DynamoDB within its region, the order of magnitude of its published
/// single-digit-millisecond latency: the model of the network the loopback engine lacks.
pub(crate) const ROUND_TRIP: std::time::Duration = std::time::Duration::from_millis(4);

/// The orders of one status in the benchmark's table.
pub(crate) const ORDERS: usize = 2_000;

/// Records the bytes each Query read, to bill it as DynamoDB does.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReadMeter(Arc<Mutex<Vec<usize>>>);

impl ReadMeter {
    pub(crate) fn take(&self) -> Vec<usize> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

impl Intercept for ReadMeter {
    fn name(&self) -> &'static str {
        "ReadMeter"
    }

    fn read_after_deserialization(
        &self,
        context: &AfterDeserializationInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if let Ok(output) = context.output_or_error()
            && let Some(query) = output.downcast_ref::<QueryOutput>()
            && let Ok(mut reads) = self.0.lock()
        {
            reads.push(query.items().iter().map(item_size).sum());
        }
        Ok(())
    }
}

/// Read request units of one Query, as billed: its items' bytes in 4 KB units (at least one),
/// halved for an eventually consistent read (GSI reads always are).
pub(crate) fn read_units(bytes: usize) -> f64 {
    bytes.div_ceil(4096).max(1) as f64 * 0.5
}

/// An engine holding [`ORDERS`] PLACED orders written under `shards`, many sharing a second.
pub(crate) async fn engine_with_orders(shards: StatusShards) -> Result<Engine, Error> {
    let engine = Engine::in_memory().await?;
    let mut items = Vec::with_capacity(ORDERS);
    for i in 0..ORDERS {
        let order = Order {
            order_id: OrderId::parse(&format!("b{i:05}"))?,
            customer_id: CustomerId::parse(&format!("c{}", i % 97))?,
            placed_at: Timestamp::parse(&format!(
                "2026-11-{:02}T{:02}:{:02}:00Z",
                1 + i / 1440 % 28,
                i / 60 % 24,
                i % 60
            ))?,
            status: OrderStatus::Placed,
            total: Money::parse_number("24.90").ok_or("a money amount")?,
            hold_until: None,
            payment_intent_id: None,
            payment_id: None,
            payment_error: None,
            dispute: None,
            withdrawn: None,
        };
        items.push(order_listing::to_item(&order, shards));
    }
    seed::write_all(&engine.client(), LOCAL_TABLE, items).await?;
    Ok(engine)
}

/// A store on `engine` that counts its requests and meters its reads (the functions' own SDK
/// configuration otherwise).
pub(crate) fn metered_store(
    engine: &Engine,
    shards: StatusShards,
) -> (Store, local_engine::RequestCounter, ReadMeter) {
    let meter = ReadMeter::default();
    let (client, counter) = engine.counting_intercepted_client(meter.clone());
    let store = Store::new(client, LOCAL_TABLE).with_status_shards(shards);
    (store, counter, meter)
}

/// The write side, as arithmetic: the GSI1 write units per second on the hottest partition key
/// when `orders_per_second` orders are placed (each listing item, < 1 KB, is one GSI write unit
/// in STATUS#PLACED[#k]; FNV-1a of ULIDs spreads them evenly over the shards).
pub(crate) fn hottest_partition_writes(orders_per_second: f64, shards: u32) -> f64 {
    orders_per_second / f64::from(shards)
}

/// One shard count's measurements.
struct ShardRow {
    shards: u32,
    /// Queries per page, on average, and the most sent at once.
    requests: f64,
    at_once: usize,
    warm_p50: Duration,
    warm_p99: Duration,
    /// Read units per page, as billed.
    units: f64,
    network_p50: Duration,
}

/// list-orders-by-status with its orders in 1 and in 8 status shards: Queries per page and
/// how many went at once, warm latency of the release binary, read units per page as billed;
/// then the write side as arithmetic.
pub(crate) async fn section(o: &Options, home: &Path) -> Result<(), Error> {
    let events = Path::new(env!("CARGO_MANIFEST_DIR")).join("../events");
    let sample = std::fs::read_to_string(events.join("list-orders-by-status.json"))?;
    // A page of 25, as a client would ask.
    let event = Bytes::from(
        sample
            .replace("limit=10", "limit=25")
            .replace("\"limit\": \"10\"", "\"limit\": \"25\""),
    );
    let mut rows = Vec::new();
    for n in [1, 8] {
        rows.push(measure_shards(o, home, &event, n).await?);
    }
    print_rows(&rows);
    print_write_side();
    Ok(())
}

/// The release binary's warm latency, the pages walked in process, and the first page over a
/// modelled network, with the orders in `n` shards.
async fn measure_shards(
    o: &Options,
    home: &Path,
    event: &Bytes,
    n: u32,
) -> Result<ShardRow, Error> {
    let count = StatusShards::new(n)?;
    let engine = engine_with_orders(count).await?;
    let endpoint = engine.endpoint().to_owned();
    let binary = o.bin_dir.join("list-orders-by-status");
    let events = || event.clone();
    let warm = measure(Model::FullCore, o.runs.min(3), o.warm, &events, || {
        let mut c = command(&binary, &[], None);
        lambda_environment(&mut c, "list-orders-by-status", &endpoint, home);
        c.env("STATUS_SHARDS", n.to_string());
        c
    })
    .await
    .map_err(|e| format!("list-orders-by-status with {n} shards: {e}"))?
    .warm;
    let text = String::from_utf8_lossy(event).into_owned();
    let (requests, at_once, units) = walk_pages(&engine, count, &text).await?;
    let network_p50 = over_network(o, &engine, count, &text).await?;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    Ok(ShardRow {
        shards: n,
        requests: mean(&requests.iter().map(|r| *r as f64).collect::<Vec<_>>()),
        at_once: at_once.iter().copied().max().unwrap_or(0),
        warm_p50: percentile(&warm, 50.0),
        warm_p99: percentile(&warm, 99.0),
        units: mean(&units),
        network_p50,
    })
}

/// In process: up to 20 pages walked, each page's Queries, the most at once, and the read units
/// they were billed.
async fn walk_pages(
    engine: &Engine,
    count: StatusShards,
    text: &str,
) -> Result<(Vec<usize>, Vec<usize>, Vec<f64>), Error> {
    let (store, counter, meter) = metered_store(engine, count);
    let (mut requests, mut at_once, mut units) = (Vec::new(), Vec::new(), Vec::new());
    let staff_clients = StaffClients::from_env();
    let mut cursor: Option<String> = None;
    for _ in 0..20 {
        let req_text = match &cursor {
            Some(c) => text.replace("limit=25", &format!("limit=25&cursor={c}")),
            None => text.to_owned(),
        };
        counter.reset();
        meter.take();
        let req = shared::http::gateway::request_from_json(&req_text, &staff_clients)?;
        let response = handler(&store, "list-orders-by-status", req).await;
        let body: serde_json::Value = match response.body() {
            Body::Text(t) => serde_json::from_str(t)?,
            _ => serde_json::Value::Null,
        };
        requests.push(counter.total());
        at_once.push(counter.most_at_once());
        units.push(meter.take().into_iter().map(read_units).sum::<f64>());
        cursor = body["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    Ok((requests, at_once, units))
}

/// The same first page over a modelled network: each request waits the round trip DynamoDB has
/// in a region (the loopback engine has none, and answers one at a time). Its p50.
async fn over_network(
    o: &Options,
    engine: &Engine,
    count: StatusShards,
    text: &str,
) -> Result<Duration, Error> {
    let faults = local_engine::faults::Faults::default();
    faults.with_latency(ROUND_TRIP);
    let (client, _) = engine.faulty_client(&faults);
    let remote = Store::new(client, LOCAL_TABLE).with_status_shards(count);
    let staff_clients = StaffClients::from_env();
    let mut times = Vec::new();
    for _ in 0..o.warm.min(200) {
        let t = Instant::now();
        let req = shared::http::gateway::request_from_json(text, &staff_clients)?;
        let response = handler(&remote, "list-orders-by-status", req).await;
        times.push(t.elapsed());
        assert_eq!(response.status(), 200);
    }
    times.sort();
    Ok(percentile(&times, 50.0))
}

fn print_rows(rows: &[ShardRow]) {
    println!();
    println!(
        "### Orders by status over status shards ({ORDERS} PLACED orders, pages of 25; the engine answers one request at a time)"
    );
    println!();
    println!(
        "| shards | Queries per page (most at once) | warm p50 / p99 ms, loopback engine | p50 vs 1 shard | p50 ms with a {} ms round trip | vs 1 shard | read units per page (as billed) |",
        ROUND_TRIP.as_millis()
    );
    println!("|---|---|---|---|---|---|---|");
    let base = rows.first().map_or(1.0, |r| r.warm_p50.as_secs_f64());
    let base_network = rows.first().map_or(1.0, |r| r.network_p50.as_secs_f64());
    for r in rows {
        println!(
            "| {} | {:.2} ({}) | {} / {} | {:.2}x | {} | {:.2}x | {:.2} |",
            r.shards,
            r.requests,
            r.at_once,
            ms(r.warm_p50),
            ms(r.warm_p99),
            r.warm_p50.as_secs_f64() / base,
            ms(r.network_p50),
            r.network_p50.as_secs_f64() / base_network,
            r.units
        );
    }
}

fn print_write_side() {
    println!();
    println!(
        "Write side at 5,000 orders/s (each new order is one GSI1 write unit in STATUS#PLACED[#k], k = FNV-1a(orderId) mod N; DynamoDB takes about 1,000 write units/s per partition key):"
    );
    for n in [1, 8] {
        let hottest = hottest_partition_writes(5_000.0, n);
        println!(
            "- N = {n}: 5,000 / {n} = {hottest:.0} write units/s on the hottest key, {:.0}% of 1,000{}",
            hottest / 10.0,
            if hottest > 1_000.0 {
                ": GSI1 throttles the table's writes (IndexWriteKeyRangeThroughputExceeded)"
            } else {
                ": within the limit"
            }
        );
    }
}
