//! Where a process's CPU goes, by `perf record`'s samples (`cpu-clock`, 20 kHz): in the kernel
//! (exec, mapping and faulting pages in, sockets, exit), in user space in the dynamic loader and
//! the C libraries, and in the binary's own code. This machine's counters give no user/system
//! split of a few milliseconds (the kernel accounts them by its 4 ms tick), so the split is the
//! samples' shares applied to the exact CPU time (`crate::usage`). Where `perf` cannot sample,
//! the bench says so and prints none.

use std::path::Path;
use std::process::Stdio;

use local_engine::runtime_api::Error;
use tokio::process::Command;

/// `perf record`'s arguments: samples per second, and no BPF, build-ID or cache work at exit
/// (which takes it a second a run).
const RECORD: [&str; 9] = [
    "record",
    "-q",
    "--no-bpf-event",
    "-B",
    "-N",
    "-F",
    "20000",
    "-e",
    "cpu-clock",
];

/// Samples by where the CPU was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Split {
    /// In the binary's own code.
    pub(crate) binary: u64,
    /// In user space elsewhere: the dynamic loader, libc, libgcc, libm, the vDSO.
    pub(crate) libraries: u64,
    /// In the kernel, on the process's behalf.
    pub(crate) kernel: u64,
}

impl Split {
    pub(crate) fn total(&self) -> u64 {
        self.binary + self.libraries + self.kernel
    }

    pub(crate) fn add(&mut self, other: Split) {
        self.binary += other.binary;
        self.libraries += other.libraries;
        self.kernel += other.kernel;
    }

    /// Counts the samples of `perf script -F ip,dso`'s `text` (one line each: address, then the
    /// mapped object in parentheses), those in `binary` (its file name) apart.
    pub(crate) fn of_script(text: &str, binary: &str) -> Self {
        let mut split = Self::default();
        for line in text.lines() {
            let Some((address, object)) = line.trim().split_once(' ') else {
                continue;
            };
            let object = object.trim().trim_start_matches('(').trim_end_matches(')');
            let kernel = object.contains("kernel")
                || u64::from_str_radix(address, 16).is_ok_and(|ip| ip >= 1 << 63);
            if kernel {
                split.kernel += 1;
            } else if Path::new(object)
                .file_name()
                .is_some_and(|name| name == binary)
            {
                split.binary += 1;
            } else {
                split.libraries += 1;
            }
        }
        split
    }
}

/// Whether `perf record` can sample a process here.
pub(crate) async fn available() -> bool {
    let out = std::env::temp_dir().join(format!("store-bench-perf-{}.data", std::process::id()));
    let ok = Command::new("perf")
        .args(RECORD)
        .arg("-o")
        .arg(&out)
        .args(["--", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await
        .is_ok_and(|status| status.success());
    let _ = std::fs::remove_file(&out);
    ok
}

/// `program` started under `perf record`, its samples written to `out`.
pub(crate) fn command(program: &Path, out: &Path) -> Command {
    let mut c = Command::new("perf");
    c.args(RECORD).arg("-o").arg(out).arg("--").arg(program);
    c
}

/// The samples `out` holds, those in `binary`'s own code apart.
pub(crate) async fn read(out: &Path, binary: &str) -> Result<Split, Error> {
    let script = Command::new("perf")
        .args(["script", "-F", "ip,dso", "-i"])
        .arg(out)
        .stderr(Stdio::null())
        .output()
        .await?;
    if !script.status.success() {
        return Err(format!("perf script could not read {}", out.display()).into());
    }
    Ok(Split::of_script(
        &String::from_utf8_lossy(&script.stdout),
        binary,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_counted_by_where_they_fell() {
        let script = "\
    ffffffff8123abcd ([kernel.kallsyms])
    7f12aa001234 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
    7f12aa005678 (/usr/lib/x86_64-linux-gnu/libc.so.6)
    55d1000a1b2c (/work/target/release/get-customer)
    55d1000a1b2d (/work/target/release/get-customer)
    ffffffff81000000 ([unknown])
";
        let split = Split::of_script(script, "get-customer");
        assert_eq!(
            split,
            Split {
                binary: 2,
                libraries: 2,
                kernel: 2
            }
        );
        assert_eq!(split.total(), 6);
    }
}
