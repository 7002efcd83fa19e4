//! The init of every function: the median of its cold starts and, under callgrind, its
//! instructions, against the targets.

use crate::callgrind::{callgrind_dir, init_instructions};
use crate::cli::Options;
use crate::process::{command, median, run_init_only};
use crate::report::ms;
use local_engine::runtime_api::{Error, lambda_environment};
use std::path::Path;

/// The init targets: what a function that opens one TLS connection needs at most.
pub(crate) const INIT_MS_TARGET: f64 = 3.0;
pub(crate) const INIT_INSTRUCTIONS_TARGET: u64 = 5_000_000;
/// Init of every function: the median of `runs` cold starts (environment read, client built,
/// connection to the engine opened and used once) and, under callgrind, its instructions.
pub(crate) async fn section(o: &Options, endpoint: &str, home: &Path) -> Result<(), Error> {
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
            // The webhook's secret and the provider's key as `sam local invoke` gives them
            // (local/sam-env.json); deployed, their inits read them from Secrets Manager instead,
            // one request more. An on-demand init opens no connection to the provider, so its
            // address is one where nothing listens.
            c.env("PAYMENT_WEBHOOK_SECRET", "whsec_bench_only")
                .env("PAYMENT_API_KEY", local_engine::provider::LOCAL_API_KEY)
                .env("PAYMENT_API_BASE", "http://127.0.0.1:9");
            // The publisher's and the emails' settings, as the template gives them (their
            // clients are built at init; an on-demand init sends them nothing).
            c.env("EVENT_BUS_NAME", "store-events")
                .env("LOW_STOCK_THRESHOLD", "5")
                .env(
                    "FAILURE_QUEUE_URL",
                    "http://127.0.0.1:9/123456789012/failures",
                )
                .env("EMAIL_SENDER", "orders@rust-store.example");
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
