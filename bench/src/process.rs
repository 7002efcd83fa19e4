//! One Lambda process under the bench's Runtime API: its init, first response, warm
//! latencies, CPU time and peak RSS, and the series of cold starts that summarise them.

use axum::body::Bytes;
use local_engine::runtime_api::{Error, RuntimeApi};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::process::Command;

use crate::cpu_share::CpuShare;
use crate::usage::Usage;

/// One process's life: init, first response, warm latencies, peak RSS.
pub(crate) struct ProcessRun {
    /// From the process's start to its first `GET /invocation/next` (Lambda's `Init Duration`).
    pub(crate) init: Duration,
    /// From the first event's hand-out to its response (the first invoke's `Duration`).
    pub(crate) invoke: Duration,
    /// CPU time (every thread, user and system) to the first response, from the exec of the
    /// function (a launcher's own CPU before it is not counted).
    pub(crate) cold_cpu: Duration,
    /// What init used, its CPU among it, from the exec to the first `GET /invocation/next`
    /// (zero on a whole core, where nothing reads the process at that moment).
    pub(crate) init_usage: Usage,
    pub(crate) warm: Vec<Duration>,
    pub(crate) peak_rss_kib: u64,
}

/// How a cold start gets its CPU.
#[derive(Clone, Copy)]
pub(crate) enum Model<'a> {
    /// A whole core of this machine throughout, the event waiting from the start.
    FullCore,
    /// On-demand Lambda: init pinned to one CPU with no quota (`burst`), for at most
    /// [`INIT_BURST_CAP`]; from its first `GET /invocation/next` the process, every thread, is in
    /// `quota`, where its first event is handed out and every warm one after.
    OnDemand {
        burst: &'a CpuShare,
        quota: &'a CpuShare,
    },
    /// Provisioned concurrency: init under `quota` too, ahead of traffic; the first event is
    /// handed out once init is done and a period has passed, so that the invoke starts with
    /// the whole quota, as a sandbox initialised minutes earlier does. Each warm event after it
    /// comes a period after the last answer too: the sparse traffic such a sandbox waits for,
    /// which meets the same idle CPU (caches, the quota's refill) as its first invoke.
    Provisioned { quota: &'a CpuShare },
}

impl Model<'_> {
    /// What Lambda sets `AWS_LAMBDA_INITIALIZATION_TYPE` to under this model.
    pub(crate) fn init_type(self) -> &'static str {
        match self {
            Model::FullCore | Model::OnDemand { .. } => ON_DEMAND,
            Model::Provisioned { .. } => PROVISIONED,
        }
    }
}

/// `AWS_LAMBDA_INITIALIZATION_TYPE` of an on-demand sandbox.
pub(crate) const ON_DEMAND: &str = "on-demand";
/// `AWS_LAMBDA_INITIALIZATION_TYPE` under provisioned concurrency.
pub(crate) const PROVISIONED: &str = "provisioned-concurrency";

/// The value of `STORE_BENCH_WARMUP` that makes a function at `memory_mb` under `init_type`
/// take the other choice than it takes as built (`shared::bootstrap::opens_connections_in_init`):
/// `never` where it opens its connections in init, `always` where it does not.
pub(crate) fn flipped_warm_up(init_type: &str, memory_mb: u32) -> &'static str {
    let init = shared::bootstrap::InitType::parse(Some(init_type));
    match init.opens_connections(Some(memory_mb)) {
        true => "never",
        false => "always",
    }
}

/// Lambda's limit on an on-demand init's burst: past it, init goes on inside the invoke, at
/// the memory size's share.
pub(crate) const INIT_BURST_CAP: Duration = Duration::from_secs(10);

pub(crate) fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
/// An error unless `reply` is a success: the function did not fail, and an HTTP answer's
/// status is below 400. A time is only reported for the work the event asked for.
fn refused(reply: &local_engine::runtime_api::Reply) -> Result<(), Error> {
    let status = serde_json::from_slice::<serde_json::Value>(&reply.body)
        .ok()
        .and_then(|answer| answer["statusCode"].as_u64());
    match (reply.ok, status) {
        (true, Some(400..)) | (false, _) => Err(format!(
            "the function did not do what its event asks: {}",
            String::from_utf8_lossy(&reply.body)
        )
        .into()),
        _ => Ok(()),
    }
}

/// Starts `command` against a fresh Runtime API and runs its cold start under `model` on the
/// event `events` gives, then sends `warm` more of its events one after another (under
/// [`Model::Provisioned`], each a period after the last answer). Under a share, the command is
/// [`CpuShare::command`]'s, and the clock starts once it has joined its first cgroup (which
/// takes the kernel ~10 ms, no part of a Lambda cold start) and is told to go.
pub(crate) async fn run_process(
    command: Command,
    events: &dyn Fn() -> Bytes,
    warm: usize,
    model: Model<'_>,
) -> Result<ProcessRun, Error> {
    let mut api = RuntimeApi::start().await?;
    let event = events();
    let (mut child, cold) = match model {
        Model::FullCore => full_core_start(&api, command, event).await?,
        Model::OnDemand { burst, quota } => {
            cold_start(&api, command, event, burst, |pid| async move {
                quota.admit(pid)
            })
            .await?
        }
        Model::Provisioned { quota } => {
            cold_start(&api, command, event, quota, |_| async {
                quota.idle_one_period().await;
                Ok(())
            })
            .await?
        }
    };
    refused(&cold.reply)?;
    let mut latencies = Vec::with_capacity(warm);
    for _ in 0..warm {
        if let Model::Provisioned { quota } = model {
            quota.idle_one_period().await;
        }
        let sent = Instant::now();
        let reply = api.invoke(events()).await?;
        latencies.push(reply.at - sent);
        refused(&reply)?;
    }
    let peak = child.id().map_or(0, peak_rss_kib);
    api.close_and_wait(&mut child).await?;
    Ok(ProcessRun {
        init: cold.init,
        invoke: cold.invoke,
        cold_cpu: cold.cpu,
        init_usage: cold.init_usage,
        warm: latencies,
        peak_rss_kib: peak,
    })
}

/// A cold start's phases, as [`run_process`] timed them.
struct Cold {
    init: Duration,
    invoke: Duration,
    /// Zero on a whole core, where nothing reads the process at the end of its init.
    init_usage: Usage,
    cpu: Duration,
    reply: local_engine::runtime_api::Reply,
}

/// `command` started on a whole core with `event` already waiting, as on a Lambda cold start.
async fn full_core_start(
    api: &RuntimeApi,
    command: Command,
    event: Bytes,
) -> Result<(tokio::process::Child, Cold), Error> {
    let first = api.invoke(event);
    let started = Instant::now();
    let child = api.spawn(command)?;
    let reply = tokio::time::timeout(Duration::from_secs(30), first).await??;
    let pid = child.id().unwrap_or_default();
    let init = api.ready_at().unwrap_or(reply.at);
    let cold = Cold {
        init: init - started,
        invoke: reply.at - init,
        init_usage: Usage::default(),
        cpu: Usage::of(pid).cpu,
        reply,
    };
    Ok((child, cold))
}

/// `command` started in `first` (pinned, the clock running from its exec) until its first
/// `GET /invocation/next` (or [`INIT_BURST_CAP`]), then `between` done with its PID while it
/// waits, then its first event handed out and timed to the response.
async fn cold_start<F>(
    api: &RuntimeApi,
    command: Command,
    event: Bytes,
    first: &CpuShare,
    between: impl FnOnce(u32) -> F,
) -> Result<(tokio::process::Child, Cold), Error>
where
    F: std::future::Future<Output = Result<(), Error>>,
{
    let mut child = api.spawn_with(command, Stdio::piped(), Stdio::null())?;
    let pid = child.id().ok_or("the process has already exited")?;
    // The launcher's own CPU (its shell, joining the cgroup) is read just before it execs the
    // function, and left out of every figure: no Lambda cold start pays it.
    let (started, launcher) = first.release(&mut child).await?;
    let cap = tokio::time::Instant::from_std(started + INIT_BURST_CAP);
    let ready = tokio::select! {
        at = api.ready() => at.ok_or("the Runtime API stopped during init")?,
        status = child.wait() => {
            return Err(format!("the process exited during init: {}", status?).into())
        }
        () = tokio::time::sleep_until(cap) => Instant::now(),
    };
    let init_usage = Usage::of(pid).since(launcher);
    between(pid).await?;
    let sent = Instant::now();
    let answer = api.invoke(event);
    let reply = tokio::time::timeout(Duration::from_secs(60), answer).await??;
    let cold = Cold {
        init: ready - started,
        invoke: reply.at - sent,
        init_usage,
        cpu: Usage::of(pid).since(launcher).cpu,
        reply,
    };
    Ok((child, cold))
}
/// Starts `command` against a Runtime API that never delivers an event: once it asks for its
/// first one (init done), the API closes and the runtime exits. How long init took, and what
/// it used by then.
pub(crate) async fn run_init_only(command: Command) -> Result<(Duration, Usage), Error> {
    let mut api = RuntimeApi::start().await?;
    let started = Instant::now();
    let mut child = api.spawn(command)?;
    let at = tokio::time::timeout(Duration::from_secs(60), api.ready())
        .await?
        .ok_or("the Runtime API stopped during init")?;
    let usage = child.id().map(Usage::of).unwrap_or_default();
    api.close_and_wait(&mut child).await?;
    Ok((at - started, usage))
}
/// What a process is started under: itself, callgrind (counting its instructions) or
/// `perf record` (sampling where its CPU goes), each writing to the file it names.
#[derive(Clone, Copy)]
pub(crate) enum Under<'a> {
    Itself,
    Callgrind(&'a Path),
    Perf(&'a Path),
}

/// `program args`, or the same under callgrind writing its counts to `callgrind_out`.
pub(crate) fn command(program: &Path, args: &[String], callgrind_out: Option<&Path>) -> Command {
    command_under(
        program,
        args,
        callgrind_out.map_or(Under::Itself, Under::Callgrind),
    )
}

/// `program args` under `under`.
pub(crate) fn command_under(program: &Path, args: &[String], under: Under<'_>) -> Command {
    let mut c = match under {
        Under::Callgrind(out) => {
            let mut c = Command::new("valgrind");
            c.arg("--tool=callgrind")
                .arg(format!("--callgrind-out-file={}", out.display()))
                .arg(program);
            c
        }
        Under::Perf(out) => crate::perf_split::command(program, out),
        Under::Itself => Command::new(program),
    };
    c.args(args);
    c
}
pub(crate) fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}
pub(crate) fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    percentile(&values, 50.0)
}
/// What [`measure`] found: medians of the cold starts, every warm latency (sorted).
pub(crate) struct Series {
    pub(crate) init: Duration,
    /// The first invoke alone.
    pub(crate) invoke: Duration,
    /// Init and the first invoke (the median of their sums).
    pub(crate) first: Duration,
    pub(crate) cold_cpu: Duration,
    /// The median of each of init's counters, its CPU among them.
    pub(crate) init_usage: Usage,
    pub(crate) warm: Vec<Duration>,
    pub(crate) rss_kib: u64,
    /// Every cold start (init and the first invoke), sorted: the spread of [`Series::first`].
    pub(crate) firsts: Vec<Duration>,
    /// Every first invoke, sorted.
    pub(crate) invokes: Vec<Duration>,
}
/// Cold starts `runs` times under `model`, each followed by `warm` requests, every one on the
/// event `events` gives (the same bytes each time, or a fresh cart's checkout): the medians of
/// the cold starts, the warm latencies of every run, the largest RSS.
pub(crate) async fn measure(
    model: Model<'_>,
    runs: usize,
    warm: usize,
    events: &dyn Fn() -> Bytes,
    make: impl Fn() -> Command,
) -> Result<Series, Error> {
    let mut done = Vec::with_capacity(runs);
    for _ in 0..runs {
        done.push(run_process(make(), events, warm, model).await?);
    }
    Ok(Series::of(done))
}

impl Series {
    /// The medians of `runs`' cold starts, all their warm latencies, the largest RSS.
    pub(crate) fn of(runs: Vec<ProcessRun>) -> Self {
        let each = |f: fn(&ProcessRun) -> Duration| median(runs.iter().map(f).collect());
        let sorted = |f: fn(&ProcessRun) -> Duration| {
            let mut all: Vec<Duration> = runs.iter().map(f).collect();
            all.sort();
            all
        };
        let mut warm: Vec<Duration> = runs.iter().flat_map(|r| r.warm.iter().copied()).collect();
        warm.sort();
        Series {
            init: each(|r| r.init),
            invoke: each(|r| r.invoke),
            first: each(|r| r.init + r.invoke),
            cold_cpu: each(|r| r.cold_cpu),
            init_usage: Usage::median(&runs.iter().map(|r| r.init_usage).collect::<Vec<_>>()),
            warm,
            rss_kib: runs.iter().map(|r| r.peak_rss_kib).max().unwrap_or(0),
            firsts: sorted(|r| r.init + r.invoke),
            invokes: sorted(|r| r.invoke),
        }
    }
}
