//! `make bench`: the release Lambdas measured beside the source design's boto3 code, on one embedded
//! engine, in one run. Prints one table; the method is in the README.
//!
//! Usage: store-bench --bin-dir DIR [--python PATH] [--runs N] [--warm N] [--callgrind]
//!                    [--size-dir-arm64 DIR] [--size-dir-x86-64 DIR]
//!                    [--only patterns,init,capacity,shards]

mod capacity;
mod memory;
mod shards;
mod tls_front;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use lambda_http::{Body, Request, Response};
use local_engine::runtime_api::{Error, RuntimeApi, lambda_environment};
use local_engine::testing::TestApp;
use shared::domain::ids::{CustomerId, OrderId};
use shared::domain::status::OrderStatus;
use shared::dynamo::entities::{customer, line_item, order_header, order_listing};
use shared::dynamo::keys;
use shared::http::gateway::StaffClients;
use shared::http::serve::dispatch;
use shared::{AppError, Store};
use tokio::process::Command;

/// Handler/raw request pairs timed in process per function.
const IN_PROCESS_PAIRS: usize = 1000;

struct Pattern {
    binary: &'static str,
    python: &'static str,
    /// The Node.js peer's export in bench/node/handlers.mjs.
    node: &'static str,
    event: &'static str,
}

const PATTERNS: [Pattern; 4] = [
    Pattern {
        binary: "get-customer",
        node: "getCustomer",
        python: "get_customer",
        event: "get-customer.json",
    },
    Pattern {
        binary: "list-customer-orders",
        node: "listCustomerOrders",
        python: "list_customer_orders",
        event: "list-customer-orders.json",
    },
    Pattern {
        binary: "get-order-items",
        node: "getOrderItems",
        python: "get_order_items",
        event: "get-order-items.json",
    },
    Pattern {
        binary: "list-orders-by-status",
        node: "listOrdersByStatus",
        python: "list_orders_by_status",
        event: "list-orders-by-status.json",
    },
];

impl Pattern {
    /// The Python peer's command line: the source design's handler under AWS's runtime
    /// interface client.
    fn python_args(&self) -> Vec<String> {
        vec![
            "-m".to_owned(),
            "awslambdaric".to_owned(),
            format!("boto3_handlers.{}", self.python),
        ]
    }
}

struct Options {
    /// Only these sections (`patterns`, `init`, `capacity`, `shards`, `memory`); all when empty.
    only: Vec<String>,
    callgrind: bool,
    bin_dir: PathBuf,
    python: Option<PathBuf>,
    /// The Node.js 22 binary of the Node.js peer (bench/node).
    node: Option<PathBuf>,
    /// The memory section's sizes, cold starts and warm requests per cold start.
    memory_sizes: Vec<u32>,
    memory_runs: usize,
    memory_warm: usize,
    runs: usize,
    warm: usize,
    size_dirs: Vec<(&'static str, PathBuf)>,
}

impl Options {
    fn runs_section(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|s| s == name)
    }
}

fn options() -> Result<Options, Error> {
    let mut args = std::env::args().skip(1);
    let mut o = Options {
        only: Vec::new(),
        callgrind: false,
        bin_dir: PathBuf::from("target/release"),
        python: None,
        node: None,
        memory_sizes: memory::DEFAULT_SIZES.to_vec(),
        memory_runs: 3,
        memory_warm: 100,
        runs: 10,
        warm: 200,
        size_dirs: Vec::new(),
    };
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--bin-dir" => o.bin_dir = value()?.into(),
            "--python" => o.python = Some(value()?.into()),
            "--node" => o.node = Some(value()?.into()),
            "--memory-sizes" => {
                o.memory_sizes = value()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            "--memory-runs" => o.memory_runs = value()?.parse()?,
            "--memory-warm" => o.memory_warm = value()?.parse()?,
            "--runs" => o.runs = value()?.parse()?,
            "--callgrind" => o.callgrind = true,
            "--only" => o.only = value()?.split(',').map(str::to_owned).collect(),
            "--warm" => o.warm = value()?.parse()?,
            "--size-dir-arm64" => o.size_dirs.push(("arm64", value()?.into())),
            "--size-dir-x86-64" => o.size_dirs.push(("x86_64", value()?.into())),
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    Ok(o)
}

/// One process's life: init, first response, warm latencies, peak RSS.
struct ProcessRun {
    init: Duration,
    first_response: Duration,
    /// CPU time (every thread, user and system) to its first response.
    cold_cpu: Duration,
    warm: Vec<Duration>,
    peak_rss_kib: u64,
}

/// The CPU time process `pid` has used so far, all its threads (`/proc/<pid>/task/*/schedstat`,
/// nanoseconds on the CPU).
fn cpu_time(pid: u32) -> Duration {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten();
    Duration::from_nanos(
        tasks
            .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
            .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
            .sum(),
    )
}

fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Starts `command` against a fresh Runtime API with `event` already waiting (as on a cold
/// start), then sends `warm` more events one after another. With a `share`, the command is
/// [`memory::CpuShare::command`]'s, and the clock starts once it has joined the share's cgroup
/// (which takes the kernel ~10 ms, no part of a Lambda cold start) and is told to go.
async fn run_process(
    command: Command,
    event: &Bytes,
    warm: usize,
    share: Option<&memory::CpuShare>,
) -> Result<ProcessRun, Error> {
    let mut api = RuntimeApi::start().await?;
    let first = api.invoke(event.clone());
    let mut started = Instant::now();
    let mut child = match share {
        Some(_) => api.spawn_with(command, Stdio::piped(), Stdio::null())?,
        None => api.spawn(command)?,
    };
    if let Some(share) = share {
        started = share.release(&mut child).await?;
    }
    let reply = tokio::time::timeout(Duration::from_secs(30), first).await??;
    if !reply.ok {
        return Err(format!(
            "the function failed: {}",
            String::from_utf8_lossy(&reply.body)
        )
        .into());
    }
    let first_response = reply.at - started;
    let cold_cpu = child.id().map_or(Duration::ZERO, cpu_time);
    let init = api.ready_at().map_or(first_response, |at| at - started);
    let mut latencies = Vec::with_capacity(warm);
    for _ in 0..warm {
        let sent = Instant::now();
        let reply = api.invoke(event.clone()).await?;
        latencies.push(reply.at - sent);
    }
    let peak = child.id().map_or(0, peak_rss_kib);
    api.close_and_wait(&mut child).await?;
    Ok(ProcessRun {
        init,
        first_response,
        cold_cpu,
        warm: latencies,
        peak_rss_kib: peak,
    })
}

/// Starts `command` against a Runtime API that never delivers an event: once it asks for its
/// first one (init done), the API closes and the runtime exits. How long init took.
async fn run_init_only(command: Command) -> Result<Duration, Error> {
    let mut api = RuntimeApi::start().await?;
    let started = Instant::now();
    let mut child = api.spawn(command)?;
    let ready = async {
        loop {
            if let Some(at) = api.ready_at() {
                return at;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    };
    let at = tokio::time::timeout(Duration::from_secs(60), ready).await?;
    api.close_and_wait(&mut child).await?;
    Ok(at - started)
}

/// The init targets: what a function that opens one TLS connection needs at most.
const INIT_MS_TARGET: f64 = 3.0;
const INIT_INSTRUCTIONS_TARGET: u64 = 5_000_000;

/// Init of every function: the median of `runs` cold starts (environment read, client built,
/// connection to the engine opened and used once) and, under callgrind, its instructions.
async fn init_section(o: &Options, endpoint: &str, home: &Path) -> Result<(), Error> {
    println!();
    println!(
        "### Init of every function (median of {} cold starts; target ≤ {INIT_MS_TARGET} ms and ≤ {} M instructions)",
        o.runs,
        INIT_INSTRUCTIONS_TARGET / 1_000_000
    );
    println!();
    println!("| function | init ms | init k instructions | within target |");
    println!("|---|---|---|---|");
    // Every function of the template, the stream consumer included.
    for function in local_engine::template::binaries(&local_engine::template::parse()?)? {
        let function = function.as_str();
        let binary = o.bin_dir.join(function);
        let start = |out: Option<&Path>| {
            let mut c = command(&binary, &[], out);
            lambda_environment(&mut c, function, endpoint, home);
            c
        };
        let mut times = Vec::with_capacity(o.runs);
        for _ in 0..o.runs {
            times.push(
                run_init_only(start(None))
                    .await
                    .map_err(|e| format!("{function}: {e}"))?,
            );
        }
        let time = median(times);
        let instructions = if o.callgrind {
            let dir = callgrind_dir()?;
            let total = init_instructions(&dir, |out| start(Some(out))).await?;
            let _ = std::fs::remove_dir_all(&dir);
            Some(total)
        } else {
            None
        };
        let within = time.as_secs_f64() * 1000.0 <= INIT_MS_TARGET
            && instructions.is_none_or(|n| n <= INIT_INSTRUCTIONS_TARGET);
        println!(
            "| {function} | {} | {} | {} |",
            ms(time),
            instructions.map_or("-".into(), |n| format!("{:.0}", n as f64 / 1000.0)),
            if within { "yes" } else { "NO" }
        );
    }
    Ok(())
}

fn callgrind_total(out: &Path) -> Result<u64, Error> {
    let text = std::fs::read_to_string(out)?;
    Ok(text
        .lines()
        .find_map(|l| {
            l.strip_prefix("totals:")
                .or_else(|| l.strip_prefix("summary:"))
        })
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or("callgrind wrote no totals")?)
}

/// Instructions a process executes, counted by callgrind (stable on a busy machine, unlike
/// time): to get ready (init), for its first request, and per warm request.
#[derive(Clone, Copy)]
struct Instructions {
    init: u64,
    first: u64,
    warm: f64,
}

/// Four runs: init only; one request; 20 and 120 more (their difference / 100 is a warm
/// request). What the first request costs beyond a warm one is the one-time work a
/// connection warm-up during init would move there.
async fn count_instructions(
    event: &Bytes,
    make: impl Fn(&Path) -> Command,
) -> Result<Instructions, Error> {
    let dir = callgrind_dir()?;
    let init = init_instructions(&dir, &make).await?;
    let mut totals = Vec::new();
    for (i, warm) in [0usize, 20, 120].into_iter().enumerate() {
        let out = dir.join(format!("run{i}.out"));
        let _ = std::fs::remove_file(&out);
        run_process(make(&out), event, warm, None).await?;
        totals.push(callgrind_total(&out)?);
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Instructions {
        init,
        first: totals[0].saturating_sub(init),
        warm: (totals[2] as f64 - totals[1] as f64) / 100.0,
    })
}

/// A folder of this run's own for callgrind's counts.
fn callgrind_dir() -> Result<std::path::PathBuf, Error> {
    let dir = std::env::temp_dir().join(format!("store-bench-callgrind-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The instructions a function's init executes (the process ends when it asks for an event).
async fn init_instructions(dir: &Path, make: impl Fn(&Path) -> Command) -> Result<u64, Error> {
    let out = dir.join("init.out");
    run_init_only(make(&out)).await?;
    callgrind_total(&out)
}

/// `program args`, or the same under callgrind writing its counts to `callgrind_out`.
fn command(program: &Path, args: &[String], callgrind_out: Option<&Path>) -> Command {
    let mut c = match callgrind_out {
        Some(out) => {
            let mut c = Command::new("valgrind");
            c.arg("--tool=callgrind")
                .arg(format!("--callgrind-out-file={}", out.display()))
                .arg(program);
            c
        }
        None => Command::new(program),
    };
    c.args(args);
    c
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    percentile(&values, 50.0)
}

/// What [`measure`] found: medians of the cold starts, every warm latency (sorted).
struct Series {
    init: Duration,
    first: Duration,
    cold_cpu: Duration,
    warm: Vec<Duration>,
    rss_kib: u64,
}

/// Cold starts `runs` times, each process inside `share` when given, each followed by `warm`
/// requests: the medians of the cold starts, the warm latencies of every run, the largest RSS.
async fn measure(
    share: Option<&memory::CpuShare>,
    runs: usize,
    warm: usize,
    event: &Bytes,
    make: impl Fn() -> Command,
) -> Result<Series, Error> {
    let mut inits = Vec::new();
    let mut firsts = Vec::new();
    let mut cpus = Vec::new();
    let mut warms = Vec::new();
    let mut rss = 0;
    for _ in 0..runs {
        let run = run_process(make(), event, warm, share).await?;
        inits.push(run.init);
        firsts.push(run.first_response);
        cpus.push(run.cold_cpu);
        warms.extend(run.warm);
        rss = rss.max(run.peak_rss_kib);
    }
    warms.sort();
    Ok(Series {
        init: median(inits),
        first: median(firsts),
        cold_cpu: median(cpus),
        warm: warms,
        rss_kib: rss,
    })
}

/// The one SDK request each pattern is, sent alone: the floor for the handler's latency.
async fn raw_request(store: &Store, binary: &str) -> Result<(), AppError> {
    let client = store.client();
    let s = |v: &str| aws_sdk_dynamodb::types::AttributeValue::S(v.to_owned());
    let c1 = CustomerId::parse("c1")?;
    let o100 = OrderId::parse("o100")?;
    let (lo, hi) = order_listing::sk_range(None, None);
    match binary {
        "get-customer" => {
            client
                .get_item()
                .table_name(store.table())
                .key(keys::PK, s(&customer::pk(&c1)))
                .key(keys::SK, s(customer::SORT_KEY))
                .send()
                .await?;
        }
        "list-customer-orders" => {
            client
                .query()
                .table_name(store.table())
                .key_condition_expression("#pk = :pk AND #sk BETWEEN :lo AND :hi")
                .expression_attribute_names("#pk", keys::PK)
                .expression_attribute_names("#sk", keys::SK)
                .expression_attribute_values(":pk", s(&order_listing::pk(&c1)))
                .expression_attribute_values(":lo", s(&lo))
                .expression_attribute_values(":hi", s(&hi))
                .scan_index_forward(false)
                .limit(6)
                .send()
                .await?;
        }
        "get-order-items" => {
            client
                .query()
                .table_name(store.table())
                // The header (the owner) and the lines; a customer's page reads up to 98 items.
                .key_condition_expression("#pk = :pk AND #sk BETWEEN :from AND :to")
                .expression_attribute_names("#pk", keys::PK)
                .expression_attribute_names("#sk", keys::SK)
                .expression_attribute_values(":pk", s(&line_item::pk(&o100)))
                .expression_attribute_values(":from", s(order_header::SORT_KEY))
                .expression_attribute_values(
                    ":to",
                    s(&keys::ORDER_PARTITION
                        .range(keys::Entity::OrderHeader, keys::Entity::LineItem)
                        .1),
                )
                .limit(98)
                .send()
                .await?;
        }
        _ => {
            client
                .query()
                .table_name(store.table())
                .index_name(keys::GSI1)
                .key_condition_expression("#pk = :pk")
                .expression_attribute_names("#pk", keys::GSI1PK)
                .expression_attribute_values(
                    ":pk",
                    s(&order_listing::gsi1pk(OrderStatus::Placed, 0)),
                )
                .limit(11)
                .send()
                .await?;
        }
    }
    Ok(())
}

async fn handler(store: &Store, binary: &str, req: Request) -> Response<Body> {
    match binary {
        "get-customer" => dispatch(store, req, get_customer::handle).await,
        "list-customer-orders" => dispatch(store, req, list_customer_orders::handle).await,
        "get-order-items" => dispatch(store, req, get_order_items::handle).await,
        _ => dispatch(store, req, list_orders_by_status::handle).await,
    }
}

/// What one function's measurements came to.
struct Row {
    name: &'static str,
    rust: Series,
    /// The Python peer, measured the same way.
    python: Option<Series>,
    raw: Vec<Duration>,
    handled: Vec<Duration>,
    requests: BTreeMap<String, usize>,
    /// Instructions per warm request: ours, and the peer's.
    instructions: Option<(Instructions, Option<Instructions>)>,
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Error> {
    let o = options()?;
    let app = TestApp::seeded().await?;
    let endpoint = app.engine.endpoint().to_owned();
    let home = std::env::temp_dir().join("store-bench-home");
    std::fs::create_dir_all(&home)?;
    let events = Path::new(env!("CARGO_MANIFEST_DIR")).join("../events");
    let python_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");

    let mut rows = Vec::new();
    let patterns: &[Pattern] = if o.runs_section("patterns") {
        &PATTERNS
    } else {
        &[]
    };
    for p in patterns {
        let event = Bytes::from(std::fs::read(events.join(p.event))?);
        let binary = o.bin_dir.join(p.binary);
        let peer_args = p.python_args();
        let start = |program: &Path, args: &[String], function: &str, out: Option<&Path>| {
            let mut c = command(program, args, out);
            lambda_environment(&mut c, function, &endpoint, &home);
            c.env("PYTHONPATH", &python_dir)
                .env("PYTHONDONTWRITEBYTECODE", "1");
            c
        };
        let rust = measure(None, o.runs, o.warm, &event, || {
            start(&binary, &[], p.binary, None)
        })
        .await
        .map_err(|e| format!("{}: {e}", p.binary))?;
        let python = match &o.python {
            Some(python) => Some(
                measure(None, o.runs, o.warm, &event, || {
                    start(python, &peer_args, p.python, None)
                })
                .await
                .map_err(|e| format!("python {}: {e}", p.python))?,
            ),
            None => None,
        };

        let instructions = if o.callgrind {
            let rust =
                count_instructions(&event, |out| start(&binary, &[], p.binary, Some(out))).await?;
            let python = match &o.python {
                Some(python) => Some(
                    count_instructions(&event, |out| {
                        start(python, &peer_args, p.python, Some(out))
                    })
                    .await?,
                ),
                None => None,
            };
            Some((rust, python))
        } else {
            None
        };

        // In process: the handler (event parsing included) against the bare SDK request, in
        // alternating order so that neither always runs just after the other's engine work.
        let text = String::from_utf8_lossy(&event).into_owned();
        let mut raw = Vec::new();
        let mut handled = Vec::new();
        for i in 0..IN_PROCESS_PAIRS {
            for handler_turn in [i % 2 == 1, i % 2 == 0] {
                let t = Instant::now();
                if handler_turn {
                    let req =
                        shared::http::gateway::request_from_json(&text, &StaffClients::from_env())?;
                    let response = handler(&app.store, p.binary, req).await;
                    handled.push(t.elapsed());
                    assert_eq!(response.status(), 200, "{}", p.binary);
                } else {
                    raw_request(&app.store, p.binary).await?;
                    raw.push(t.elapsed());
                }
            }
        }
        app.requests.reset();
        handler(
            &app.store,
            p.binary,
            shared::http::gateway::request_from_json(&text, &StaffClients::from_env())?,
        )
        .await;
        let requests: BTreeMap<String, usize> = app.requests.by_operation();
        raw.sort();
        handled.sort();
        rows.push(Row {
            name: p.binary,
            rust,
            python,
            raw,
            handled,
            requests,
            instructions,
        });
    }

    if !rows.is_empty() {
        print_pattern_rows(&o, &rows);
    }
    if o.runs_section("init") {
        init_section(&o, &endpoint, &home).await?;
    }
    if o.runs_section("capacity") {
        capacity::section().await?;
    }
    if o.runs_section("shards") {
        status_shard_section(&o, &home).await?;
    }
    if o.runs_section("memory") {
        memory::section(&o, &endpoint, &home).await?;
    }
    if !o.size_dirs.is_empty() {
        println!();
        println!(
            "| function | {} |",
            o.size_dirs
                .iter()
                .map(|(arch, _)| format!("stripped {arch} MB"))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        println!("|---|{}", "---|".repeat(o.size_dirs.len()));
        for p in &PATTERNS {
            let sizes: Vec<String> = o
                .size_dirs
                .iter()
                .map(|(_, dir)| {
                    std::fs::metadata(dir.join(p.binary).join("bootstrap"))
                        .map_or("-".into(), |m| {
                            format!("{:.2}", m.len() as f64 / 1_000_000.0)
                        })
                })
                .collect();
            println!("| {} | {} |", p.binary, sizes.join(" | "));
        }
    }
    Ok(())
}

/// The patterns section's tables: times, RSS and the Python peer; instructions under callgrind.
fn print_pattern_rows(o: &Options, rows: &[Row]) {
    println!(
        "\n## store-bench: {} cold starts and {} warm invocations per function, one engine",
        o.runs,
        o.runs * o.warm
    );
    println!();
    println!(
        "| function | init ms | cold 1st response ms | warm p50 / p99 ms | peak RSS MiB | Python init ms | Python cold 1st ms | Python warm p50 / p99 ms | Python RSS MiB | cold ×faster | RSS ×smaller | in-process raw p50 / p99 ms | handler p50 / p99 ms | overhead p50 | requests |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for Row {
        name,
        rust,
        python,
        raw,
        handled,
        requests,
        ..
    } in rows
    {
        let (py_init, py_first, py_warm, py_rss) = match python {
            Some(py) => (
                ms(py.init),
                ms(py.first),
                format!(
                    "{} / {}",
                    ms(percentile(&py.warm, 50.0)),
                    ms(percentile(&py.warm, 99.0))
                ),
                format!("{:.1}", py.rss_kib as f64 / 1024.0),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        let ratio_cold = python.as_ref().map_or("-".into(), |py| {
            format!("{:.1}", py.first.as_secs_f64() / rust.first.as_secs_f64())
        });
        let ratio_rss = python.as_ref().map_or("-".into(), |py| {
            format!("{:.1}", py.rss_kib as f64 / rust.rss_kib.max(1) as f64)
        });
        let overhead =
            percentile(handled, 50.0).as_secs_f64() / percentile(raw, 50.0).as_secs_f64() - 1.0;
        let requests: Vec<String> = requests.iter().map(|(op, n)| format!("{n} {op}")).collect();
        println!(
            "| {name} | {} | {} | {} / {} | {:.1} | {py_init} | {py_first} | {py_warm} | {py_rss} | {ratio_cold} | {ratio_rss} | {} / {} | {} / {} | {:+.1}% | {} |",
            ms(rust.init),
            ms(rust.first),
            ms(percentile(&rust.warm, 50.0)),
            ms(percentile(&rust.warm, 99.0)),
            rust.rss_kib as f64 / 1024.0,
            ms(percentile(raw, 50.0)),
            ms(percentile(raw, 99.0)),
            ms(percentile(handled, 50.0)),
            ms(percentile(handled, 99.0)),
            overhead * 100.0,
            requests.join(", ")
        );
    }
    if o.callgrind {
        println!();
        println!(
            "| function | init k instr | first request k instr | warm request k instr | Python init / first / warm k instr | warm ×fewer | first request beyond a warm one, k instr |"
        );
        println!("|---|---|---|---|---|---|---|");
        let k = |n: f64| format!("{:.0}", n / 1000.0);
        for row in rows {
            if let Some((rust, python)) = row.instructions {
                let py = python.map_or("-".into(), |p| {
                    format!(
                        "{} / {} / {}",
                        k(p.init as f64),
                        k(p.first as f64),
                        k(p.warm)
                    )
                });
                let ratio = python.map_or("-".into(), |p| format!("{:.1}", p.warm / rust.warm));
                println!(
                    "| {} | {} | {} | {} | {py} | {ratio} | {} |",
                    row.name,
                    k(rust.init as f64),
                    k(rust.first as f64),
                    k(rust.warm),
                    k(rust.first as f64 - rust.warm)
                );
            }
        }
    }
}

/// list-orders-by-status with its orders in 1 and in 8 status shards: Queries per page and
/// how many went at once, warm latency of the release binary, read units per page as billed;
/// then the write side as arithmetic.
async fn status_shard_section(o: &Options, home: &Path) -> Result<(), Error> {
    let events = Path::new(env!("CARGO_MANIFEST_DIR")).join("../events");
    let sample = std::fs::read_to_string(events.join("list-orders-by-status.json"))?;
    // A page of 25, as a client would ask.
    let event = Bytes::from(
        sample
            .replace("limit=10", "limit=25")
            .replace("\"limit\": \"10\"", "\"limit\": \"25\""),
    );
    let text = String::from_utf8_lossy(&event).into_owned();
    let binary = o.bin_dir.join("list-orders-by-status");
    let mut rows = Vec::new();
    for n in [1, 8] {
        let count = keys::StatusShards::new(n)?;
        let engine = shards::engine_with_orders(count).await?;
        let endpoint = engine.endpoint().to_owned();
        let warm = measure(None, o.runs.min(3), o.warm, &event, || {
            let mut c = command(&binary, &[], None);
            lambda_environment(&mut c, "list-orders-by-status", &endpoint, home);
            c.env("STATUS_SHARDS", n.to_string());
            c
        })
        .await
        .map_err(|e| format!("list-orders-by-status with {n} shards: {e}"))?
        .warm;
        // In process: walk 20 pages, counting Queries and metering what they read.
        let (store, counter, meter) = shards::metered_store(&engine, count);
        let mut requests = Vec::new();
        let mut at_once = Vec::new();
        let mut units = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..20 {
            let mut req_text = text.clone();
            if let Some(c) = &cursor {
                req_text = req_text.replace("limit=25", &format!("limit=25&cursor={c}"));
            }
            counter.reset();
            meter.take();
            let response = handler(
                &store,
                "list-orders-by-status",
                shared::http::gateway::request_from_json(&req_text, &StaffClients::from_env())?,
            )
            .await;
            let body: serde_json::Value = match response.body() {
                Body::Text(t) => serde_json::from_str(t)?,
                _ => serde_json::Value::Null,
            };
            requests.push(counter.total());
            at_once.push(counter.most_at_once());
            units.push(
                meter
                    .take()
                    .into_iter()
                    .map(shards::read_units)
                    .sum::<f64>(),
            );
            cursor = body["nextCursor"].as_str().map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        // The same first page over a modelled network: each request waits the round trip
        // DynamoDB has in a region (the loopback engine has none, and answers one at a time).
        let faults = local_engine::faults::Faults::default();
        faults.with_latency(shards::ROUND_TRIP);
        let (client, _) = engine.faulty_client(&faults);
        let remote = Store::new(client, local_engine::LOCAL_TABLE).with_status_shards(count);
        let mut over_network = Vec::new();
        for _ in 0..o.warm.min(200) {
            let t = Instant::now();
            let response = handler(
                &remote,
                "list-orders-by-status",
                shared::http::gateway::request_from_json(&text, &StaffClients::from_env())?,
            )
            .await;
            over_network.push(t.elapsed());
            assert_eq!(response.status(), 200);
        }
        over_network.sort();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        rows.push((
            n,
            mean(&requests.iter().map(|r| *r as f64).collect::<Vec<_>>()),
            at_once.iter().copied().max().unwrap_or(0),
            percentile(&warm, 50.0),
            percentile(&warm, 99.0),
            mean(&units),
            percentile(&over_network, 50.0),
        ));
    }
    println!();
    println!(
        "### Orders by status over status shards ({} PLACED orders, pages of 25; the engine answers one request at a time)",
        shards::ORDERS
    );
    println!();
    println!(
        "| shards | Queries per page (most at once) | warm p50 / p99 ms, loopback engine | p50 vs 1 shard | p50 ms with a {} ms round trip | vs 1 shard | read units per page (as billed) |",
        shards::ROUND_TRIP.as_millis()
    );
    println!("|---|---|---|---|---|---|---|");
    let base = rows.first().map_or(1.0, |r| r.3.as_secs_f64());
    let base_network = rows.first().map_or(1.0, |r| r.6.as_secs_f64());
    for (n, requests, at_once, p50, p99, units, network) in &rows {
        println!(
            "| {n} | {requests:.2} ({at_once}) | {} / {} | {:.2}x | {} | {:.2}x | {units:.2} |",
            ms(*p50),
            ms(*p99),
            p50.as_secs_f64() / base,
            ms(*network),
            network.as_secs_f64() / base_network
        );
    }
    println!();
    println!(
        "Write side at 5,000 orders/s (each new order is one GSI1 write unit in STATUS#PLACED[#k], k = FNV-1a(orderId) mod N; DynamoDB takes about 1,000 write units/s per partition key):"
    );
    for n in [1, 8] {
        let hottest = shards::hottest_partition_writes(5_000.0, n);
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
    Ok(())
}
