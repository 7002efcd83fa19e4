//! Cold starts and warm latency as Lambda's memory setting runs them (`--only memory`): each
//! function and each peer under Lambda's CPU share for a memory size, its every connection to
//! the engine over TLS (`tls_front`), in two models of the cold start side by side, then what a
//! million requests cost at each size with init billed, and the harness checked against
//! published measurements (`calibration`). docs/performance.md, "Memory size", says what this
//! models and what not.
//!
//! **The share.** Lambda gives a function CPU in proportion to its memory: one vCPU at 1,769 MB.
//! Here that is a CFS bandwidth quota on a cgroup of the function's process: `quota = period ×
//! memory / 1769`, the period 20 ms unless `--cpu-period-ms` says otherwise: the period whose
//! throttle has the shape of the public trace of a real 128 MB function's
//! ([`crate::cpu_share::DEFAULT_PERIOD_US`]; `periods` measures the shape, and the cold starts
//! under the kernel's 100 ms beside). At 128 MB a function may run 1.45 ms in every 20 ms. Every
//! process is pinned to one CPU (`taskset`: the quota reaches each CPU in 5 ms slices, and
//! runtime left on one CPU while the process runs on the other would throttle it short of its
//! share), and the bench itself to the other ([`crate::cpu_share::PinnedApart`]).
//!
//! **What it reaches.** DynamoDB by host name (`crate::resolver`: glibc's resolver against a DNS
//! server on loopback), behind the TLS front, which reports its CPU per connection and closes
//! connections idle for a minute.
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
pub(crate) mod periods;
pub(crate) mod report;

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::process::Command;

use local_engine::runtime_api::Error;

use crate::cpu_share::CpuShare;
use crate::process::{Model, ProcessRun, Series, run_process};

/// A runtime measured: this store's binary (as built, and making each model's other warm-up
/// choice), the floor, or a peer in one of its variants.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Runtime {
    Rust,
    /// The same binary with the other choice (`STORE_BENCH_WARMUP`): its connection opened by
    /// the first request where it opens it in init as built, and in init where it does not.
    RustFlipped,
    /// `store-floor` (bench/src/floor.rs): the runtime's loop, one connection, one GetItem;
    /// what any function here pays, measured beside them. It opens its connection by its
    /// first event.
    Floor,
    /// The floor sending that GetItem in init instead (`BENCH_FIRST_REQUEST_IN_INIT`), as the
    /// functions' warm-up does: a function is held to the faster of the two.
    FloorInit,
    /// `store-floor-sdk` (bench/src/floor_sdk.rs): the floor's GetItem sent through the SDK's
    /// client as the functions build it, in init too: the SDK's share of a function's distance
    /// from the floor.
    FloorSdk,
    Python,
    /// The Python peer doing its first request's one-time work in init
    /// (`BENCH_FIRST_REQUEST_IN_INIT`: bench/python/boto3_handlers.py).
    PythonInit,
    /// The Node.js peer as AWS's examples write it, loading the SDK from `node_modules`.
    Node,
    /// The same handler bundled and minified with esbuild (bench/node/package.json).
    NodeBundled,
    /// Bundled, and doing its first request's one-time work in init.
    NodeBundledInit,
}

/// A peer's language: the variants of one are compared with the store as one peer, by the
/// strongest of them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Peer {
    Python,
    Node,
}

impl Peer {
    pub(crate) const ALL: [Peer; 2] = [Peer::Python, Peer::Node];

    /// Its variants, the one AWS's examples write first.
    pub(crate) fn variants(self) -> &'static [Runtime] {
        match self {
            Peer::Python => &[Runtime::Python, Runtime::PythonInit],
            Peer::Node => &[
                Runtime::Node,
                Runtime::NodeBundled,
                Runtime::NodeBundledInit,
            ],
        }
    }
}

impl Runtime {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Runtime::Rust => "Rust",
            Runtime::RustFlipped => "Rust, warm-up flipped",
            Runtime::Floor => "the floor",
            Runtime::FloorInit => "the floor, first request in init",
            Runtime::FloorSdk => "the floor with the SDK, first request in init",
            Runtime::Python => "Python 3 + boto3",
            Runtime::PythonInit => "Python 3 + boto3, first request in init",
            Runtime::Node => "Node.js 22 + SDK v3",
            Runtime::NodeBundled => "Node.js 22 + SDK v3, bundled",
            Runtime::NodeBundledInit => "Node.js 22 + SDK v3, bundled, first request in init",
        }
    }

    /// The peer it is a variant of, if it is one.
    pub(crate) fn peer(self) -> Option<Peer> {
        Peer::ALL.into_iter().find(|p| p.variants().contains(&self))
    }

    /// Whether its on-demand cold starts are followed by warm requests: not for the flipped
    /// binary nor for the floor's other rows, whose warm requests are the same code as
    /// [`Runtime::Rust`]'s and [`Runtime::Floor`]'s.
    pub(crate) fn warm_series(self) -> bool {
        !matches!(
            self,
            Runtime::RustFlipped | Runtime::FloorInit | Runtime::FloorSdk
        )
    }

    /// Whether it does its first request's one-time work in init (a peer's variant, or the
    /// floor's).
    fn first_request_in_init(self) -> bool {
        matches!(
            self,
            Runtime::PythonInit | Runtime::NodeBundledInit | Runtime::FloorInit | Runtime::FloorSdk
        )
    }
}

/// One function (or peer) measured at one memory size, in both models.
pub(crate) struct Measured {
    pub(crate) function: &'static str,
    pub(crate) runtime: Runtime,
    pub(crate) memory_mb: u32,
    /// On-demand cold starts, each followed by the warm series where it has one
    /// ([`Runtime::warm_series`]).
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
    pub(crate) fn create(memory_mb: u32, period_us: u64) -> Result<Self, String> {
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

/// The section: every read function, the floor and each peer configured in every variant, at
/// every size, the endpoint named by host; the same at 128 MB on-demand under the kernel's
/// period for comparison; then cost and calibration.
pub(crate) async fn section(
    o: &crate::cli::Options,
    engine: &str,
    home: &Path,
) -> Result<(), Error> {
    println!();
    println!(
        "### Memory size: Lambda's CPU share (CFS quota, {} ms period), TLS to the engine by host name, {} on-demand and provisioned cold starts per row, interleaved ({} provisioned for a peer), and {} warm requests per row",
        o.cpu_period.as_secs_f64() * 1000.0,
        o.memory_runs,
        o.memory_runs.min(WARM_ROUNDS),
        o.memory_runs.min(WARM_ROUNDS) * o.memory_warm
    );
    println!();
    let Some(sizes) = Size::each(o) else {
        return Ok(());
    };
    let _apart = crate::cpu_share::PinnedApart::pin()?;
    let resolver = crate::resolver::Resolver::shared()?;
    let front = crate::tls_front::start(engine, Duration::ZERO).await?;
    periods::print_shapes(&sizes).await?;
    if o.callgrind {
        tls_instructions(o, engine, &front.url, home).await?;
    }
    let peers = Peers::of(o, &front.url).resolving(resolver);
    let (queries, (front_cpu, connections)) = (resolver.queries(), front.usage());
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
    let (cpu, handshakes) = front.usage();
    report::print_front(
        cpu - front_cpu,
        handshakes - connections,
        resolver.queries() - queries,
    );
    report::print_table(&measured);
    report::print_summary(&measured, &o.memory_sizes);
    report::print_floor_distance(&measured, &o.memory_sizes);
    report::print_targets(&measured, &o.memory_sizes);
    let kernel = periods::kernel_period(o, &peers, home).await?;
    report::print_periods(&measured, &kernel, o.cpu_period);
    cost::print(&measured, &o.memory_sizes);
    calibration::section(o, engine, &sizes, home).await
}

/// The runtimes a section measures, and what each needs to start.
pub(crate) struct Peers {
    pub(crate) runtimes: Vec<(Runtime, PathBuf)>,
    /// DynamoDB's endpoint as the processes are given it.
    pub(crate) endpoint: String,
    /// The TLS test root, which the peers are told to trust.
    pub(crate) root: PathBuf,
    /// Where the resolver's `resolv.conf` and `nsswitch.conf` are, when the endpoint is named
    /// by host (`crate::resolver`).
    pub(crate) resolver: Option<PathBuf>,
}

impl Peers {
    /// Rust as built and with its warm-up flipped, the floor in both placements and with the
    /// SDK where they are built, and each peer
    /// `o` names in every variant, against `endpoint` (an address: no resolver is asked).
    pub(crate) fn of(o: &crate::cli::Options, endpoint: &str) -> Self {
        let mut runtimes = vec![
            (Runtime::Rust, PathBuf::new()),
            (Runtime::RustFlipped, PathBuf::new()),
        ];
        let floor = o.bin_dir.join(crate::init::FLOOR);
        if floor.exists() {
            runtimes.extend([Runtime::Floor, Runtime::FloorInit].map(|r| (r, floor.clone())));
        }
        let sdk = o.bin_dir.join(crate::init::FLOOR_SDK);
        runtimes.extend(sdk.exists().then_some((Runtime::FloorSdk, sdk)));
        for (peer, program) in [(Peer::Python, &o.python), (Peer::Node, &o.node)] {
            if let Some(program) = program {
                runtimes.extend(peer.variants().iter().map(|&r| (r, program.clone())));
            }
        }
        Self {
            runtimes,
            endpoint: endpoint.to_owned(),
            root: crate::tls_front::tls_dir().join("root.pem"),
            resolver: None,
        }
    }

    /// The same, the endpoint named by DynamoDB's host name here and resolved by `resolver`.
    pub(crate) fn resolving(mut self, resolver: &crate::resolver::Resolver) -> Self {
        self.endpoint = crate::resolver::Resolver::named(&self.endpoint, crate::resolver::DYNAMODB);
        self.resolver = Some(resolver.conf().to_owned());
        self
    }

    /// Only the runtimes `keep` keeps.
    pub(crate) fn only(mut self, keep: impl Fn(Runtime) -> bool) -> Self {
        self.runtimes.retain(|&(r, _)| keep(r));
        self
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
        let node_module = match runtime {
            Runtime::NodeBundled | Runtime::NodeBundledInit => "dist/handlers",
            _ => "handlers",
        };
        let (program, args, name) = match runtime {
            Runtime::Rust | Runtime::RustFlipped => {
                (o.bin_dir.join(pattern.binary), vec![], pattern.binary)
            }
            Runtime::Floor | Runtime::FloorInit => (program, vec![], crate::init::FLOOR),
            Runtime::FloorSdk => (program, vec![], crate::init::FLOOR_SDK),
            Runtime::Python | Runtime::PythonInit => (
                program,
                crate::cli::awslambdaric(&handler("boto3_handlers", pattern.python)),
                pattern.python,
            ),
            Runtime::Node | Runtime::NodeBundled | Runtime::NodeBundledInit => (
                program,
                vec![bench.join("node/runtime.mjs").display().to_string()],
                pattern.node,
            ),
        };
        let mut c = launch.command_resolving(&program, &args, self.resolver.as_deref());
        local_engine::runtime_api::lambda_environment(&mut c, name, &self.endpoint, home);
        c.env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", memory_mb.to_string())
            .env("PYTHONPATH", bench.join("python"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("AWS_CA_BUNDLE", &self.root)
            .env("NODE_EXTRA_CA_CERTS", &self.root)
            .env("_HANDLER", handler(node_module, pattern.node))
            .env("AWS_LAMBDA_INITIALIZATION_TYPE", init_type);
        if runtime.first_request_in_init() {
            c.env("BENCH_FIRST_REQUEST_IN_INIT", "1");
        }
        if runtime == Runtime::RustFlipped {
            c.env(
                "STORE_BENCH_WARMUP",
                crate::process::flipped_warm_up(init_type, memory_mb),
            );
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

/// The rounds whose cold starts are followed by warm requests (the first ones): the warm series
/// needs no more, and a peer's back-to-back requests at 128 MB take ~70 ms each. A peer's
/// provisioned cold starts are those of these rounds too.
pub(crate) const WARM_ROUNDS: usize = 3;

/// Every pattern, for every runtime, at `size`, in rounds: each round starts every runtime once
/// on-demand (with the warm series in the first [`WARM_ROUNDS`]) and once provisioned (Rust's
/// with its sparse warm requests), so that whatever the machine does over the section falls on
/// every row alike.
async fn measure_size(
    o: &crate::cli::Options,
    size: &Size,
    peers: &Peers,
    home: &Path,
    measured: &mut Vec<Measured>,
) -> Result<(), Error> {
    let memory_mb = size.memory_mb();
    for pattern in &crate::cli::PATTERNS {
        let event = pattern.event_bytes()?;
        let events = || event.clone();
        let mut runs: Vec<[Vec<ProcessRun>; 2]> =
            peers.runtimes.iter().map(|_| Default::default()).collect();
        for round in 0..o.memory_runs {
            for (&(runtime, _), done) in peers.runtimes.iter().zip(&mut runs) {
                let failed = |model: &str, e: Error| -> Error {
                    format!(
                        "{} {} at {memory_mb} MB, {model}: {e}",
                        runtime.name(),
                        pattern.binary
                    )
                    .into()
                };
                let warm_round = round < WARM_ROUNDS;
                let warm = match runtime.warm_series() && warm_round {
                    true => o.memory_warm,
                    false => 0,
                };
                let sparse = match runtime {
                    Runtime::Rust if warm_round => SPARSE_WARM,
                    _ => 0,
                };
                // One cold start of the runtime launched in `launch` under `model`, and `warm`
                // requests after it.
                let run = async |launch, model: Model<'_>, warm, name| {
                    let start = Start {
                        runtime,
                        launch,
                        init_type: model.init_type(),
                        pattern,
                        hello: false,
                    };
                    let command = peers.command(o, &start, home);
                    run_process(command, &events, warm, model)
                        .await
                        .map_err(|e| failed(name, e))
                };
                done[0].push(run(&size.burst, size.on_demand(), warm, "on-demand").await?);
                // A peer's provisioned init runs under the quota for seconds (Python's ~9 s at
                // 128 MB): its provisioned cold starts are those of the first rounds only.
                if runtime.peer().is_some() && !warm_round {
                    continue;
                }
                done[1].push(run(&size.quota, size.provisioned(), sparse, "provisioned").await?);
            }
        }
        for (&(runtime, _), [on_demand, provisioned]) in peers.runtimes.iter().zip(runs) {
            measured.push(Measured {
                function: pattern.binary,
                runtime,
                memory_mb,
                on_demand: Series::of(on_demand),
                provisioned: Series::of(provisioned),
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
