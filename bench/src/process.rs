//! One Lambda process under the bench's Runtime API: its init, first response, warm
//! latencies, CPU time and peak RSS, and the series of cold starts that summarise them.

use axum::body::Bytes;
use local_engine::runtime_api::{Error, RuntimeApi};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::process::Command;

/// One process's life: init, first response, warm latencies, peak RSS.
pub(crate) struct ProcessRun {
    pub(crate) init: Duration,
    pub(crate) first_response: Duration,
    /// CPU time (every thread, user and system) to its first response.
    pub(crate) cold_cpu: Duration,
    pub(crate) warm: Vec<Duration>,
    pub(crate) peak_rss_kib: u64,
}
/// The CPU time process `pid` has used so far, all its threads (`/proc/<pid>/task/*/schedstat`,
/// nanoseconds on the CPU).
pub(crate) fn cpu_time(pid: u32) -> Duration {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten();
    Duration::from_nanos(
        tasks
            .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
            .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
            .sum(),
    )
}
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
/// Starts `command` against a fresh Runtime API with `event` already waiting (as on a cold
/// start), then sends `warm` more events one after another. With a `share`, the command is
/// [`crate::cpu_share::CpuShare::command`]'s, and the clock starts once it has joined the share's cgroup
/// (which takes the kernel ~10 ms, no part of a Lambda cold start) and is told to go.
pub(crate) async fn run_process(
    command: Command,
    event: &Bytes,
    warm: usize,
    share: Option<&crate::cpu_share::CpuShare>,
) -> Result<ProcessRun, Error> {
    let mut api = RuntimeApi::start().await?;
    let first = api.invoke(event.clone());
    let mut started = Instant::now();
    let mut child = match share {
        Some(_) => api.spawn_with(command, Stdio::piped(), Stdio::null())?,
        None => api.spawn(command)?,
    };
    if let Some(share) = share {
        started = share.release(&mut child).await?;
    }
    let reply = tokio::time::timeout(Duration::from_secs(30), first).await??;
    if !reply.ok {
        return Err(format!(
            "the function failed: {}",
            String::from_utf8_lossy(&reply.body)
        )
        .into());
    }
    let first_response = reply.at - started;
    let cold_cpu = child.id().map_or(Duration::ZERO, cpu_time);
    let init = api.ready_at().map_or(first_response, |at| at - started);
    let mut latencies = Vec::with_capacity(warm);
    for _ in 0..warm {
        let sent = Instant::now();
        let reply = api.invoke(event.clone()).await?;
        latencies.push(reply.at - sent);
    }
    let peak = child.id().map_or(0, peak_rss_kib);
    api.close_and_wait(&mut child).await?;
    Ok(ProcessRun {
        init,
        first_response,
        cold_cpu,
        warm: latencies,
        peak_rss_kib: peak,
    })
}
/// Starts `command` against a Runtime API that never delivers an event: once it asks for its
/// first one (init done), the API closes and the runtime exits. How long init took.
pub(crate) async fn run_init_only(command: Command) -> Result<Duration, Error> {
    let mut api = RuntimeApi::start().await?;
    let started = Instant::now();
    let mut child = api.spawn(command)?;
    let ready = async {
        loop {
            if let Some(at) = api.ready_at() {
                return at;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    };
    let at = tokio::time::timeout(Duration::from_secs(60), ready).await?;
    api.close_and_wait(&mut child).await?;
    Ok(at - started)
}
/// `program args`, or the same under callgrind writing its counts to `callgrind_out`.
pub(crate) fn command(program: &Path, args: &[String], callgrind_out: Option<&Path>) -> Command {
    let mut c = match callgrind_out {
        Some(out) => {
            let mut c = Command::new("valgrind");
            c.arg("--tool=callgrind")
                .arg(format!("--callgrind-out-file={}", out.display()))
                .arg(program);
            c
        }
        None => Command::new(program),
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
    pub(crate) first: Duration,
    pub(crate) cold_cpu: Duration,
    pub(crate) warm: Vec<Duration>,
    pub(crate) rss_kib: u64,
}
/// Cold starts `runs` times, each process inside `share` when given, each followed by `warm`
/// requests: the medians of the cold starts, the warm latencies of every run, the largest RSS.
pub(crate) async fn measure(
    share: Option<&crate::cpu_share::CpuShare>,
    runs: usize,
    warm: usize,
    event: &Bytes,
    make: impl Fn() -> Command,
) -> Result<Series, Error> {
    let mut inits = Vec::new();
    let mut firsts = Vec::new();
    let mut cpus = Vec::new();
    let mut warms = Vec::new();
    let mut rss = 0;
    for _ in 0..runs {
        let run = run_process(make(), event, warm, share).await?;
        inits.push(run.init);
        firsts.push(run.first_response);
        cpus.push(run.cold_cpu);
        warms.extend(run.warm);
        rss = rss.max(run.peak_rss_kib);
    }
    warms.sort();
    Ok(Series {
        init: median(inits),
        first: median(firsts),
        cold_cpu: median(cpus),
        warm: warms,
        rss_kib: rss,
    })
}
