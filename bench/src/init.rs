//! The init of every function beside the floor's (`store-floor`, the least a function could do):
//! the median of its cold starts, where its CPU went (exact CPU time; the user/kernel split by
//! `perf`'s samples; page faults, context switches, threads, all read from `/proc` at the first
//! `GET /invocation/next`), its binary's sections and, under callgrind, its instructions,
//! against the targets.

use crate::callgrind::{callgrind_dir, init_instructions};
use crate::cli::Options;
use crate::perf_split::Split;
use crate::process::{Under, command_under, median, run_init_only};
use crate::report::millis;
use crate::report::ms;
use crate::sections::Sections;
use crate::usage::Usage;
use local_engine::runtime_api::{Error, lambda_environment};
use std::path::Path;
use std::time::Duration;

/// The init targets: what a function that opens one TLS connection needs at most.
pub(crate) const INIT_MS_TARGET: f64 = 3.0;
pub(crate) const INIT_INSTRUCTIONS_TARGET: u64 = 5_000_000;
/// Init's CPU on the burst (a whole CPU), every thread, user and kernel.
pub(crate) const INIT_CPU_MS_TARGET: f64 = 1.5;
/// How many times the floor's a function's init CPU and cold start may be.
pub(crate) const FLOOR_RATIO_TARGET: f64 = 1.5;
/// The floor's binary (bench/src/floor.rs).
pub(crate) const FLOOR: &str = "store-floor";
/// The floor with the SDK's client in it (bench/src/floor_sdk.rs).
pub(crate) const FLOOR_SDK: &str = "store-floor-sdk";

/// One binary's init, measured.
struct Init {
    time: Duration,
    usage: Usage,
    split: Option<Split>,
    instructions: Option<u64>,
    sections: Option<Sections>,
}

/// Init of the floor, of the floor with the SDK, then of every function: `runs` cold starts each
/// (environment read, client built; an on-demand init opens no connection), the same again under
/// `perf` where it samples, and once under callgrind.
pub(crate) async fn section(o: &Options, endpoint: &str, home: &Path) -> Result<(), Error> {
    println!();
    println!(
        "### Init of every function beside the floor (median of {} cold starts on a whole core; targets: ≤ {INIT_MS_TARGET} ms, ≤ {} M instructions, CPU ≤ {INIT_CPU_MS_TARGET} ms and ≤ {FLOOR_RATIO_TARGET}× the floor's)",
        o.runs,
        INIT_INSTRUCTIONS_TARGET / 1_000_000
    );
    println!();
    let perf = crate::perf_split::available().await;
    println!(
        "| function | init ms | init CPU ms | × floor | user (binary + loader and libraries) / kernel ms | minor / major faults | context switches (waits / preempted) | threads | text / rodata / relocated KB, relocations | init k instructions | within targets |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let floor = measure(o, FLOOR, endpoint, home, perf).await?;
    print_row(FLOOR, &floor, None);
    // The floor with the SDK's client in it, where it is built: the SDK's share of the distance.
    if o.bin_dir.join(FLOOR_SDK).exists() {
        let sdk = measure(o, FLOOR_SDK, endpoint, home, perf).await?;
        print_row(FLOOR_SDK, &sdk, Some(&floor));
    }
    let mut inits = Vec::new();
    // Every function of the template, the stream consumer included (or those named).
    let functions = local_engine::template::binaries(&local_engine::template::parse()?)?;
    for function in functions
        .into_iter()
        .filter(|f| o.functions.is_empty() || o.functions.contains(f))
    {
        let init = measure(o, &function, endpoint, home, perf).await?;
        print_row(&function, &init, Some(&floor));
        inits.push(init);
    }
    print_summary(&inits, &floor);
    if !perf {
        println!();
        println!("`perf record` cannot sample here: no user/kernel split.");
    }
    Ok(())
}

/// `function`'s process as Lambda starts it, against `endpoint`, under `under`.
fn start(
    o: &Options,
    function: &str,
    endpoint: &str,
    home: &Path,
    under: Under<'_>,
) -> tokio::process::Command {
    let mut c = command_under(&o.bin_dir.join(function), &[], under);
    lambda_environment(&mut c, function, endpoint, home);
    // The webhook's secret and the provider's key as `sam local invoke` gives them
    // (local/sam-env.json); deployed, their inits read them from Secrets Manager instead, one
    // request more. An on-demand init opens no connection to the provider, so its address is
    // one where nothing listens.
    c.env("PAYMENT_WEBHOOK_SECRET", "whsec_bench_only")
        .env("PAYMENT_API_KEY", local_engine::provider::LOCAL_API_KEY)
        .env("PAYMENT_API_BASE", "http://127.0.0.1:9");
    // The publisher's and the emails' settings, as the template gives them (their clients are
    // built at init; an on-demand init sends them nothing).
    c.env("EVENT_BUS_NAME", "store-events")
        .env("LOW_STOCK_THRESHOLD", "5")
        .env(
            "FAILURE_QUEUE_URL",
            "http://127.0.0.1:9/123456789012/failures",
        )
        .env("EMAIL_SENDER", "orders@rust-store.example");
    c
}

async fn measure(
    o: &Options,
    function: &str,
    endpoint: &str,
    home: &Path,
    perf: bool,
) -> Result<Init, Error> {
    let failed = |e: Error| -> Error { format!("{function}: {e}").into() };
    let start = |under: Under<'_>| start(o, function, endpoint, home, under);
    let mut times = Vec::with_capacity(o.runs);
    let mut usages = Vec::with_capacity(o.runs);
    for _ in 0..o.runs {
        let (time, usage) = run_init_only(start(Under::Itself)).await.map_err(failed)?;
        times.push(time);
        usages.push(usage);
    }
    let split = match perf {
        true => Some(sampled(o, function, &start).await.map_err(failed)?),
        false => None,
    };
    let instructions = match o.callgrind {
        true => {
            let dir = callgrind_dir()?;
            let total = init_instructions(&dir, |out| start(Under::Callgrind(out))).await?;
            let _ = std::fs::remove_dir_all(&dir);
            Some(total)
        }
        false => None,
    };
    Ok(Init {
        time: median(times),
        usage: Usage::median(&usages),
        split,
        instructions,
        sections: Sections::of(&o.bin_dir.join(function)),
    })
}

/// `runs` more inits under `perf record`: where their samples fell.
async fn sampled(
    o: &Options,
    function: &str,
    start: &dyn Fn(Under<'_>) -> tokio::process::Command,
) -> Result<Split, Error> {
    let out = std::env::temp_dir().join(format!("store-bench-perf-{}.data", std::process::id()));
    let mut split = Split::default();
    for _ in 0..o.runs {
        run_init_only(start(Under::Perf(&out))).await?;
        split.add(crate::perf_split::read(&out, function).await?);
    }
    let _ = std::fs::remove_file(&out);
    Ok(split)
}

/// The functions' init CPU against the targets, in one line, and what the floor itself allows.
fn print_summary(inits: &[Init], floor: &Init) {
    let cpus: Vec<f64> = inits.iter().map(|i| millis(i.usage.cpu)).collect();
    let (Some(low), Some(high)) = (
        cpus.iter().copied().reduce(f64::min),
        cpus.iter().copied().reduce(f64::max),
    ) else {
        return;
    };
    let floor_cpu = millis(floor.usage.cpu);
    let under = cpus.iter().filter(|&&c| c <= INIT_CPU_MS_TARGET).count();
    let near = cpus
        .iter()
        .filter(|&&c| c <= FLOOR_RATIO_TARGET * floor_cpu)
        .count();
    println!();
    println!(
        "Init CPU of the {n} functions: {low:.2}–{high:.2} ms, ×{:.2}–{:.2} the floor's {floor_cpu:.2} ms. CPU ≤ {INIT_CPU_MS_TARGET} ms: {under} of {n}; ≤ {FLOOR_RATIO_TARGET}× the floor's: {near} of {n}.{}",
        low / floor_cpu,
        high / floor_cpu,
        if floor_cpu > INIT_CPU_MS_TARGET {
            " The floor itself needs more than the CPU target: no function can meet it here."
        } else {
            ""
        },
        n = cpus.len(),
    );
}

fn print_row(function: &str, init: &Init, floor: Option<&Init>) {
    let cpu = millis(init.usage.cpu);
    let ratio = floor.map(|floor| init.usage.cpu.as_secs_f64() / floor.usage.cpu.as_secs_f64());
    let split = init
        .split
        .filter(|s| s.total() > 0)
        .map_or("-".to_owned(), |s| {
            let share = |n: u64| cpu * n as f64 / s.total() as f64;
            format!(
                "{:.2} + {:.2} / {:.2}",
                share(s.binary),
                share(s.libraries),
                share(s.kernel)
            )
        });
    let within = init.time.as_secs_f64() * 1000.0 <= INIT_MS_TARGET
        && init
            .instructions
            .is_none_or(|n| n <= INIT_INSTRUCTIONS_TARGET)
        && cpu <= INIT_CPU_MS_TARGET
        && ratio.is_none_or(|r| r <= FLOOR_RATIO_TARGET);
    let u = &init.usage;
    println!(
        "| {function} | {} | {cpu:.2} | {} | {split} | {} / {} | {} / {} | {} | {} | {} | {} |",
        ms(init.time),
        ratio.map_or("1 (the floor)".to_owned(), |r| format!("{r:.2}")),
        u.minor_faults,
        u.major_faults,
        u.voluntary_switches,
        u.involuntary_switches,
        u.threads,
        init.sections.map_or("-".to_owned(), |s| s.cell()),
        init.instructions
            .map_or("-".into(), |n| format!("{:.0}", n as f64 / 1000.0)),
        if floor.is_none() {
            "-"
        } else if within {
            "yes"
        } else {
            "NO"
        }
    );
}
