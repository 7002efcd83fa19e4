//! What a process has used so far, read from `/proc` while it waits: CPU time (every thread,
//! to the nanosecond), page faults, context switches and threads. Read at the first
//! `GET /invocation/next`, it is what init used; read before the process execs the function
//! (under a launcher), it is what the launcher used, which the cold start does not include.

use std::time::Duration;

/// A process's counters at one moment, or the difference of two such readings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    /// On the CPU, user and system, every thread (`/proc/<pid>/task/*/schedstat`).
    pub(crate) cpu: Duration,
    /// Faults served from memory (a page mapped, copied or zeroed) and from disk
    /// (`/proc/<pid>/stat`, the whole thread group).
    pub(crate) minor_faults: u64,
    pub(crate) major_faults: u64,
    /// Times a thread gave up the CPU to wait, and times it was taken off it
    /// (`/proc/<pid>/task/*/status`).
    pub(crate) voluntary_switches: u64,
    pub(crate) involuntary_switches: u64,
    /// Threads alive.
    pub(crate) threads: u64,
}

/// The CPU one thread has used, user and system, to the nanosecond: the first field of the
/// `schedstat` of its `/proc` folder `task` (`/proc/<pid>/task/<tid>`, `/proc/thread-self`);
/// zero where there is none.
pub(crate) fn task_cpu(task: &std::path::Path) -> Duration {
    std::fs::read_to_string(task.join("schedstat"))
        .ok()
        .and_then(|stat| stat.split_whitespace().next()?.parse().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}

impl Usage {
    /// Process `pid`'s counters now; zero where `/proc` has nothing (the process is gone).
    pub(crate) fn of(pid: u32) -> Self {
        let mut usage = Self::default();
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
            .flatten();
        for task in tasks {
            usage.threads += 1;
            let read = |file: &str| std::fs::read_to_string(task.path().join(file)).ok();
            usage.cpu += task_cpu(&task.path());
            let status = read("status").unwrap_or_default();
            usage.voluntary_switches += field(&status, "voluntary_ctxt_switches:");
            usage.involuntary_switches += field(&status, "nonvoluntary_ctxt_switches:");
        }
        if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            // After the command name's closing parenthesis: state, ppid, pgrp, session, tty_nr,
            // tpgid, flags, minflt, cminflt, majflt (proc_pid_stat(5), fields 3 to 12).
            let fields: Vec<&str> = stat
                .rsplit_once(')')
                .map_or("", |(_, rest)| rest)
                .split_whitespace()
                .collect();
            let number = |i: usize| fields.get(i).and_then(|f| f.parse().ok()).unwrap_or(0);
            usage.minor_faults = number(7);
            usage.major_faults = number(9);
        }
        usage
    }

    /// What was used from `before` to `self` (threads: those alive now).
    pub(crate) fn since(self, before: Usage) -> Self {
        Self {
            cpu: self.cpu.saturating_sub(before.cpu),
            minor_faults: self.minor_faults.saturating_sub(before.minor_faults),
            major_faults: self.major_faults.saturating_sub(before.major_faults),
            voluntary_switches: self
                .voluntary_switches
                .saturating_sub(before.voluntary_switches),
            involuntary_switches: self
                .involuntary_switches
                .saturating_sub(before.involuntary_switches),
            threads: self.threads,
        }
    }

    /// The median of each counter over `runs`.
    pub(crate) fn median(runs: &[Usage]) -> Self {
        let of = |f: fn(&Usage) -> u64| {
            let mut values: Vec<u64> = runs.iter().map(f).collect();
            values.sort_unstable();
            values.get(values.len() / 2).copied().unwrap_or(0)
        };
        Self {
            cpu: Duration::from_nanos(of(|u| u.cpu.as_nanos() as u64)),
            minor_faults: of(|u| u.minor_faults),
            major_faults: of(|u| u.major_faults),
            voluntary_switches: of(|u| u.voluntary_switches),
            involuntary_switches: of(|u| u.involuntary_switches),
            threads: of(|u| u.threads),
        }
    }
}

/// The number after `name` in a `/proc/<pid>/status` text.
fn field(status: &str, name: &str) -> u64 {
    status
        .lines()
        .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test's own process: it has run, faulted its pages in and has a thread; and a
    /// process that is gone reads as nothing used.
    #[test]
    fn reads_a_live_process_and_nothing_of_a_gone_one() {
        let now = Usage::of(std::process::id());
        assert!(now.cpu > Duration::ZERO, "{now:?}");
        assert!(now.minor_faults > 0, "{now:?}");
        assert!(now.threads >= 1, "{now:?}");
        let later = Usage::of(std::process::id());
        assert!(later.since(now).cpu <= later.cpu);
        assert_eq!(Usage::of(u32::MAX), Usage::default());
    }

    #[test]
    fn the_median_is_taken_counter_by_counter() {
        let run = |ms: u64, faults: u64| Usage {
            cpu: Duration::from_millis(ms),
            minor_faults: faults,
            ..Usage::default()
        };
        let median = Usage::median(&[run(3, 10), run(1, 30), run(2, 20)]);
        assert_eq!(median.cpu, Duration::from_millis(2));
        assert_eq!(median.minor_faults, 20);
    }
}
