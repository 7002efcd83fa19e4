//! The publisher in make dev: how soon an order's event is at a queue on the bus after its
//! write committed, and how many events a second it publishes from the one shard.
//!
//! The model is make dev on this machine, release build: the stream polled every 250 ms (Lambda
//! polls a shard about four times a second), the publisher's batches of up to 100 records,
//! `PutEvents` to moto's server (one Python process on this machine, where EventBridge answers
//! in milliseconds), a rule to an SQS queue that make dev drains into its memory and serves at
//! `/_explorer/api/events`, read here as `make events` reads it. Each order placed also matches
//! the email rule (its customer is emailed), as in a deployed stack.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use local_engine::runtime_api::Error;
use serde_json::Value;

use crate::cli::Options;
use crate::http::{Connection, Server, cpu_seconds, free_ports, percentile};

/// Orders placed one at a time, 200 ms apart: the latency phase.
const PACED: usize = 100;
/// Orders placed as fast as four connections place them: the throughput phase.
const BURST: usize = 400;
const CONNECTIONS: usize = 4;

/// When each order's `order.placed` reached the tap, by order.
type Arrivals = Arc<Mutex<BTreeMap<String, Instant>>>;

pub(crate) async fn section(o: &Options) -> Result<(), Error> {
    let dir = std::env::temp_dir().join(format!("store-bench-events-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let events_port = free_ports()?.0;
    let env = [
        ("EVENTS_PORT", events_port.to_string()),
        ("MAX_OPEN_ORDERS", "100000".to_owned()),
    ];
    let server = Server::start(&o.bin_dir, &dir, &env).await?;
    restock(&server).await?;
    let arrivals: Arrivals = Arc::default();
    let reader = tokio::spawn(read_tap(server.addr.clone(), arrivals.clone()));
    let paced = place(&server, PACED, 1, Duration::from_millis(200)).await?;
    let latencies = wait_for(&arrivals, &paced).await;
    let started = Instant::now();
    let cpu_before = cpu_seconds(server.pid);
    let burst = place(&server, BURST, CONNECTIONS, Duration::ZERO).await?;
    let placed_in = started.elapsed();
    wait_for(&arrivals, &burst).await;
    let last = burst
        .keys()
        .filter_map(|order| arrivals.lock().ok()?.get(order).copied())
        .max()
        .unwrap_or_else(Instant::now);
    let cpu = cpu_seconds(server.pid) - cpu_before;
    reader.abort();
    server.stop().await?;
    let _ = std::fs::remove_dir_all(&dir);
    print(
        &latencies,
        placed_in,
        last.saturating_duration_since(started),
        cpu,
    );
    Ok(())
}

/// The sample products given stock for every order of the run.
async fn restock(server: &Server) -> Result<(), Error> {
    let mut http = Connection::open(&server.addr).await?;
    for sku in 1..=4 {
        let path = format!("/variants/sku-{sku}/stock");
        let (status, body) = http
            .send("POST", &path, &server.token, r#"{"delta":10000}"#)
            .await?;
        if status != 200 {
            return Err(format!("POST {path}: {status} {body}").into());
        }
    }
    Ok(())
}

/// `count` orders placed for the sample customers by `connections` connections at once, each
/// waiting `pace` between its orders: when each committed (its 201 answered), by order.
async fn place(
    server: &Server,
    count: usize,
    connections: usize,
    pace: Duration,
) -> Result<BTreeMap<String, Instant>, Error> {
    let mut workers = Vec::new();
    for worker in 0..connections {
        let (addr, token) = (server.addr.clone(), server.token.clone());
        workers.push(tokio::spawn(async move {
            let mut http = Connection::open(&addr).await?;
            let mut committed = BTreeMap::new();
            for n in (worker..count).step_by(connections) {
                let customer = format!("c{}", 1 + n % 6);
                let body = format!(
                    r#"{{"items":[{{"sku":"sku-{}","quantity":1}}]}}"#,
                    1 + n % 4
                );
                let (status, answer) = http
                    .send(
                        "POST",
                        &format!("/customers/{customer}/orders"),
                        &token,
                        &body,
                    )
                    .await?;
                let at = Instant::now();
                if status != 201 {
                    return Err(format!("POST order: {status} {answer}").into());
                }
                let order: Value = serde_json::from_str(&answer)?;
                committed.insert(order["orderId"].as_str().unwrap_or_default().to_owned(), at);
                tokio::time::sleep(pace).await;
            }
            Ok::<_, Error>(committed)
        }));
    }
    let mut all = BTreeMap::new();
    for worker in workers {
        all.extend(worker.await.map_err(|e| e.to_string())??);
    }
    Ok(all)
}

/// make dev's tap, read as `make events` reads it: each `order.placed`'s arrival noted.
async fn read_tap(addr: String, arrivals: Arrivals) -> Result<(), Error> {
    let mut http = Connection::open(&addr).await?;
    let mut after = 0;
    loop {
        let path = format!("/_explorer/api/events?after={after}&wait=1");
        let (_, body) = http.request("GET", &path, &[], "").await?;
        let answer: Value = serde_json::from_str(&body)?;
        let at = Instant::now();
        after = answer["last"].as_u64().unwrap_or(after);
        let mut arrived = arrivals.lock().map_err(|e| e.to_string())?;
        for envelope in answer["events"].as_array().into_iter().flatten() {
            let detail = &envelope["detail"];
            if detail["type"] == "order.placed" {
                let order = detail["orderId"].as_str().unwrap_or_default().to_owned();
                arrived.entry(order).or_insert(at);
            }
        }
    }
}

/// Waits (up to two minutes) for every order of `committed` to have arrived: each one's time
/// from commit to the tap, sorted.
async fn wait_for(arrivals: &Arrivals, committed: &BTreeMap<String, Instant>) -> Vec<Duration> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let latencies: Vec<Duration> = {
            let arrived = arrivals
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            committed
                .iter()
                .filter_map(|(order, at)| {
                    arrived.get(order).map(|a| a.saturating_duration_since(*at))
                })
                .collect()
        };
        if latencies.len() == committed.len() || Instant::now() > deadline {
            let mut latencies = latencies;
            latencies.sort();
            return latencies;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn print(latencies: &[Duration], placed_in: Duration, published_in: Duration, cpu: f64) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!();
    println!(
        "### The publisher in make dev (release build; moto's server as EventBridge and SQS; the stream polled every 250 ms)"
    );
    println!();
    println!("| what | observed |");
    println!("|---|---|");
    println!(
        "| commit to the event at a queue on the bus, {PACED} orders 200 ms apart | p50 {:.0} ms, p99 {:.0} ms ({} of {PACED} arrived) |",
        ms(percentile(latencies, 50.0)),
        ms(percentile(latencies, 99.0)),
        latencies.len()
    );
    println!(
        "| {BURST} orders placed by {CONNECTIONS} connections at once | placed in {:.1} s ({:.0} a second); every event published {:.1} s after the first was placed: {:.0} events a second from the one shard |",
        placed_in.as_secs_f64(),
        BURST as f64 / placed_in.as_secs_f64(),
        published_in.as_secs_f64(),
        BURST as f64 / published_in.as_secs_f64()
    );
    println!(
        "| store-local's CPU over the burst (the API, the stream, the publisher, the statistics, the emails) | {:.1} ms an order |",
        cpu * 1000.0 / BURST as f64
    );
}
