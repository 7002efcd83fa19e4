//! store-bench's command line: the options, and the four access patterns it measures.

use local_engine::runtime_api::Error;
use std::path::PathBuf;

pub(crate) struct Pattern {
    pub(crate) binary: &'static str,
    pub(crate) python: &'static str,
    /// The Node.js peer's export in bench/node/handlers.mjs.
    pub(crate) node: &'static str,
    pub(crate) event: &'static str,
}
pub(crate) const PATTERNS: [Pattern; 4] = [
    Pattern {
        binary: "get-customer",
        node: "getCustomer",
        python: "get_customer",
        event: "get-customer.json",
    },
    Pattern {
        binary: "list-customer-orders",
        node: "listCustomerOrders",
        python: "list_customer_orders",
        event: "list-customer-orders.json",
    },
    Pattern {
        binary: "get-order-items",
        node: "getOrderItems",
        python: "get_order_items",
        event: "get-order-items.json",
    },
    Pattern {
        binary: "list-orders-by-status",
        node: "listOrdersByStatus",
        python: "list_orders_by_status",
        event: "list-orders-by-status.json",
    },
];
impl Pattern {
    /// The Python peer's command line: the source design's handler under AWS's runtime
    /// interface client.
    pub(crate) fn python_args(&self) -> Vec<String> {
        awslambdaric(&format!("boto3_handlers.{}", self.python))
    }

    /// Its sample event, from `events/`.
    pub(crate) fn event_bytes(&self) -> Result<axum::body::Bytes, Error> {
        let events = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../events");
        Ok(std::fs::read(events.join(self.event))?.into())
    }
}
/// Python's command line for `handler` (module.function) under AWS's runtime interface client.
pub(crate) fn awslambdaric(handler: &str) -> Vec<String> {
    ["-m", "awslambdaric", handler].map(str::to_owned).to_vec()
}
/// The memory sizes measured, MB: the template's floor, a middle size, one full vCPU.
pub(crate) const DEFAULT_SIZES: [u32; 3] = [128, 512, 1769];

pub(crate) struct Options {
    /// Only these sections (`patterns`, `init`, `capacity`, `shards`, `webhook`, `memory`,
    /// `checkout-cold`, `events`, `flash-sale`); all when empty.
    pub(crate) only: Vec<String>,
    /// The init section's functions: all of the template's when empty (a build of only some of
    /// them, such as a link variant's, names those).
    pub(crate) functions: Vec<String>,
    pub(crate) callgrind: bool,
    pub(crate) bin_dir: PathBuf,
    pub(crate) python: Option<PathBuf>,
    /// The Node.js 22 binary of the Node.js peer (bench/node).
    pub(crate) node: Option<PathBuf>,
    /// The memory section's sizes, cold starts and warm requests per cold start.
    pub(crate) memory_sizes: Vec<u32>,
    pub(crate) memory_runs: usize,
    pub(crate) memory_warm: usize,
    /// The CFS period Lambda's CPU share is handed out in (every section that sets a share).
    pub(crate) cpu_period: std::time::Duration,
    /// Cold starts per cell of checkout's section: its figures move more from run to run than
    /// a read's, since each involves the engine's transaction and the provider.
    pub(crate) checkout_runs: usize,
    /// The round trip the calibration's TLS front adds to every exchange (DynamoDB's network).
    pub(crate) calibration_rtt: std::time::Duration,
    pub(crate) runs: usize,
    pub(crate) warm: usize,
    pub(crate) size_dirs: Vec<(&'static str, PathBuf)>,
    /// How many times slower than DynamoDB the flash sale's model of its limits runs.
    pub(crate) flash_scale: f64,
    /// How long each flash-sale wave's buyers keep arriving, in this machine's seconds.
    pub(crate) flash_seconds: f64,
    /// How long a transaction holds its items in the flash sale's model, at DynamoDB's scale.
    pub(crate) flash_service: std::time::Duration,
}
impl Options {
    pub(crate) fn runs_section(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|s| s == name)
    }
}
pub(crate) fn options() -> Result<Options, Error> {
    parse(std::env::args().skip(1))
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, Error> {
    let mut o = Options {
        only: Vec::new(),
        functions: Vec::new(),
        callgrind: false,
        bin_dir: PathBuf::from("target/release"),
        python: None,
        node: None,
        memory_sizes: DEFAULT_SIZES.to_vec(),
        memory_runs: 15,
        memory_warm: 30,
        cpu_period: std::time::Duration::from_micros(crate::cpu_share::DEFAULT_PERIOD_US),
        checkout_runs: 15,
        calibration_rtt: std::time::Duration::from_millis(1),
        runs: 10,
        warm: 200,
        size_dirs: Vec::new(),
        flash_scale: 100.0,
        flash_seconds: 4.0,
        flash_service: local_engine::limits::Model::DYNAMODB.transaction_service,
    };
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--bin-dir" => o.bin_dir = value()?.into(),
            "--python" => o.python = Some(value()?.into()),
            "--node" => o.node = Some(value()?.into()),
            "--memory-sizes" => {
                o.memory_sizes = value()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            "--memory-runs" => o.memory_runs = value()?.parse()?,
            "--memory-warm" => o.memory_warm = value()?.parse()?,
            "--checkout-runs" => o.checkout_runs = value()?.parse()?,
            "--cpu-period-ms" => {
                let ms: f64 = value()?.parse()?;
                o.cpu_period = std::time::Duration::try_from_secs_f64(ms / 1000.0)
                    .ok()
                    .filter(|period| (1_000..=1_000_000).contains(&period.as_micros()))
                    .ok_or_else(|| format!("--cpu-period-ms {ms}: CFS takes 1 to 1,000 ms"))?;
            }
            "--calibration-rtt-ms" => {
                let ms: f64 = value()?.parse()?;
                o.calibration_rtt = std::time::Duration::try_from_secs_f64(ms / 1000.0)
                    .map_err(|_| format!("--calibration-rtt-ms {ms}: not a duration"))?;
            }
            "--runs" => o.runs = value()?.parse()?,
            "--flash-scale" => o.flash_scale = value()?.parse()?,
            "--flash-seconds" => o.flash_seconds = value()?.parse()?,
            "--flash-service-ms" => {
                let ms: f64 = value()?.parse()?;
                o.flash_service = std::time::Duration::try_from_secs_f64(ms / 1000.0)
                    .map_err(|_| format!("--flash-service-ms {ms}: not a duration"))?;
            }
            "--callgrind" => o.callgrind = true,
            "--only" => o.only = value()?.split(',').map(str::to_owned).collect(),
            "--functions" => o.functions = value()?.split(',').map(str::to_owned).collect(),
            "--warm" => o.warm = value()?.parse()?,
            "--size-dir-arm64" => o.size_dirs.push(("arm64", value()?.into())),
            "--size-dir-x86-64" => o.size_dirs.push(("x86_64", value()?.into())),
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bench times the source design's four access patterns: its rows are the registry's
    /// first four, by the binaries that serve them.
    #[test]
    fn the_benchs_patterns_are_the_registrys_first_four() {
        let served: Vec<&str> = shared::access_patterns::ACCESS_PATTERNS[..4]
            .iter()
            .map(|p| shared::http::routes::find(p.route).expect("a route").binary)
            .collect();
        let timed: Vec<&str> = PATTERNS.iter().map(|p| p.binary).collect();
        assert_eq!(timed, served);
    }

    #[test]
    fn the_cpu_share_is_handed_out_per_20_ms_unless_a_period_of_1_to_1000_ms_is_given() {
        let given = |args: &[&str]| parse(args.iter().map(|arg| arg.to_string()));
        let period = |args: &[&str]| given(args).map(|o| o.cpu_period.as_micros()).ok();
        assert_eq!(period(&[]), Some(20_000));
        assert_eq!(period(&["--cpu-period-ms", "100"]), Some(100_000));
        assert_eq!(period(&["--cpu-period-ms", "1000"]), Some(1_000_000));
        for refused in ["0.5", "1001", "-20", "soon"] {
            assert!(given(&["--cpu-period-ms", refused]).is_err(), "{refused}");
        }
    }
}
