//! Lambda's CPU share for a memory size, as a CFS bandwidth quota on a cgroup of the measured
//! process (the memory section's module documentation says what this models).

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::process::Command;

use local_engine::runtime_api::Error;

/// Lambda's memory size with one full vCPU.
const FULL_VCPU_MB: u32 = 1769;

/// The CPU every measured process runs on ([`CpuShare::release`]).
const PINNED_CPU: &str = "1";

/// How long every share is left idle before a process starts in it ([`CpuShare::release`]).
const DRAIN: Duration = Duration::from_millis(100);

/// The CPU the bench itself runs on while it measures ([`PinnedApart`]).
const BENCH_CPU: &str = "0";

/// The CFS period of every quota unless `--cpu-period-ms` says otherwise, µs: the one whose
/// throttle has the shape of Lambda's. The only public trace of a real 128 MB function's
/// throttling (github.com/pwrdrvr/lambda-throttling, docs/index.html, measured 2025-03-01) shows
/// a CPU-bound loop running 4.3 ms of CPU (median; the first run 6.9 ms) and then pausing, one
/// cycle every ~60 ms, its pauses in steps of 20 ms; at 512 and 1,024 MB, one cycle every ~20
/// ms. A 20 ms period gives that shape on this kernel: the quota (1.45 ms at 128 MB) is checked
/// at the scheduler's tick, so a busy process overruns it to ~4 ms and then pays the debt over
/// whole periods. The memory section measures the shape it gets (`memory::periods`) and prints
/// it beside the trace's.
pub(crate) const DEFAULT_PERIOD_US: u64 = 20_000;

/// The kernel's default period, which container runtimes also use for `--cpus`: the period of
/// the bench's figures before the trace, kept beside them for comparison.
pub(crate) const KERNEL_PERIOD_US: u64 = 100_000;

/// `memory_mb`'s share of one CPU, µs per `period_us`.
fn quota_us(memory_mb: u32, period_us: u64) -> u64 {
    period_us * u64::from(memory_mb) / u64::from(FULL_VCPU_MB)
}

/// A cgroup whose processes get `memory_mb`'s share of one CPU, handed out per `period_us`.
pub(crate) struct CpuShare {
    pub memory_mb: u32,
    /// The CFS period its quota is handed out in, µs.
    pub period_us: u64,
    dir: PathBuf,
}

impl CpuShare {
    /// The quota, µs per period.
    pub(crate) fn quota_us(&self) -> u64 {
        quota_us(self.memory_mb, self.period_us)
    }

    /// Waits one period: long enough for a quota spent to refill, and for a process to go idle
    /// as a sandbox does between sparse requests.
    pub(crate) async fn idle_one_period(&self) {
        tokio::time::sleep(Duration::from_micros(self.period_us)).await;
    }

    /// Creates the cgroup (cgroup v1 `cpu`, else a v2 hierarchy with the `cpu` controller);
    /// why not, when neither can be written here.
    pub(crate) fn create(memory_mb: u32, period_us: u64) -> Result<Self, String> {
        let name = format!("store-bench-{memory_mb}mb-{period_us}us");
        Self::cgroup(name, memory_mb, period_us, true)
    }

    /// The CPU an on-demand init runs on: the same pinned CPU, with no quota (Lambda's init
    /// burst; `memory_mb` is only the size it stands for).
    pub(crate) fn burst(memory_mb: u32, period_us: u64) -> Result<Self, String> {
        let name = format!("store-bench-burst-{memory_mb}mb-{period_us}us");
        Self::cgroup(name, memory_mb, period_us, false)
    }

    fn cgroup(name: String, memory_mb: u32, period_us: u64, quota: bool) -> Result<Self, String> {
        let quota = quota.then(|| quota_us(memory_mb, period_us));
        let v1 = Path::new("/sys/fs/cgroup/cpu");
        let v2 = ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"]
            .iter()
            .map(Path::new)
            .find(|root| {
                std::fs::read_to_string(root.join("cgroup.controllers"))
                    .is_ok_and(|c| c.split_whitespace().any(|c| c == "cpu"))
            });
        let write = |file: PathBuf, value: String| {
            std::fs::write(&file, value).map_err(|err| format!("{}: {err}", file.display()))
        };
        let dir = if v1.join("cpu.cfs_quota_us").exists() {
            let dir = v1.join(&name);
            std::fs::create_dir_all(&dir).map_err(|err| format!("{}: {err}", dir.display()))?;
            write(dir.join("cpu.cfs_period_us"), period_us.to_string())?;
            let quota = quota.map_or("-1".to_owned(), |q| q.to_string());
            write(dir.join("cpu.cfs_quota_us"), quota)?;
            dir
        } else if let Some(root) = v2 {
            let _ = std::fs::write(root.join("cgroup.subtree_control"), "+cpu");
            let dir = root.join(&name);
            std::fs::create_dir_all(&dir).map_err(|err| format!("{}: {err}", dir.display()))?;
            let quota = quota.map_or("max".to_owned(), |q| q.to_string());
            write(dir.join("cpu.max"), format!("{quota} {period_us}"))?;
            dir
        } else {
            return Err("no cgroup v1 `cpu` controller and no v2 hierarchy offering `cpu`".into());
        };
        Ok(Self {
            memory_mb,
            period_us,
            dir,
        })
    }

    /// `program args…` started inside this share: `sh` joins the cgroup, waits for a line on
    /// its stdin ([`CpuShare::release`]), then becomes the program.
    pub(crate) fn command(&self, program: &Path, args: &[String]) -> Command {
        self.command_resolving(program, args, None)
    }

    /// The same, resolving host names through the resolver whose `resolv.conf` and
    /// `nsswitch.conf` are in `conf` (`crate::resolver`): the shell runs in a mount namespace
    /// of its own (`unshare`) and mounts them over the machine's before it joins the cgroup, so
    /// none of it is in the measured cold start.
    pub(crate) fn command_resolving(
        &self,
        program: &Path,
        args: &[String],
        conf: Option<&Path>,
    ) -> Command {
        let join = format!(
            "echo $$ > '{}/cgroup.procs' && read -r go && exec \"$0\" \"$@\" </dev/null",
            self.dir.display()
        );
        let mut command = match conf {
            Some(conf) => {
                let mut c = Command::new("unshare");
                c.args(["--mount", "--propagation", "private", "sh", "-c"])
                    .arg(format!(
                        "mount --bind '{0}/resolv.conf' /etc/resolv.conf && \
                         mount --bind '{0}/nsswitch.conf' /etc/nsswitch.conf && {join}",
                        conf.display()
                    ));
                c
            }
            None => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(join);
                c
            }
        };
        command.arg(program).args(args).kill_on_drop(true);
        command
    }

    /// Waits until `child` (started by [`CpuShare::command`]) is in the cgroup and the cgroup's
    /// quota is whole, then lets it exec the program: the moment its cold start begins, and
    /// what the launcher had used by then (its shell, and the kernel's work moving it into the
    /// cgroup), which no Lambda cold start pays.
    pub(crate) async fn release(
        &self,
        child: &mut tokio::process::Child,
    ) -> Result<(std::time::Instant, crate::usage::Usage), Error> {
        use tokio::io::AsyncWriteExt;
        let pid = child.id().ok_or("the process has already exited")?;
        let name = self
            .dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !std::fs::read_to_string(format!("/proc/{pid}/cgroup"))
            .is_ok_and(|c| c.contains(&name))
        {
            if std::time::Instant::now() > deadline {
                return Err(format!("process {pid} never joined {}", self.dir.display()).into());
            }
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
        // On one CPU: the quota is handed to each CPU in 5 ms slices, and what one CPU holds is
        // stranded when the process moves to the other, which would throttle a cold start well
        // short of its share (up to a Lambda function's whole vCPU is one CPU's worth).
        let pinned = tokio::process::Command::new("taskset")
            .args(["-p", "-c", PINNED_CPU, &pid.to_string()])
            .stdout(std::process::Stdio::null())
            .status()
            .await?;
        if !pinned.success() {
            return Err(format!("taskset could not pin process {pid}").into());
        }
        // A new sandbox starts with its whole quota. A process that overran the quota leaves
        // its cgroup a debt the kernel recovers over the next periods (a CPU-bound process
        // overruns by up to a tick, 4 ms here: three periods of 128 MB's quota at 20 ms), and
        // the next process to join it would pay it: every share is left idle for
        // [`DRAIN`] (and at least three periods) first, this one and the quota an on-demand
        // init moves into alike.
        tokio::time::sleep(DRAIN.max(Duration::from_micros(3 * self.period_us))).await;
        let mut stdin = child
            .stdin
            .take()
            .ok_or("no stdin to release the process")?;
        let launcher = crate::usage::Usage::of(pid);
        let started = std::time::Instant::now();
        stdin.write_all(b"go\n").await?;
        drop(stdin);
        Ok((started, launcher))
    }

    /// Moves process `pid`, every thread of it, into this share: where an on-demand function
    /// goes from its first `GET /invocation/next` on. (Writing `cgroup.procs` moves the whole
    /// thread group, in v1 and v2 alike; the process is waiting for its event meanwhile.)
    pub(crate) fn admit(&self, pid: u32) -> Result<(), Error> {
        let procs = self.dir.join("cgroup.procs");
        std::fs::write(&procs, pid.to_string())
            .map_err(|err| format!("{}: {err}", procs.display()))?;
        Ok(())
    }

    /// How often the quota stopped the cgroup's processes, and for how long in all.
    pub(crate) fn throttled(&self) -> (u64, Duration) {
        let stat = std::fs::read_to_string(self.dir.join("cpu.stat")).unwrap_or_default();
        let field = |name: &str| {
            stat.lines()
                .find_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        // v1 reports nanoseconds, v2 microseconds.
        let time = match field("throttled_time ") {
            0 => Duration::from_micros(field("throttled_usec ")),
            ns => Duration::from_nanos(ns),
        };
        (field("nr_throttled "), time)
    }
}

impl Drop for CpuShare {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// While it lives, the bench itself (every thread: the engine, the TLS fronts, the Runtime API,
/// the resolver) runs on the CPU the measured processes do not ([`PINNED_CPU`]): what serves a
/// function is not charged to its CPU, as DynamoDB's servers are not a Lambda function's.
pub(crate) struct PinnedApart;

impl PinnedApart {
    pub(crate) fn pin() -> Result<Self, Error> {
        taskset_all(BENCH_CPU)?;
        Ok(Self)
    }
}

impl Drop for PinnedApart {
    fn drop(&mut self) {
        let every = format!(
            "0-{}",
            std::thread::available_parallelism().map_or(1, |n| n.get()) - 1
        );
        let _ = taskset_all(&every);
    }
}

/// Every thread of this process on `cpus`.
fn taskset_all(cpus: &str) -> Result<(), Error> {
    let pinned = std::process::Command::new("taskset")
        .args(["-a", "-p", "-c", cpus, &std::process::id().to_string()])
        .stdout(std::process::Stdio::null())
        .status()?;
    if !pinned.success() {
        return Err(format!("taskset could not pin the bench to CPU {cpus}").into());
    }
    Ok(())
}
