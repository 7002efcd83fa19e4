//! `make load`: does `make dev` stay fast as its data grows? Starts store-local on a fresh data
//! file and places orders through its HTTP API up to 100,000 (`--orders`), and at 0, 10,000 and
//! 100,000 prints the POST latency (p50/p99 over 500 orders sent one after another) and the
//! idle CPU of store-local (10 s without requests: the stream poller, the sweeper, the upkeep).
//! Then, store-local stopped, the cost of one TTL sweep of the whole file.
//!
//! Usage: store-load --bin-dir DIR [--orders N] [--workers N]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use local_engine::runtime_api::Error;

mod http;

use http::{Connection, Server, cpu_seconds, percentile};

const SAMPLE: usize = 500;

fn order_body() -> &'static str {
    r#"{"items":[{"sku":"sku-1","quantity":1}]}"#
}

fn customer(n: usize) -> String {
    format!("/customers/c{}/orders", 1 + n % 6)
}

struct Point {
    orders: usize,
    p50: Duration,
    p99: Duration,
    idle_cpu: f64,
    /// How long the stream consumer took to catch up after the bulk load.
    catch_up: Duration,
}

async fn measure_point(addr: &str, token: &str, pid: u32, placed: usize) -> Result<Point, Error> {
    // The stream consumer first catches up with the orders just placed (a bulk load outruns
    // it): measured once store-local has been quiet for two seconds, as a developer meets it.
    let waiting = Instant::now();
    loop {
        let before = cpu_seconds(pid);
        tokio::time::sleep(Duration::from_secs(2)).await;
        if (cpu_seconds(pid) - before) / 2.0 < 0.05 || waiting.elapsed() > Duration::from_secs(600)
        {
            break;
        }
    }
    let catch_up = waiting.elapsed();
    // Idle: what the poller, sweeper and upkeep cost with nothing to do.
    let before = cpu_seconds(pid);
    tokio::time::sleep(Duration::from_secs(10)).await;
    let idle_cpu = (cpu_seconds(pid) - before) / 10.0;
    let mut connection = Connection::open(addr).await?;
    let mut latencies = Vec::with_capacity(SAMPLE);
    for n in 0..SAMPLE {
        let started = Instant::now();
        let (status, body) = connection
            .send("POST", &customer(n), token, order_body())
            .await?;
        latencies.push(started.elapsed());
        if status != 201 {
            return Err(format!("POST answered {status}: {body}").into());
        }
    }
    latencies.sort();
    Ok(Point {
        orders: placed,
        p50: percentile(&latencies, 50.0),
        p99: percentile(&latencies, 99.0),
        idle_cpu,
        catch_up,
    })
}

/// What the command line asks for.
struct Options {
    bin_dir: PathBuf,
    target: usize,
    workers: usize,
}

fn options() -> Result<Options, Error> {
    let mut o = Options {
        bin_dir: PathBuf::from("target/release"),
        target: 100_000,
        workers: 4,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--bin-dir" => o.bin_dir = value.into(),
            "--orders" => o.target = value.parse()?,
            "--workers" => o.workers = value.parse()?,
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    Ok(o)
}

/// Stock for every order to come.
async fn stock_up(server: &Server, orders: usize) -> Result<(), Error> {
    let mut admin = Connection::open(&server.addr).await?;
    for _ in 0..(orders + 4 * SAMPLE).div_ceil(1_000_000) {
        let (status, body) = admin
            .send(
                "POST",
                "/variants/sku-1/stock",
                &server.token,
                r#"{"delta":1000000}"#,
            )
            .await?;
        if status != 200 {
            return Err(format!("stock: {status} {body}").into());
        }
    }
    Ok(())
}

/// `count` orders placed over `workers` connections at once.
async fn fill(server: &Server, count: usize, workers: usize) -> Result<(), Error> {
    let mut tasks = Vec::new();
    for w in 0..workers {
        let share = count / workers + usize::from(w < count % workers);
        let (addr, token) = (server.addr.clone(), server.token.clone());
        tasks.push(tokio::spawn(async move {
            let mut connection = Connection::open(&addr).await?;
            for n in 0..share {
                let (status, body) = connection
                    .send("POST", &customer(n + w), &token, order_body())
                    .await?;
                if status != 201 {
                    return Err::<(), Error>(format!("POST answered {status}: {body}").into());
                }
            }
            Ok(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    Ok(())
}

/// One TTL sweep of the whole file, as store-local's sweeper runs it.
fn sweep_once(data: &std::path::Path, placed: usize) -> Result<(), Error> {
    let db = local_engine::dynoxide::Database::new(data.to_str().ok_or("path")?)?;
    let sweep = Instant::now();
    let expired = db.sweep_ttl()?;
    println!(
        "One TTL sweep of the file ({placed} orders): {:.0} ms, {expired} expired; the sweeper waits 100x a sweep's time between sweeps (at least 30 s), so it spends at most 1% of a core",
        sweep.elapsed().as_secs_f64() * 1000.0
    );
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Error> {
    let o = options()?;
    let dir = std::env::temp_dir().join(format!("store-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let server = Server::start(&o.bin_dir, &dir, &[]).await?;
    stock_up(&server, o.target).await?;

    println!("## store-load: orders placed through make dev's HTTP API, one fresh data file\n");
    println!(
        "| orders in the file | POST p50 / p99 ms ({SAMPLE} one by one) | idle CPU, % of a core | consumer caught up after the load in s |"
    );
    println!("|---|---|---|---|");
    let mut placed = 0;
    let mut points: Vec<Point> = Vec::new();
    let checkpoints: Vec<usize> = [0, o.target / 10, o.target]
        .into_iter()
        .filter(|c| *c <= o.target)
        .collect();
    let started = Instant::now();
    for checkpoint in checkpoints {
        let remaining = checkpoint.saturating_sub(placed);
        fill(&server, remaining, o.workers).await?;
        placed += remaining;
        let point = measure_point(&server.addr, &server.token, server.pid, placed).await?;
        placed += SAMPLE;
        println!(
            "| {} | {:.2} / {:.2} | {:.1} | {:.0} |",
            point.orders,
            point.p50.as_secs_f64() * 1000.0,
            point.p99.as_secs_f64() * 1000.0,
            point.idle_cpu * 100.0,
            point.catch_up.as_secs_f64()
        );
        points.push(point);
    }
    let first = points.first().map_or(1.0, |p| p.p50.as_secs_f64());
    let worst = points
        .iter()
        .map(|p| p.p50.as_secs_f64() / first)
        .fold(0.0, f64::max);
    println!(
        "\nPOST p50 at most {worst:.2}x the fresh file's (target: within 1.5x); {placed} orders in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let data = server.stop().await?;
    sweep_once(&data, placed)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
