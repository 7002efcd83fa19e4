//! Cold starts and warm latency as Lambda's memory setting runs them (`--only memory`): each
//! function and each peer under Lambda's CPU share for a memory size, its every connection to
//! the engine over TLS (`tls_front`), in two models of the cold start side by side, then what a
//! million requests cost at each size with init billed, and the harness checked against
//! published measurements (`calibration`). docs/performance.md, "Memory size", says what this
//! models and what not.
//!
//! **The share.** Lambda gives a function CPU in proportion to its memory: one vCPU at 1,769 MB.
//! Here that is a CFS bandwidth quota on a cgroup of the function's process: `quota = period ×
//! memory / 1769`. The period is the kernel's default, 100 ms, which is also what container
//! runtimes use for `--cpus`; Lambda does not publish its own (`--cpu-period-ms` sets another,
//! for every section that sets a share). With it a 128 MB function may run
//! 7.2 ms in every 100 ms: work that needs less CPU than that is not slowed at all, work that
//! needs more waits ~93 ms for every 7.2 ms it runs. Every process is pinned to one CPU
//! (`taskset`: the quota reaches each CPU in 5 ms slices, and runtime left on one CPU while the
//! process runs on the other would throttle it short of its share).
//!
//! **The two models** ([`crate::process::Model`]):
//! - *on-demand*: init runs with no quota on its CPU (Lambda's init burst, capped at 10 s) until
//!   the runtime's first `GET /invocation/next`; then the whole process moves into the quota,
//!   and its first event is handed out. The caller waits for both: `Init Duration` and the
//!   first invoke's `Duration`, as Lambda's REPORT line gives them.
//! - *provisioned concurrency*: init runs inside the quota from the first instruction, ahead of
//!   traffic; the caller waits only for the first invoke, which starts with the whole quota.
//!
//! The process is started by `sh` joining its first cgroup and then exec'ing the runtime; the
//! clock starts when `sh` has joined (the kernel takes ~10 ms to move a process between v1
//! cgroups, which no Lambda cold start pays) and is told to go.

mod calibration;
mod cost;
pub(crate) mod report;

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::process::Command;

use local_engine::runtime_api::Error;

use crate::cpu_share::CpuShare;
use crate::process::{Model, Series};

/// A runtime measured: this store's binary (as built, and making each model's other warm-up
/// choice), or a peer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runtime {
    Rust,
    /// The same binary with each model's other choice (`STORE_BENCH_WARMUP`): its connection
    /// opened in an on-demand init, and by the first request under provisioned concurrency.
    RustFlipped,
    /// `store-floor` (bench/src/floor.rs): the runtime's loop, one connection, one GetItem;
    /// what any function here pays, measured beside them.
    Floor,
    Python,
    Node,
}

impl Runtime {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Runtime::Rust => "Rust",
            Runtime::RustFlipped => "Rust, warm-up flipped",
            Runtime::Floor => "the floor",
            Runtime::Python => "Python 3 + boto3",
            Runtime::Node => "Node.js 22 + SDK v3",
        }
    }
}

/// One function (or peer) measured at one memory size, in both models.
pub(crate) struct Measured {
    pub(crate) function: &'static str,
    pub(crate) runtime: Runtime,
    pub(crate) memory_mb: u32,
    /// On-demand cold starts, each followed by the warm series (none for [`Runtime::RustFlipped`],
    /// whose warm requests are [`Runtime::Rust`]'s).
    pub(crate) on_demand: Series,
    /// Provisioned-concurrency cold starts; for [`Runtime::Rust`], each followed by
    /// [`SPARSE_WARM`] requests a period apart.
    pub(crate) provisioned: Series,
}

/// The CPU of one memory size: its quota, and the burst its on-demand inits run on.
pub(crate) struct Size {
    pub(crate) quota: CpuShare,
    pub(crate) burst: CpuShare,
}

impl Size {
    fn create(memory_mb: u32, period_us: u64) -> Result<Self, String> {
        Ok(Self {
            quota: CpuShare::create(memory_mb, period_us)?,
            burst: CpuShare::burst(memory_mb, period_us)?,
        })
    }

    /// Every size of `o.memory_sizes` with `o`'s period, or none, said why, where no CPU quota
    /// can be set here: nothing is reported then rather than figures at a full core.
    pub(crate) fn each(o: &crate::cli::Options) -> Option<Vec<Self>> {
        let period_us = o.cpu_period.as_micros() as u64;
        match (o.memory_sizes.iter())
            .map(|&mb| Self::create(mb, period_us))
            .collect()
        {
            Ok(sizes) => Some(sizes),
            Err(why) => {
                println!(
                    "Skipped: the CPU quota cannot be set here ({why}). Nothing is reported rather than figures at a full core."
                );
                None
            }
        }
    }

    pub(crate) fn memory_mb(&self) -> u32 {
        self.quota.memory_mb
    }

    pub(crate) fn on_demand(&self) -> Model<'_> {
        Model::OnDemand {
            burst: &self.burst,
            quota: &self.quota,
        }
    }

    pub(crate) fn provisioned(&self) -> Model<'_> {
        Model::Provisioned { quota: &self.quota }
    }
}

/// The section: every read function, and each peer configured, at every size; then cost and
/// calibration.
pub(crate) async fn section(
    o: &crate::cli::Options,
    engine: &str,
    home: &Path,
) -> Result<(), Error> {
    println!();
    println!(
        "### Memory size: Lambda's CPU share (CFS quota, {} ms period), TLS to the engine, on-demand and provisioned cold starts, {} of each and {} warm requests per row",
        o.cpu_period.as_secs_f64() * 1000.0,
        o.memory_runs,
        o.memory_runs * o.memory_warm
    );
    println!();
    let Some(sizes) = Size::each(o) else {
        return Ok(());
    };
    let endpoint = crate::tls_front::start(engine, Duration::ZERO).await?;
    if o.callgrind {
        tls_instructions(o, engine, &endpoint, home).await?;
    }
    let peers = Peers::of(o, &endpoint);
    let mut measured = Vec::new();
    for size in &sizes {
        measure_size(o, size, &peers, home, &mut measured).await?;
        let (times, throttled) = size.quota.throttled();
        println!(
            "- {} MB: quota {} µs per {} µs; throttled {times} times, {:.1} s in all",
            size.memory_mb(),
            size.quota.quota_us(),
            size.quota.period_us,
            throttled.as_secs_f64()
        );
    }
    report::print_table(&measured);
    report::print_summary(&measured, &o.memory_sizes);
    report::print_targets(&measured, &o.memory_sizes);
    cost::print(&measured, &o.memory_sizes);
    calibration::section(o, engine, &sizes, home).await
}

/// The runtimes a section measures, and what each needs to start.
pub(crate) struct Peers<'a> {
    pub(crate) runtimes: Vec<(Runtime, PathBuf)>,
    pub(crate) endpoint: &'a str,
    /// The TLS test root, which the peers are told to trust.
    pub(crate) root: PathBuf,
}

impl<'a> Peers<'a> {
    /// Rust as built and with its warm-up flipped, the floor where it is built, and each peer
    /// `o` names, against `endpoint`.
    pub(crate) fn of(o: &crate::cli::Options, endpoint: &'a str) -> Self {
        let mut runtimes = vec![
            (Runtime::Rust, PathBuf::new()),
            (Runtime::RustFlipped, PathBuf::new()),
        ];
        let floor = o.bin_dir.join(crate::init::FLOOR);
        runtimes.extend(floor.exists().then_some((Runtime::Floor, floor)));
        runtimes.extend(o.python.clone().map(|p| (Runtime::Python, p)));
        runtimes.extend(o.node.clone().map(|p| (Runtime::Node, p)));
        Self {
            runtimes,
            endpoint,
            root: crate::tls_front::tls_dir().join("root.pem"),
        }
    }

    /// The process `start` names.
    pub(crate) fn command(&self, o: &crate::cli::Options, start: &Start, home: &Path) -> Command {
        let Start {
            runtime,
            launch,
            init_type,
            pattern,
            hello,
        } = *start;
        let memory_mb = launch.memory_mb;
        let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
        let program = self
            .runtimes
            .iter()
            .find(|(r, _)| *r == runtime)
            .map(|(_, p)| p.clone())
            .unwrap_or_default();
        let handler = |module: &str, export: &str| match hello {
            true => "hello.handler".to_owned(),
            false => format!("{module}.{export}"),
        };
        let (program, args, name) = match runtime {
            Runtime::Rust | Runtime::RustFlipped => {
                (o.bin_dir.join(pattern.binary), vec![], pattern.binary)
            }
            Runtime::Floor => (program, vec![], crate::init::FLOOR),
            Runtime::Python => (
                program,
                crate::cli::awslambdaric(&handler("boto3_handlers", pattern.python)),
                pattern.python,
            ),
            Runtime::Node => (
                program,
                vec![bench.join("node/runtime.mjs").display().to_string()],
                pattern.node,
            ),
        };
        let mut c = launch.command(&program, &args);
        local_engine::runtime_api::lambda_environment(&mut c, name, self.endpoint, home);
        c.env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", memory_mb.to_string())
            .env("PYTHONPATH", bench.join("python"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("AWS_CA_BUNDLE", &self.root)
            .env("NODE_EXTRA_CA_CERTS", &self.root)
            .env("_HANDLER", handler("handlers", pattern.node))
            .env("AWS_LAMBDA_INITIALIZATION_TYPE", init_type);
        if runtime == Runtime::RustFlipped {
            let flipped = match init_type {
                crate::process::PROVISIONED => "never",
                _ => "always",
            };
            c.env("STORE_BENCH_WARMUP", flipped);
        }
        c
    }
}

/// One process to start: `runtime` for `pattern` (its `hello` handler instead, for a peer, when
/// asked), launched in the cgroup `launch`, told the kind of init Lambda names in
/// `AWS_LAMBDA_INITIALIZATION_TYPE` ([`Model::init_type`]).
#[derive(Clone, Copy)]
pub(crate) struct Start<'s> {
    pub(crate) runtime: Runtime,
    pub(crate) launch: &'s CpuShare,
    pub(crate) init_type: &'static str,
    pub(crate) pattern: &'s crate::cli::Pattern,
    pub(crate) hello: bool,
}

/// Warm requests after each provisioned cold start of [`Runtime::Rust`], each a period after
/// the last answer ([`Model::Provisioned`]): the baseline its first invoke is judged against
/// beside the back-to-back warm p50, since both start from the same idle CPU.
const SPARSE_WARM: usize = 10;

/// Every pattern, for every runtime, at `size`: on-demand with the warm series, then
/// provisioned (Rust's with its sparse warm requests).
async fn measure_size(
    o: &crate::cli::Options,
    size: &Size,
    peers: &Peers<'_>,
    home: &Path,
    measured: &mut Vec<Measured>,
) -> Result<(), Error> {
    let memory_mb = size.memory_mb();
    for pattern in &crate::cli::PATTERNS {
        let event = pattern.event_bytes()?;
        for &(runtime, _) in &peers.runtimes {
            let failed = |model: &str, e: Error| -> Error {
                format!(
                    "{} {} at {memory_mb} MB, {model}: {e}",
                    runtime.name(),
                    pattern.binary,
                )
                .into()
            };
            let warm = if runtime == Runtime::RustFlipped {
                0
            } else {
                o.memory_warm
            };
            let start = |launch, model: Model<'_>| Start {
                runtime,
                launch,
                init_type: model.init_type(),
                pattern,
                hello: false,
            };
            let burst = start(&size.burst, size.on_demand());
            let quota = start(&size.quota, size.provisioned());
            let runs = o.memory_runs;
            let events = || event.clone();
            let on_demand = crate::process::measure(size.on_demand(), runs, warm, &events, || {
                peers.command(o, &burst, home)
            })
            .await
            .map_err(|e| failed("on-demand", e))?;
            let sparse = if runtime == Runtime::Rust {
                SPARSE_WARM
            } else {
                0
            };
            let provisioned =
                crate::process::measure(size.provisioned(), runs, sparse, &events, || {
                    peers.command(o, &quota, home)
                })
                .await
                .map_err(|e| failed("provisioned", e))?;
            measured.push(Measured {
                function: pattern.binary,
                runtime,
                memory_mb,
                on_demand,
                provisioned,
            });
        }
    }
    Ok(())
}

/// What the TLS handshake adds to each function's init, in instructions (callgrind, a full
/// core): init against the engine over plain HTTP and over the TLS endpoint, as provisioned
/// concurrency runs it, where init opens the connection.
pub(crate) async fn tls_instructions(
    o: &crate::cli::Options,
    plain: &str,
    tls: &str,
    home: &Path,
) -> Result<(), Error> {
    println!();
    println!(
        "| function | provisioned init k instructions, plain HTTP | the same, TLS | the handshake's share |"
    );
    println!("|---|---|---|---|");
    for pattern in &crate::cli::PATTERNS {
        let binary = o.bin_dir.join(pattern.binary);
        let mut counts = Vec::new();
        for endpoint in [plain, tls] {
            let dir = crate::callgrind::callgrind_dir()?;
            counts.push(
                crate::callgrind::init_instructions(&dir, |out| {
                    let mut c = crate::process::command(&binary, &[], Some(out));
                    local_engine::runtime_api::lambda_environment(
                        &mut c,
                        pattern.binary,
                        endpoint,
                        home,
                    );
                    c.env(
                        "AWS_LAMBDA_INITIALIZATION_TYPE",
                        crate::process::PROVISIONED,
                    );
                    c
                })
                .await?,
            );
            let _ = std::fs::remove_dir_all(&dir);
        }
        let (plain, tls) = (counts[0] as f64, counts[1] as f64);
        println!(
            "| {} | {:.0} | {:.0} | {:.0}% |",
            pattern.binary,
            plain / 1000.0,
            tls / 1000.0,
            (tls - plain) / tls * 100.0
        );
    }
    Ok(())
}
