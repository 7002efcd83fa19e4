//! Instruction counts under callgrind: a cold start's init, and one warm invocation.

use crate::process::{Model, run_init_only, run_process};
use axum::body::Bytes;
use local_engine::runtime_api::Error;
use std::path::Path;
use tokio::process::Command;

pub(crate) fn callgrind_total(out: &Path) -> Result<u64, Error> {
    let text = std::fs::read_to_string(out)?;
    Ok(text
        .lines()
        .find_map(|l| {
            l.strip_prefix("totals:")
                .or_else(|| l.strip_prefix("summary:"))
        })
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or("callgrind wrote no totals")?)
}
/// Instructions a process executes, counted by callgrind (stable on a busy machine, unlike
/// time): to get ready (init), for its first request, and per warm request.
#[derive(Clone, Copy)]
pub(crate) struct Instructions {
    pub(crate) init: u64,
    pub(crate) first: u64,
    pub(crate) warm: f64,
}

impl Instructions {
    /// What the first request costs beyond a warm one: its one-time work.
    pub(crate) fn first_beyond_warm(&self) -> f64 {
        self.first as f64 - self.warm
    }
}
/// Four runs: init only; one request; 20 and 120 more (their difference / 100 is a warm
/// request), each on the event `events` gives. What the first request costs beyond a warm one
/// is the one-time work a connection warm-up during init would move there.
pub(crate) async fn count_instructions(
    events: &dyn Fn() -> Bytes,
    make: impl Fn(&Path) -> Command,
) -> Result<Instructions, Error> {
    let dir = callgrind_dir()?;
    let init = init_instructions(&dir, &make).await?;
    let mut totals = Vec::new();
    for (i, warm) in [0usize, 20, 120].into_iter().enumerate() {
        let out = dir.join(format!("run{i}.out"));
        let _ = std::fs::remove_file(&out);
        run_process(make(&out), events, warm, Model::FullCore).await?;
        totals.push(callgrind_total(&out)?);
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Instructions {
        init,
        first: totals[0].saturating_sub(init),
        warm: (totals[2] as f64 - totals[1] as f64) / 100.0,
    })
}
/// A folder of this run's own for callgrind's counts.
pub(crate) fn callgrind_dir() -> Result<std::path::PathBuf, Error> {
    let dir = std::env::temp_dir().join(format!("store-bench-callgrind-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
/// The instructions a function's init executes (the process ends when it asks for an event).
pub(crate) async fn init_instructions(
    dir: &Path,
    make: impl Fn(&Path) -> Command,
) -> Result<u64, Error> {
    let out = dir.join("init.out");
    run_init_only(make(&out)).await?;
    callgrind_total(&out)
}
