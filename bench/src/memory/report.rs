//! What the memory section prints of its cold starts: every row, the means per runtime and
//! size, and the targets (docs/performance.md, "Memory size").

use std::time::Duration;

use super::{Measured, Runtime};
use crate::process::{Series, percentile};
use crate::report::{millis, ms};

/// The warm series' p50 and p99, or "-" when it sent none.
fn warm(series: &Series) -> String {
    if series.warm.is_empty() {
        return "- / -".to_owned();
    }
    format!(
        "{} / {}",
        ms(percentile(&series.warm, 50.0)),
        ms(percentile(&series.warm, 99.0))
    )
}

pub(crate) fn print_table(measured: &[Measured]) {
    println!();
    println!(
        "| function | runtime | memory MB | on-demand: init / first invoke / cold start ms | its CPU: init / invoke ms | init's minor faults, context switches | provisioned: first invoke ms (init, ahead of traffic) | warm p50 / p99 ms |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for m in measured {
        let d = &m.on_demand;
        let u = &d.init_usage;
        println!(
            "| {} | {} | {} | {} / {} / **{}** | {} / {} | {}, {} | **{}** ({}) | {} |",
            m.function,
            m.runtime.name(),
            m.memory_mb,
            ms(d.init),
            ms(d.invoke),
            ms(d.first),
            ms(d.init_usage.cpu),
            ms(d.cold_cpu.saturating_sub(d.init_usage.cpu)),
            u.minor_faults,
            u.voluntary_switches + u.involuntary_switches,
            ms(m.provisioned.invoke),
            ms(m.provisioned.init),
            warm(d),
        );
    }
}

/// The mean over the functions of `runtime` at `size` of `value`.
pub(crate) fn mean(
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

const RUNTIMES: [Runtime; 5] = [
    Runtime::Rust,
    Runtime::RustFlipped,
    Runtime::Floor,
    Runtime::Python,
    Runtime::Node,
];

pub(crate) fn print_summary(measured: &[Measured], sizes: &[u32]) {
    println!();
    println!(
        "| runtime | memory MB | on-demand: mean init / first invoke / cold start ms | provisioned: mean first invoke ms | mean warm p50 ms |"
    );
    println!("|---|---|---|---|---|");
    for runtime in RUNTIMES {
        for &size in sizes {
            let of = |value: &dyn Fn(&Measured) -> Duration| {
                mean(measured, runtime, size, |m| millis(value(m)))
            };
            let (Some(init), Some(invoke), Some(cold), Some(provisioned)) = (
                of(&|m| m.on_demand.init),
                of(&|m| m.on_demand.invoke),
                of(&|m| m.on_demand.first),
                of(&|m| m.provisioned.invoke),
            ) else {
                continue;
            };
            let warm = of(&|m| percentile(&m.on_demand.warm, 50.0))
                .filter(|_| runtime != Runtime::RustFlipped)
                .map_or("-".to_owned(), |w| format!("{w:.2}"));
            println!(
                "| {} | {size} | {init:.2} / {invoke:.2} / {cold:.2} | {provisioned:.2} | {warm} |",
                runtime.name()
            );
        }
    }
}

/// The row of `function` for `runtime` at `size`.
fn row<'m>(
    measured: &'m [Measured],
    function: &str,
    runtime: Runtime,
    size: u32,
) -> Option<&'m Measured> {
    measured
        .iter()
        .find(|m| m.function == function && m.runtime == runtime && m.memory_mb == size)
}

/// The provisioned first invoke beside a warm request that, like it, comes a period after the
/// process last ran: how much of its distance from the back-to-back p50 is the idle CPU alone.
fn sparse(provisioned: &Series) -> String {
    if provisioned.warm.is_empty() {
        return String::new();
    }
    let p50 = percentile(&provisioned.warm, 50.0);
    format!(
        "; a warm request a period after the last: p50 {} ms, the first invoke {:+.2} ms from it",
        ms(p50),
        millis(provisioned.invoke) - millis(p50)
    )
}

fn yes(ok: bool) -> &'static str {
    if ok { "yes" } else { "NO" }
}

pub(crate) fn print_targets(measured: &[Measured], sizes: &[u32]) {
    let (Some(&smallest), Some(&largest)) = (sizes.iter().min(), sizes.iter().max()) else {
        return;
    };
    println!();
    for m in measured
        .iter()
        .filter(|m| m.runtime == Runtime::Rust && m.memory_mb == smallest)
    {
        let d = &m.on_demand;
        let warm = percentile(&d.warm, 50.0);
        let ratio = |peer: Runtime, of: fn(&Measured) -> Duration| {
            row(measured, m.function, peer, smallest).map_or("-".to_owned(), |p| {
                format!("{:.0}", millis(of(p)) / millis(of(m)))
            })
        };
        let on_demand = |m: &Measured| m.on_demand.first;
        let provisioned = |m: &Measured| m.provisioned.invoke;
        let first = m.provisioned.invoke;
        println!(
            "- {} at {smallest} MB, on-demand: cold start {} ms (≤ 10: {}); ×{} vs Python, ×{} vs Node.js. Provisioned: first invoke {} ms (≤ warm p50 {} + 1: {}{}); ×{} vs Python, ×{} vs Node.js.",
            m.function,
            ms(d.first),
            yes(millis(d.first) <= 10.0),
            ratio(Runtime::Python, on_demand),
            ratio(Runtime::Node, on_demand),
            ms(first),
            ms(warm),
            yes(first <= warm + Duration::from_millis(1)),
            sparse(&m.provisioned),
            ratio(Runtime::Python, provisioned),
            ratio(Runtime::Node, provisioned),
        );
        print_floor_targets(measured, m, smallest);
        if let Some(flipped) = row(measured, m.function, Runtime::RustFlipped, smallest) {
            print_flipped(m, flipped);
        }
        if let Some(full) = row(measured, m.function, Runtime::Rust, largest) {
            let ratio = millis(warm) / millis(percentile(&full.on_demand.warm, 50.0));
            println!(
                "  Warm p50 ×{ratio:.2} of {largest} MB's (≤ 2: {}).",
                yes(ratio <= 2.0)
            );
        }
    }
    print_ahead(measured, sizes);
}

/// The issue-52 targets of `m` (Rust, on-demand, at `size`): its cold start at least
/// [`PEER_RATIO_TARGET`] times faster than each peer's, its init CPU on the burst within
/// [`crate::init::INIT_CPU_MS_TARGET`], its cold start within [`crate::init::FLOOR_RATIO_TARGET`]
/// of the floor's; and the floor's own lead over the peers, the most any function here could
/// have.
fn print_floor_targets(measured: &[Measured], m: &Measured, size: u32) {
    let cold = |r: &Measured| millis(r.on_demand.first);
    let ahead = |of: &Measured| {
        [Runtime::Python, Runtime::Node]
            .map(|peer| row(measured, m.function, peer, size).map(|p| cold(p) / cold(of)))
    };
    let times = |ratios: [Option<f64>; 2]| {
        let shown = ratios.map(|r| r.map_or("-".to_owned(), |r| format!("×{r:.0}")));
        let verdict = match ratios {
            [Some(python), Some(node)] => yes(python.min(node) >= PEER_RATIO_TARGET),
            _ => "no peer measured",
        };
        format!(
            "{} vs Python, {} vs Node.js (≥ {PEER_RATIO_TARGET:.0}: {verdict})",
            shown[0], shown[1]
        )
    };
    let cpu = millis(m.on_demand.init_usage.cpu);
    print!(
        "  Against the peers: {}. Init CPU on the burst {cpu:.2} ms (≤ {}: {}).",
        times(ahead(m)),
        crate::init::INIT_CPU_MS_TARGET,
        yes(cpu <= crate::init::INIT_CPU_MS_TARGET)
    );
    match row(measured, m.function, Runtime::Floor, size) {
        Some(floor) => {
            let ratio = cold(m) / cold(floor);
            println!(
                " The floor's cold start {} ms (init {}, its CPU {}): ×{ratio:.2} of it (≤ {}: {}); the floor itself {}.",
                ms(floor.on_demand.first),
                ms(floor.on_demand.init),
                ms(floor.on_demand.init_usage.cpu),
                crate::init::FLOOR_RATIO_TARGET,
                yes(ratio <= crate::init::FLOOR_RATIO_TARGET),
                times(ahead(floor)),
            );
        }
        None => println!(" No floor was built (store-floor)."),
    }
}

/// How many times faster than each peer an on-demand cold start at the smallest size should be.
const PEER_RATIO_TARGET: f64 = 100.0;

/// What each model's choice of warm-up buys, against the other choice: on-demand, the cold start
/// a caller waits for (the warm-up in init, flipped); provisioned, the first invoke (none in
/// init, flipped).
fn print_flipped(built: &Measured, flipped: &Measured) {
    let gain = |ours: Duration, theirs: Duration| {
        let verdict = if ours <= theirs {
            "pays"
        } else {
            "DOES NOT PAY"
        };
        format!(
            "{} ms against {} ms flipped: {verdict}",
            ms(ours),
            ms(theirs)
        )
    };
    println!(
        "  Warm-up by init type: on-demand, none in init: cold start {}; provisioned, in init: first invoke {}.",
        gain(built.on_demand.first, flipped.on_demand.first),
        gain(built.provisioned.invoke, flipped.provisioned.invoke),
    );
}

/// Whether Rust (as built) is ahead of every peer on every row: the cold start a caller waits
/// for, in both models, and the warm p50.
fn print_ahead(measured: &[Measured], sizes: &[u32]) {
    let mut behind = Vec::new();
    for m in measured.iter().filter(|m| m.runtime == Runtime::Rust) {
        for peer in [Runtime::Python, Runtime::Node] {
            let Some(p) = row(measured, m.function, peer, m.memory_mb) else {
                continue;
            };
            let checks = [
                ("on-demand cold start", m.on_demand.first, p.on_demand.first),
                (
                    "provisioned first invoke",
                    m.provisioned.invoke,
                    p.provisioned.invoke,
                ),
                (
                    "warm p50",
                    percentile(&m.on_demand.warm, 50.0),
                    percentile(&p.on_demand.warm, 50.0),
                ),
            ];
            for (what, ours, theirs) in checks {
                if ours >= theirs {
                    behind.push(format!(
                        "{} at {} MB, {what}: {} ms against {}'s {} ms",
                        m.function,
                        m.memory_mb,
                        ms(ours),
                        peer.name(),
                        ms(theirs)
                    ));
                }
            }
        }
    }
    println!();
    match behind.as_slice() {
        [] => println!(
            "Ahead of both peers on every row (on-demand cold start, provisioned first invoke, warm p50; {} sizes): yes.",
            sizes.len()
        ),
        rows => println!("Ahead of both peers on every row: NO: {}.", rows.join("; ")),
    }
}
