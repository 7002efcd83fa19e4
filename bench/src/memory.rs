//! Cold starts and warm latency as Lambda's memory setting runs them (`--only memory`): each
//! function and each peer inside a CPU quota equal to Lambda's share for a memory size, its
//! every connection to the engine over TLS (`tls_front`), then what a million warm requests
//! cost at each size. docs/performance.md, "Memory size", says what this models and what not.
//!
//! **The share.** Lambda gives a function CPU in proportion to its memory: one vCPU at 1,769 MB.
//! Here that is a CFS bandwidth quota on a cgroup of the function's process: `quota = period ×
//! memory / 1769`. The period is the kernel's default, 100 ms, which is also what container
//! runtimes use for `--cpus`; Lambda does not publish its own. With it a 128 MB function may run
//! 7.2 ms in every 100 ms: a cold start that needs less CPU than that is not slowed at all, one
//! that needs more waits ~93 ms for every 7.2 ms it runs. The process is started by `sh` writing
//! its PID to the cgroup and then exec'ing the runtime, so init runs inside the quota from its
//! first instruction, pinned to one CPU (`taskset`: the quota reaches each CPU in 5 ms slices,
//! and runtime left on one CPU while the process runs on the other would throttle it short of
//! its share). The clock starts when `sh` has joined (the kernel takes ~10 ms to move a
//! process between v1 cgroups, which no Lambda cold start pays) and is told to go.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::process::Command;

use local_engine::runtime_api::Error;

use crate::cpu_share::{CpuShare, PERIOD_US};

/// Lambda prices, arm64, us-east-1 (2026-11): per GB-second of billed duration (first tier) and
/// per request.
pub(crate) const PRICE_PER_GB_SECOND: f64 = 0.000_013_333_4;
pub(crate) const PRICE_PER_REQUEST: f64 = 0.20 / 1_000_000.0;

/// What a million warm requests cost at `memory_mb` when they take `warm` (each billed rounded up
/// to the millisecond), US dollars.
pub(crate) fn cost_per_million(memory_mb: u32, warm: &[Duration]) -> f64 {
    if warm.is_empty() {
        return 0.0;
    }
    let billed_ms: f64 = warm
        .iter()
        .map(|d| (d.as_secs_f64() * 1000.0).ceil().max(1.0))
        .sum::<f64>()
        / warm.len() as f64;
    let gb_seconds = f64::from(memory_mb) / 1024.0 * billed_ms / 1000.0;
    (gb_seconds * PRICE_PER_GB_SECOND + PRICE_PER_REQUEST) * 1_000_000.0
}

/// A runtime measured: this store's binary, or a peer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runtime {
    Rust,
    Python,
    Node,
}

impl Runtime {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Runtime::Rust => "Rust",
            Runtime::Python => "Python 3 + boto3",
            Runtime::Node => "Node.js 22 + SDK v3",
        }
    }
}

/// One function (or peer) measured at one memory size.
struct Measured {
    function: &'static str,
    runtime: Runtime,
    memory_mb: u32,
    series: crate::process::Series,
    /// Of a million warm requests, US dollars.
    cost: f64,
}

/// The section: every read function, and each peer configured, at every size.
pub(crate) async fn section(
    o: &crate::cli::Options,
    engine: &str,
    home: &Path,
) -> Result<(), Error> {
    println!();
    println!(
        "### Memory size: Lambda's CPU share (CFS quota, {} ms period), TLS to the engine, {} cold starts and {} warm requests each",
        PERIOD_US / 1000,
        o.memory_runs,
        o.memory_runs * o.memory_warm
    );
    println!();
    let mut shares = Vec::new();
    for &size in &o.memory_sizes {
        match CpuShare::create(size) {
            Ok(share) => shares.push(share),
            Err(why) => {
                println!(
                    "Skipped: the CPU quota cannot be set here ({why}). Nothing is reported rather than figures at a full core."
                );
                return Ok(());
            }
        }
    }
    let endpoint = crate::tls_front::start(engine).await?;
    if o.callgrind {
        tls_instructions(o, engine, &endpoint, home).await?;
    }
    let root = crate::tls_front::tls_dir().join("root.pem");
    let mut runtimes = vec![(Runtime::Rust, PathBuf::new())];
    runtimes.extend(o.python.clone().map(|p| (Runtime::Python, p)));
    runtimes.extend(o.node.clone().map(|p| (Runtime::Node, p)));
    let mut measured = Vec::new();
    for share in &shares {
        measure_share(o, share, &runtimes, &endpoint, &root, home, &mut measured).await?;
        let (times, throttled) = share.throttled();
        println!(
            "- {} MB: quota {} µs per {} µs; throttled {times} times, {:.1} s in all",
            share.memory_mb,
            CpuShare::quota_us(share.memory_mb),
            PERIOD_US,
            throttled.as_secs_f64()
        );
    }
    print_table(&measured);
    print_targets(&measured, &o.memory_sizes);
    Ok(())
}

/// Every pattern, for every runtime, under `share`.
async fn measure_share(
    o: &crate::cli::Options,
    share: &CpuShare,
    runtimes: &[(Runtime, PathBuf)],
    endpoint: &str,
    root: &Path,
    home: &Path,
    measured: &mut Vec<Measured>,
) -> Result<(), Error> {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
    for pattern in &crate::cli::PATTERNS {
        let event =
            axum::body::Bytes::from(std::fs::read(bench.join("../events").join(pattern.event))?);
        for (runtime, program) in runtimes {
            let make = || {
                let peer = Peer {
                    runtime: *runtime,
                    program,
                    endpoint,
                    root,
                };
                peer.command(o, share, pattern, home)
            };
            let series =
                crate::process::measure(Some(share), o.memory_runs, o.memory_warm, &event, make)
                    .await
                    .map_err(|e| {
                        format!(
                            "{} {} at {} MB: {e}",
                            runtime.name(),
                            pattern.binary,
                            share.memory_mb
                        )
                    })?;
            let cost = cost_per_million(share.memory_mb, &series.warm);
            measured.push(Measured {
                function: pattern.binary,
                runtime: *runtime,
                memory_mb: share.memory_mb,
                series,
                cost,
            });
        }
    }
    Ok(())
}

/// One runtime's process for a pattern, as the section starts it.
struct Peer<'a> {
    runtime: Runtime,
    /// The interpreter of a peer (Python, Node.js); unused for Rust.
    program: &'a Path,
    endpoint: &'a str,
    /// The TLS test root, which the peers are told to trust.
    root: &'a Path,
}

impl Peer<'_> {
    /// `pattern`'s process in `share`, with Lambda's environment for its memory size.
    fn command(
        &self,
        o: &crate::cli::Options,
        share: &CpuShare,
        pattern: &crate::cli::Pattern,
        home: &Path,
    ) -> Command {
        let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
        let (program, args, name) = match self.runtime {
            Runtime::Rust => (o.bin_dir.join(pattern.binary), vec![], pattern.binary),
            Runtime::Python => (
                self.program.to_path_buf(),
                pattern.python_args(),
                pattern.python,
            ),
            Runtime::Node => (
                self.program.to_path_buf(),
                vec![bench.join("node/runtime.mjs").display().to_string()],
                pattern.node,
            ),
        };
        let mut c = share.command(&program, &args);
        local_engine::runtime_api::lambda_environment(&mut c, name, self.endpoint, home);
        c.env(
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
            share.memory_mb.to_string(),
        )
        .env("PYTHONPATH", bench.join("python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("AWS_CA_BUNDLE", self.root)
        .env("NODE_EXTRA_CA_CERTS", self.root)
        .env("_HANDLER", format!("handlers.{}", pattern.node));
        c
    }
}

fn print_table(measured: &[Measured]) {
    println!();
    println!(
        "| function | runtime | memory MB | init ms | cold 1st response ms | its CPU ms | warm p50 / p99 ms | $ per million warm requests |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for m in measured {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} / {} | {:.3} |",
            m.function,
            m.runtime.name(),
            m.memory_mb,
            crate::report::ms(m.series.init),
            crate::report::ms(m.series.first),
            crate::report::ms(m.series.cold_cpu),
            crate::report::ms(crate::process::percentile(&m.series.warm, 50.0)),
            crate::report::ms(crate::process::percentile(&m.series.warm, 99.0)),
            m.cost
        );
    }
}

/// The mean over the functions of `runtime` at `size` of `value`.
fn mean(
    measured: &[Measured],
    runtime: Runtime,
    size: u32,
    value: impl Fn(&Measured) -> f64,
) -> Option<f64> {
    let values: Vec<f64> = measured
        .iter()
        .filter(|m| m.runtime == runtime && m.memory_mb == size)
        .map(value)
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn print_targets(measured: &[Measured], sizes: &[u32]) {
    let at =
        |m: &Measured, runtime: Runtime, size: u32| m.runtime == runtime && m.memory_mb == size;
    let secs = |d: Duration| d.as_secs_f64();
    println!();
    println!(
        "| runtime | memory MB | mean cold 1st ms | mean warm p50 ms | mean $ per million warm |"
    );
    println!("|---|---|---|---|---|");
    for runtime in [Runtime::Rust, Runtime::Python, Runtime::Node] {
        for &size in sizes {
            let (Some(first), Some(warm), Some(cost)) = (
                mean(measured, runtime, size, |m| secs(m.series.first) * 1000.0),
                mean(measured, runtime, size, |m| {
                    secs(crate::process::percentile(&m.series.warm, 50.0)) * 1000.0
                }),
                mean(measured, runtime, size, |m| m.cost),
            ) else {
                continue;
            };
            println!(
                "| {} | {size} | {first:.2} | {warm:.2} | {cost:.3} |",
                runtime.name()
            );
        }
    }
    let Some(&smallest) = sizes.iter().min() else {
        return;
    };
    let largest = sizes.iter().copied().max().unwrap_or(smallest);
    println!();
    for m in measured.iter().filter(|m| at(m, Runtime::Rust, smallest)) {
        let ratio = |peer: Runtime| {
            measured
                .iter()
                .find(|o| o.function == m.function && at(o, peer, smallest))
                .map(|o| secs(o.series.first) / secs(m.series.first))
        };
        let full = measured
            .iter()
            .find(|o| o.function == m.function && at(o, Runtime::Rust, largest));
        let warm_ratio = full.map(|f| {
            secs(crate::process::percentile(&m.series.warm, 50.0))
                / secs(crate::process::percentile(&f.series.warm, 50.0))
        });
        let yes = |ok: bool| if ok { "yes" } else { "NO" };
        println!(
            "- {} at {smallest} MB: cold 1st {} ms (≤ 25: {}); ×{} vs Python, ×{} vs Node.js (≥ 50: {}); warm p50 ×{} of {largest} MB's (≤ 2: {})",
            m.function,
            crate::report::ms(m.series.first),
            yes(secs(m.series.first) * 1000.0 <= 25.0),
            ratio(Runtime::Python).map_or("-".into(), |r| format!("{r:.0}")),
            ratio(Runtime::Node).map_or("-".into(), |r| format!("{r:.0}")),
            yes([ratio(Runtime::Python), ratio(Runtime::Node)]
                .iter()
                .flatten()
                .all(|r| *r >= 50.0)),
            warm_ratio.map_or("-".into(), |r| format!("{r:.2}")),
            yes(warm_ratio.is_none_or(|r| r <= 2.0)),
        );
    }
    let best = |value: &dyn Fn(&Measured) -> f64| {
        sizes
            .iter()
            .filter_map(|&s| mean(measured, Runtime::Rust, s, value).map(|v| (s, v)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    };
    if let (Some((cheapest, cost)), Some((fastest, first))) =
        (best(&|m| m.cost), best(&|m| secs(m.series.first) * 1000.0))
    {
        println!();
        println!(
            "The store's functions cost least at {cheapest} MB (${cost:.3} per million warm requests, the mean of the four) and start fastest at {fastest} MB (cold 1st {first:.2} ms)."
        );
    }
}

/// What the TLS handshake adds to each function's init, in instructions (callgrind, a full
/// core): init against the engine over plain HTTP and over the TLS endpoint.
pub(crate) async fn tls_instructions(
    o: &crate::cli::Options,
    plain: &str,
    tls: &str,
    home: &Path,
) -> Result<(), Error> {
    println!();
    println!(
        "| function | init k instructions, plain HTTP | init k instructions, TLS | the handshake's share |"
    );
    println!("|---|---|---|---|");
    for pattern in &crate::cli::PATTERNS {
        let binary = o.bin_dir.join(pattern.binary);
        let mut counts = Vec::new();
        for endpoint in [plain, tls] {
            let dir = crate::callgrind::callgrind_dir()?;
            counts.push(
                crate::callgrind::init_instructions(&dir, |out| {
                    let mut c = crate::process::command(&binary, &[], Some(out));
                    local_engine::runtime_api::lambda_environment(
                        &mut c,
                        pattern.binary,
                        endpoint,
                        home,
                    );
                    c
                })
                .await?,
            );
            let _ = std::fs::remove_dir_all(&dir);
        }
        let (plain, tls) = (counts[0] as f64, counts[1] as f64);
        println!(
            "| {} | {:.0} | {:.0} | {:.0}% |",
            pattern.binary,
            plain / 1000.0,
            tls / 1000.0,
            (tls - plain) / tls * 100.0
        );
    }
    Ok(())
}
