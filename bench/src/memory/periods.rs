//! The CFS period beside the bench's: the throttle's shape a CPU-bound process meets under each,
//! and every runtime's on-demand cold start at the smallest size under the kernel's 100 ms (the
//! model before the public trace's), kept for comparison (docs/performance.md, "Cold starts as
//! Lambda runs them").

use std::path::Path;
use std::time::Duration;

use local_engine::runtime_api::Error;

use super::{Measured, Peers, Size, Start};
use crate::cpu_share::CpuShare;
use crate::process::{ProcessRun, Series, median, run_process};
use crate::report::millis;

/// The throttle's shape a CPU-bound process meets at the smallest size, under the section's
/// period and the kernel's, beside the public trace's.
pub(super) async fn print_shapes(sizes: &[Size]) -> Result<(), Error> {
    let Some(smallest) = sizes.iter().min_by_key(|s| s.memory_mb()) else {
        return Ok(());
    };
    let kernel = CpuShare::create(smallest.memory_mb(), crate::cpu_share::KERNEL_PERIOD_US)?;
    for share in [&smallest.quota, &kernel] {
        let shape = throttle_shape(share).await?;
        println!(
            "- Throttle at {} MB, {} ms period: a CPU-bound process runs {:.2} ms of CPU (median; the first run {:.2} ms), then pauses; one cycle every {:.1} ms (median, {} pauses in {} s). The public trace of a 128 MB Lambda function (pwrdrvr/lambda-throttling, 2025-03-01): 4.32 ms, the first 6.88 ms; one cycle every 60 ms.",
            share.memory_mb,
            share.period_us / 1000,
            shape.run_ms,
            shape.first_ms,
            shape.cycle_ms,
            shape.pauses,
            PROBE_WINDOW.as_secs(),
        );
    }
    Ok(())
}

/// Every runtime's on-demand cold start at the smallest size under the kernel's 100 ms period,
/// [`KERNEL_PERIOD_RUNS`] interleaved a row: the figures of the model before the trace's.
pub(super) async fn kernel_period(
    o: &crate::cli::Options,
    peers: &Peers,
    home: &Path,
) -> Result<Vec<Measured>, Error> {
    let Some(&smallest) = o.memory_sizes.iter().min() else {
        return Ok(Vec::new());
    };
    let size = Size::create(smallest, crate::cpu_share::KERNEL_PERIOD_US)
        .map_err(|why| format!("the kernel's period: {why}"))?;
    let mut measured = Vec::new();
    for pattern in &crate::cli::PATTERNS {
        let event = pattern.event_bytes()?;
        let events = || event.clone();
        let mut runs: Vec<Vec<ProcessRun>> = peers.runtimes.iter().map(|_| Vec::new()).collect();
        for _ in 0..KERNEL_PERIOD_RUNS {
            for (&(runtime, _), done) in peers.runtimes.iter().zip(&mut runs) {
                let start = Start {
                    runtime,
                    launch: &size.burst,
                    init_type: crate::process::ON_DEMAND,
                    pattern,
                    hello: false,
                };
                let command = peers.command(o, &start, home);
                done.push(run_process(command, &events, 0, size.on_demand()).await?);
            }
        }
        for (&(runtime, _), done) in peers.runtimes.iter().zip(runs) {
            measured.push(Measured {
                function: pattern.binary,
                runtime,
                memory_mb: smallest,
                on_demand: Series::of(done),
                provisioned: Series::of(Vec::new()),
            });
        }
    }
    Ok(measured)
}

/// On-demand cold starts per row under the kernel's period, kept for comparison.
const KERNEL_PERIOD_RUNS: usize = 5;

/// The argument that makes store-bench the throttle's probe ([`probe`]) instead of the bench.
pub(crate) const PROBE: &str = "--throttle-probe";

/// How long the probe keeps its CPU busy.
const PROBE_WINDOW: Duration = Duration::from_secs(2);

/// What a CPU-bound process meets under a share: the bench's own binary, started as the probe
/// inside `share`, spins for [`PROBE_WINDOW`] and notes every pause; the median CPU it runs
/// between pauses, the median wall time from one pause to the next, and its first run.
async fn throttle_shape(share: &CpuShare) -> Result<Shape, Error> {
    let mut child = share
        .command(&std::env::current_exe()?, &[PROBE.to_owned()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    share.release(&mut child).await?;
    let output = child.wait_with_output().await?;
    let line = String::from_utf8_lossy(&output.stdout);
    let numbers: Vec<f64> = line
        .split_whitespace()
        .filter_map(|n| n.parse().ok())
        .collect();
    match numbers[..] {
        [run_ms, cycle_ms, first_ms, pauses] => Ok(Shape {
            run_ms,
            cycle_ms,
            first_ms,
            pauses: pauses as usize,
        }),
        _ => Err(format!("the throttle probe printed {line:?}").into()),
    }
}

/// A CPU-bound process's life under a share ([`throttle_shape`]).
struct Shape {
    /// CPU between two pauses, median, ms.
    run_ms: f64,
    /// Wall time from one pause's start to the next's, median, ms.
    cycle_ms: f64,
    /// CPU before the first pause, ms.
    first_ms: f64,
    pauses: usize,
}

/// The probe itself (store-bench [`PROBE`]): spins, and counts a gap of more than 2 ms between
/// two readings of the clock as a pause. Prints the median CPU between pauses, the median cycle,
/// the first run (ms) and the number of pauses.
pub(crate) fn probe() {
    let thread_cpu = || crate::usage::task_cpu(Path::new("/proc/thread-self"));
    let started = std::time::Instant::now();
    let (mut last, mut cpu_then) = (started, thread_cpu());
    let (mut runs, mut pauses_at) = (Vec::new(), Vec::new());
    while last - started < PROBE_WINDOW {
        let now = std::time::Instant::now();
        if now - last > Duration::from_millis(2) {
            let cpu = thread_cpu();
            runs.push(cpu.saturating_sub(cpu_then));
            pauses_at.push(last);
            cpu_then = cpu;
        }
        last = now;
    }
    let first = runs.first().copied().unwrap_or_default();
    let cycles: Vec<Duration> = pauses_at.windows(2).map(|w| w[1] - w[0]).collect();
    let runs = runs.get(1..).unwrap_or_default().to_vec();
    println!(
        "{:.3} {:.3} {:.3} {}",
        millis(median(runs)),
        millis(median(cycles)),
        millis(first),
        pauses_at.len()
    );
}
