//! What the memory section prints of its cold starts: every row, the means per runtime and
//! size, and the targets (docs/performance.md, "Memory size").

use std::time::Duration;

use super::{Measured, Peer, Runtime};
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

/// The quartiles of `sorted`, ms: the spread of a median.
pub(crate) fn quartiles(sorted: &[Duration]) -> String {
    format!(
        "{}–{}",
        ms(percentile(sorted, 25.0)),
        ms(percentile(sorted, 75.0))
    )
}

pub(crate) fn print_table(measured: &[Measured]) {
    println!();
    println!(
        "| function | runtime | memory MB | on-demand: init / first invoke / cold start ms [its quartiles] | its CPU: init / invoke ms | init's minor faults, context switches | provisioned: first invoke ms [quartiles] (init, ahead of traffic) | warm p50 / p99 ms |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for m in measured {
        let d = &m.on_demand;
        let u = &d.init_usage;
        println!(
            "| {} | {} | {} | {} / {} / **{}** [{}] | {} / {} | {}, {} | **{}** [{}] ({}) | {} |",
            m.function,
            m.runtime.name(),
            m.memory_mb,
            ms(d.init),
            ms(d.invoke),
            ms(d.first),
            quartiles(&d.firsts),
            ms(d.init_usage.cpu),
            ms(d.cold_cpu.saturating_sub(d.init_usage.cpu)),
            u.minor_faults,
            u.voluntary_switches + u.involuntary_switches,
            ms(m.provisioned.invoke),
            quartiles(&m.provisioned.invokes),
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

const RUNTIMES: [Runtime; 10] = [
    Runtime::Rust,
    Runtime::RustFlipped,
    Runtime::Floor,
    Runtime::FloorInit,
    Runtime::FloorSdk,
    Runtime::Python,
    Runtime::PythonInit,
    Runtime::Node,
    Runtime::NodeBundled,
    Runtime::NodeBundledInit,
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
                .filter(|_| runtime.warm_series())
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
        let ratio = |peer: Peer, of: fn(&Measured) -> Duration| {
            strongest(measured, m.function, peer, smallest, of).map_or("-".to_owned(), |p| {
                format!(
                    "{:.0} ({})",
                    millis(of(p)) / millis(of(m)),
                    p.runtime.name()
                )
            })
        };
        let on_demand = |m: &Measured| m.on_demand.first;
        let provisioned = |m: &Measured| m.provisioned.invoke;
        let first = m.provisioned.invoke;
        println!(
            "- {} at {smallest} MB, on-demand: cold start {} ms (≤ 10: {}); ×{} vs Python's strongest, ×{} vs Node.js's. Provisioned: first invoke {} ms (≤ warm p50 {} + 1: {}{}); ×{} vs Python's strongest, ×{} vs Node.js's.",
            m.function,
            ms(d.first),
            yes(millis(d.first) <= 10.0),
            ratio(Peer::Python, on_demand),
            ratio(Peer::Node, on_demand),
            ms(first),
            ms(warm),
            yes(first <= warm + Duration::from_millis(1)),
            sparse(&m.provisioned),
            ratio(Peer::Python, provisioned),
            ratio(Peer::Node, provisioned),
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
        Peer::ALL.map(|peer| {
            strongest(measured, m.function, peer, size, |r| r.on_demand.first)
                .map(|p| cold(p) / cold(of))
        })
    };
    let times = |ratios: [Option<f64>; 2]| {
        let shown = ratios.map(|r| r.map_or("-".to_owned(), |r| format!("×{r:.0}")));
        let verdict = match ratios {
            [Some(python), Some(node)] => yes(python.min(node) >= PEER_RATIO_TARGET),
            _ => "no peer measured",
        };
        format!(
            "{} vs Python's strongest, {} vs Node.js's (≥ {PEER_RATIO_TARGET:.0}: {verdict})",
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
    match floor(measured, m.function, size) {
        Some(floor) => {
            let ratio = cold(m) / cold(floor);
            println!(
                " The floor's cold start ({}) {} ms (init {}, its CPU {}): ×{ratio:.2} of it (≤ {FLOOR_COLD_RATIO_TARGET}: {}); the floor itself {}.",
                floor.runtime.name(),
                ms(floor.on_demand.first),
                ms(floor.on_demand.init),
                ms(floor.on_demand.init_usage.cpu),
                yes(ratio <= FLOOR_COLD_RATIO_TARGET),
                times(ahead(floor)),
            );
            if let Some(sdk) = row(measured, m.function, Runtime::FloorSdk, size) {
                println!(
                    "  Of that distance: the floor with the SDK {} ms (its CPU: init {}), ×{:.2} the floor's (the SDK's share); the function ×{:.2} of it (the store's own).",
                    ms(sdk.on_demand.first),
                    ms(sdk.on_demand.init_usage.cpu),
                    cold(sdk) / cold(floor),
                    cold(m) / cold(sdk),
                );
            }
        }
        None => println!(" No floor was built (store-floor)."),
    }
}

/// How many times faster than each peer an on-demand cold start at the smallest size should be.
const PEER_RATIO_TARGET: f64 = 100.0;

/// How far a read function's on-demand cold start at the smallest size may be from the floor's.
const FLOOR_COLD_RATIO_TARGET: f64 = 1.15;

/// The floor's placement that does best for `function` at `size`, on-demand: the one a
/// function's cold start is held to.
fn floor<'m>(measured: &'m [Measured], function: &str, size: u32) -> Option<&'m Measured> {
    let placements = [Runtime::Floor, Runtime::FloorInit];
    fastest(measured, function, &placements, size, |m| m.on_demand.first)
}

/// The variant of `peer` that does best for `function` at `size` by `of` (the least time).
fn strongest<'m>(
    measured: &'m [Measured],
    function: &str,
    peer: Peer,
    size: u32,
    of: fn(&Measured) -> Duration,
) -> Option<&'m Measured> {
    fastest(measured, function, peer.variants(), size, of)
}

/// Of `variants`' rows for `function` at `size`, the one with the least `of`.
fn fastest<'m>(
    measured: &'m [Measured],
    function: &str,
    variants: &[Runtime],
    size: u32,
    of: fn(&Measured) -> Duration,
) -> Option<&'m Measured> {
    (variants.iter())
        .filter_map(|&variant| row(measured, function, variant, size))
        .min_by_key(|m| of(m))
}

/// What serves the functions, on the bench's own CPU: the TLS front's CPU per connection it
/// accepted (the server's side of the handshake, and the relaying) and the resolver's queries.
pub(crate) fn print_front(cpu: Duration, connections: u64, queries: u64) {
    let each = cpu.as_secs_f64() * 1000.0 / connections.max(1) as f64;
    println!(
        "- The TLS front, on the bench's CPU apart from the functions': {connections} connections, {each:.2} ms of its CPU each (the server's side of the handshake, then the relaying); the resolver answered {queries} queries."
    );
}

/// Each read function's on-demand cold start at the smallest size beside the floor's and each
/// peer's strongest variant's, with their quartiles: the figures the README gives.
pub(crate) fn print_floor_distance(measured: &[Measured], sizes: &[u32]) {
    let Some(&size) = sizes.iter().min() else {
        return;
    };
    let cold = |m: &Measured| m.on_demand.first;
    let shown = |m: &Measured| format!("{} [{}]", ms(cold(m)), quartiles(&m.on_demand.firsts));
    println!();
    println!(
        "| at {size} MB, on-demand | cold start ms [quartiles] | its CPU: init / first invoke ms | × the faster floor (≤ {FLOOR_COLD_RATIO_TARGET}) | Python's strongest: ms, × | Node.js's strongest: ms, × |"
    );
    println!("|---|---|---|---|---|---|");
    for m in measured.iter().filter(|m| {
        m.memory_mb == size
            && matches!(
                m.runtime,
                Runtime::Rust | Runtime::Floor | Runtime::FloorInit | Runtime::FloorSdk
            )
    }) {
        let d = &m.on_demand;
        let times_floor = floor(measured, m.function, size).map_or("-".to_owned(), |f| {
            let r = millis(cold(m)) / millis(cold(f));
            format!("×{r:.2}: {}", yes(r <= FLOOR_COLD_RATIO_TARGET))
        });
        let peers = Peer::ALL.map(|peer| {
            strongest(measured, m.function, peer, size, cold).map_or("-".to_owned(), |p| {
                format!(
                    "{} ({}), ×{:.0}",
                    shown(p),
                    p.runtime.name(),
                    millis(cold(p)) / millis(cold(m))
                )
            })
        });
        println!(
            "| {} ({}) | {} | {} / {} | {times_floor} | {} | {} |",
            m.function,
            m.runtime.name(),
            shown(m),
            ms(d.init_usage.cpu),
            ms(d.cold_cpu.saturating_sub(d.init_usage.cpu)),
            peers[0],
            peers[1],
        );
    }
}

/// The on-demand cold starts at the smallest size under the section's period beside the same
/// under the kernel's 100 ms (`kernel`), runtime by runtime.
pub(crate) fn print_periods(measured: &[Measured], kernel: &[Measured], period: Duration) {
    println!();
    println!(
        "| function | runtime | on-demand cold start, {} ms period [quartiles] | the same, 100 ms period |",
        ms(period)
    );
    println!("|---|---|---|---|");
    for k in kernel {
        let Some(m) = row(measured, k.function, k.runtime, k.memory_mb) else {
            continue;
        };
        println!(
            "| {} | {} | {} [{}] | {} [{}] |",
            k.function,
            k.runtime.name(),
            ms(m.on_demand.first),
            quartiles(&m.on_demand.firsts),
            ms(k.on_demand.first),
            quartiles(&k.on_demand.firsts),
        );
    }
}

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
        for peer in RUNTIMES.into_iter().filter(|r| r.peer().is_some()) {
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
