//! The CFS period beside the bench's: the throttle's shape a CPU-bound process meets under each,
//! and every runtime's on-demand cold start at the smallest size under the kernel's 100 ms (the
//! model before the public trace's), kept for comparison (docs/performance.md, "Cold starts as
//! Lambda runs them").

use std::path::Path;

use local_engine::runtime_api::Error;

use super::{Measured, Peers, Size, Start};
use crate::cpu_share::CpuShare;
use crate::process::{ProcessRun, Series, run_process};

/// The throttle's shape a CPU-bound process meets at the smallest size, under the section's
/// period and the kernel's, beside the public trace's.
pub(super) async fn print_shapes(sizes: &[Size]) -> Result<(), Error> {
    let Some(smallest) = sizes.iter().min_by_key(|s| s.memory_mb()) else {
        return Ok(());
    };
    let kernel = CpuShare::create(smallest.memory_mb(), crate::cpu_share::KERNEL_PERIOD_US)?;
    for share in [&smallest.quota, &kernel] {
        let shape = crate::cpu_share::throttle_shape(share).await?;
        println!(
            "- Throttle at {} MB, {} ms period: a CPU-bound process runs {:.2} ms of CPU (median; the first run {:.2} ms), then pauses; one cycle every {:.1} ms (median, {} pauses in {} s). The public trace of a 128 MB Lambda function (pwrdrvr/lambda-throttling, 2025-03-01): 4.32 ms, the first 6.88 ms; one cycle every 60 ms.",
            share.memory_mb,
            share.period_us / 1000,
            shape.run_ms,
            shape.first_ms,
            shape.cycle_ms,
            shape.pauses,
            crate::cpu_share::PROBE_WINDOW.as_secs(),
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
