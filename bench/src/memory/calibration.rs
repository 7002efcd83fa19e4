//! The harness beside published measurements of real Lambda: the peers' hello-world init beside
//! lambda-perf's, and init and first invoke of one read (`get-customer`, over a TLS front that
//! adds a network round trip to every exchange) beside cebert's. docs/performance.md,
//! "Calibration", explains each difference.

use std::path::Path;

use local_engine::runtime_api::Error;

use super::{Peers, Runtime, Size, Start};
use crate::report::millis;
use crate::report::ms;

/// One runtime's published figures, ms, at two memory sizes each.
struct Published {
    runtime: Runtime,
    /// lambda-perf (github.com/maxday/lambda-perf), data/last.json of 2026-08-22: a hello
    /// world's init at 128 and 1,024 MB (Python 3.13, Node.js 22, Rust on provided.al2023).
    hello_init: (f64, f64),
    /// cebert's aws-lambda-performance-benchmarks, December 2025, arm64: the SDK client built in
    /// init, then a DynamoDB batch write and a get; init and first invoke at 128 and 2,048 MB
    /// (Python 3.12, Node.js 22, Rust).
    sdk_init: (f64, f64),
    sdk_first_invoke: (f64, f64),
}

const PUBLISHED: [Published; 3] = [
    Published {
        runtime: Runtime::Rust,
        hello_init: (15.5, 15.2),
        sdk_init: (66.0, 68.0),
        sdk_first_invoke: (826.0, 96.0),
    },
    Published {
        runtime: Runtime::Python,
        hello_init: (91.0, 85.0),
        sdk_init: (383.0, 383.0),
        sdk_first_invoke: (362.0, 65.0),
    },
    Published {
        runtime: Runtime::Node,
        hello_init: (137.0, 140.0),
        sdk_init: (341.0, 339.0),
        sdk_first_invoke: (1137.0, 118.0),
    },
];

/// One runtime's calibration runs here, at the smallest and largest size.
struct Here {
    runtime: Runtime,
    hello_init: Option<(f64, f64)>,
    init: (f64, f64),
    first_invoke: (f64, f64),
}

pub(crate) async fn section(
    o: &crate::cli::Options,
    engine: &str,
    sizes: &[Size],
    home: &Path,
) -> Result<(), Error> {
    let (Some(small), Some(large)) = (
        sizes.iter().min_by_key(|s| s.memory_mb()),
        sizes.iter().max_by_key(|s| s.memory_mb()),
    ) else {
        return Ok(());
    };
    let front = crate::tls_front::start(engine, o.calibration_rtt).await?;
    // The runtimes the published figures are of: each peer as AWS's examples write it.
    let peers = Peers::of(o, &front.url).only(|r| r.peer().is_none_or(|p| p.variants()[0] == r));
    let pattern = &crate::cli::PATTERNS[0];
    let event = pattern.event_bytes()?;
    let mut here = Vec::new();
    for &(runtime, _) in &peers.runtimes {
        let run = async |size: &Size, hello: bool| -> Result<(f64, f64), Error> {
            let start = Start {
                runtime,
                launch: &size.burst,
                init_type: size.on_demand().init_type(),
                pattern,
                hello,
            };
            let events = || event.clone();
            let series =
                crate::process::measure(size.on_demand(), o.memory_runs, 0, &events, || {
                    peers.command(o, &start, home)
                })
                .await
                .map_err(|e| {
                    format!(
                        "calibration, {} at {} MB: {e}",
                        runtime.name(),
                        size.memory_mb()
                    )
                })?;
            Ok((millis(series.init), millis(series.invoke)))
        };
        let hello_init = match runtime {
            _ if runtime.peer().is_some() => {
                Some((run(small, true).await?.0, run(large, true).await?.0))
            }
            _ => None,
        };
        let (s, l) = (run(small, false).await?, run(large, false).await?);
        here.push(Here {
            runtime,
            hello_init,
            init: (s.0, l.0),
            first_invoke: (s.1, l.1),
        });
    }
    print(
        &here,
        small.memory_mb(),
        large.memory_mb(),
        o.calibration_rtt,
    );
    Ok(())
}

fn print(here: &[Here], small: u32, large: u32, rtt: std::time::Duration) {
    let pair = |(a, b): (f64, f64)| format!("{a:.1} / {b:.1}");
    println!();
    println!(
        "#### Calibration: on-demand here ({small} / {large} MB) beside published Lambda figures; get-customer over TLS with {} ms a round trip",
        ms(rtt)
    );
    println!();
    println!(
        "| runtime | hello-world init: here | lambda-perf (128 / 1,024 MB) | init with the SDK: here | cebert (128 / 2,048 MB) | first invoke: here | cebert (128 / 2,048 MB) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for h in here {
        let published = PUBLISHED.iter().find(|p| {
            p.runtime == h.runtime
                || (h.runtime == Runtime::RustFlipped && p.runtime == Runtime::Rust)
        });
        let theirs =
            |f: fn(&Published) -> (f64, f64)| published.map_or("-".to_owned(), |p| pair(f(p)));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            h.runtime.name(),
            h.hello_init.map_or("-".to_owned(), pair),
            theirs(|p| p.hello_init),
            pair(h.init),
            theirs(|p| p.sdk_init),
            pair(h.first_invoke),
            theirs(|p| p.sdk_first_invoke),
        );
    }
    println!();
    for h in here {
        let (Some(ours), Some(p)) = (
            h.hello_init,
            PUBLISHED.iter().find(|p| p.runtime == h.runtime),
        ) else {
            continue;
        };
        println!(
            "- {}: a hello world's init takes {:.1} ms longer on Lambda at 128 MB than here ({:.1} against {:.1}): Lambda's own work before and around the runtime (the sandbox, the code read from its fetched package).",
            h.runtime.name(),
            p.hello_init.0 - ours.0,
            p.hello_init.0,
            ours.0,
        );
    }
}
