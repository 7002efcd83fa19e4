//! `make bench`: the release Lambdas measured beside the source design's boto3 code, on one embedded
//! engine, in one run. Prints one table per section; the method is in docs/performance.md.
//!
//! Usage: store-bench --bin-dir DIR [--python PATH] [--node PATH] [--runs N] [--warm N]
//!                    [--callgrind] [--size-dir-arm64 DIR] [--size-dir-x86-64 DIR]
//!                    [--memory-sizes MB,MB,...] [--memory-runs N] [--memory-warm N]
//!                    [--calibration-rtt-ms MS] [--checkout-runs N] [--cpu-period-ms MS]
//!                    [--functions NAME,...]
//!                    [--flash-scale K] [--flash-seconds S] [--flash-service-ms MS]
//!                    [--only patterns,init,capacity,shards,webhook,memory,checkout-cold,events,flash-sale]

mod callgrind;
mod capacity;
mod checkout_cold;
mod cli;
mod cpu_share;
mod events_flow;
mod flash_sale;
mod http;
mod init;
mod memory;
mod patterns;
mod perf_split;
mod process;
mod report;
mod resolver;
mod sections;
mod shards;
mod tls_front;
mod usage;
mod webhook;

use local_engine::runtime_api::Error;
use local_engine::testing::TestApp;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Error> {
    if std::env::args().nth(1).as_deref() == Some(memory::periods::PROBE) {
        memory::periods::probe();
        return Ok(());
    }
    let o = cli::options()?;
    let app = TestApp::seeded().await?;
    let endpoint = app.engine.endpoint().to_owned();
    let home = std::env::temp_dir().join("store-bench-home");
    std::fs::create_dir_all(&home)?;
    if o.runs_section("patterns") {
        let rows = patterns::section(&o, &app, &endpoint, &home).await?;
        report::print_pattern_rows(&o, &rows);
    }
    if o.runs_section("init") {
        init::section(&o, &endpoint, &home).await?;
    }
    if o.runs_section("capacity") {
        capacity::section().await?;
    }
    if o.runs_section("shards") {
        shards::section(&o, &home).await?;
    }
    if o.runs_section("webhook") {
        webhook::section();
    }
    if o.runs_section("memory") {
        memory::section(&o, &endpoint, &home).await?;
    }
    if o.runs_section("checkout-cold") {
        checkout_cold::section(&o, &home).await?;
    }
    if o.runs_section("events") {
        events_flow::section(&o).await?;
    }
    if o.runs_section("flash-sale") {
        flash_sale::section(&o, &home).await?;
    }
    report::print_sizes(&o);
    Ok(())
}
