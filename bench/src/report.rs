//! What the patterns section prints: its tables, and the stripped sizes of the Lambda builds.

use std::time::Duration;

use crate::cli::{Options, PATTERNS};
use crate::patterns::{Counted, Row};
use crate::process::percentile;

/// Milliseconds, as a number.
pub(crate) fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A duration in milliseconds, two decimals.
pub(crate) fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

/// The patterns section's tables: times, RSS and the Python peer; instructions under callgrind.
pub(crate) fn print_pattern_rows(o: &Options, rows: &[Row]) {
    println!(
        "\n## store-bench: {} cold starts and {} warm invocations per function, one engine, a whole core each, plain HTTP",
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
        print_instructions(rows);
    }
}

/// The patterns' instructions under callgrind, beside the Python peer's.
fn print_instructions(rows: &[Row]) {
    println!();
    println!(
        "| function | init k instr | first request k instr | warm request k instr | Python init / first / warm k instr | warm ×fewer | first request beyond a warm one, k instr | the same, provisioned init (connection opened in it) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let k = |n: f64| format!("{:.0}", n / 1000.0);
    for row in rows {
        if let Some(Counted {
            rust,
            provisioned,
            python,
        }) = row.instructions
        {
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
                "| {} | {} | {} | {} | {py} | {ratio} | {} | {} |",
                row.name,
                k(rust.init as f64),
                k(rust.first as f64),
                k(rust.warm),
                k(rust.first_beyond_warm()),
                k(provisioned.first_beyond_warm()),
            );
        }
    }
}

/// The stripped sizes of the Lambda builds, per architecture (none asked: nothing).
pub(crate) fn print_sizes(o: &Options) {
    if o.size_dirs.is_empty() {
        return;
    }
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
                std::fs::metadata(dir.join(p.binary).join("bootstrap")).map_or("-".into(), |m| {
                    format!("{:.2}", m.len() as f64 / 1_000_000.0)
                })
            })
            .collect();
        println!("| {} | {} |", p.binary, sizes.join(" | "));
    }
}
