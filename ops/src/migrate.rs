//! `store-migrate`: runs every pending data migration (`shared::dynamo::migrations`) against the
//! table `TABLE_NAME` (or `--table`), with credentials, region and endpoint from the standard AWS
//! configuration. `make migrate` points it at `make dev`'s engine unless `TABLE_NAME` is set.
//!
//! Run it once after deploying the code that writes what a migration adds (the rollout in
//! docs/adding-an-access-pattern.md). It is safe beside live traffic and safe to run again: a
//! stopped run continues from its checkpoints, a completed migration is skipped.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use shared::domain::error::BoxError;
use shared::dynamo::migrations::{Budget, Counts, Migration, Options, Progress, Report};

const USAGE: &str = "usage: store-migrate [--segments N] [--max-rcu R] [--max-wcu W] [--dry-run] [--rerun | --retry-unplaceable] [--json] [--table NAME]";

/// The least a `--max-rcu` / `--max-wcu` may be: half a unit a second (an eventually
/// consistent read of one item every second). Below it a run would never end.
const MIN_RATE: f64 = 0.5;

struct Args {
    options: Options,
    json: bool,
    table: Option<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        options: Options::default(),
        json: false,
        table: None,
    };
    let rate = |value: Option<String>, flag: &str| -> Result<Option<f64>, String> {
        let value = value.ok_or_else(|| format!("{flag} needs a number\n{USAGE}"))?;
        match value.parse::<f64>() {
            Ok(rate) if rate.is_finite() && rate >= MIN_RATE => Ok(Some(rate)),
            _ => Err(format!(
                "{flag} must be a number of units a second, at least {MIN_RATE}, not {value:?}"
            )),
        }
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--segments" => {
                let value = args.next().unwrap_or_default();
                parsed.options.segments = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=1000).contains(n))
                    .ok_or_else(|| format!("--segments must be 1 to 1000, not {value:?}"))?;
            }
            "--max-rcu" => parsed.options.max_read = rate(args.next(), "--max-rcu")?,
            "--max-wcu" => parsed.options.max_write = rate(args.next(), "--max-wcu")?,
            "--dry-run" => parsed.options.dry_run = true,
            "--rerun" => parsed.options.rerun = true,
            "--retry-unplaceable" => parsed.options.retry_unplaceable = true,
            "--json" => parsed.json = true,
            "--table" => {
                let name = args
                    .next()
                    .filter(|name| !name.is_empty() && !name.starts_with("--"))
                    .ok_or_else(|| format!("--table needs a table name\n{USAGE}"))?;
                parsed.table = Some(name);
            }
            _ => return Err(format!("unknown argument {arg:?}\n{USAGE}")),
        }
    }
    if parsed.options.rerun && parsed.options.retry_unplaceable {
        return Err(format!("--rerun or --retry-unplaceable, not both\n{USAGE}"));
    }
    Ok(parsed)
}

/// One line of progress: on a terminal rewritten in place, otherwise printed every few seconds.
fn progress_line(
    migration: Migration,
    counts: Counts,
    budget: &Budget,
    items: Option<i64>,
) -> String {
    let spent = budget.spent();
    let seconds = budget.elapsed().as_secs_f64();
    let share = items
        .filter(|n| *n > 0)
        .map(|n| (counts.scanned as f64 / n as f64).min(1.0));
    let eta = share
        .filter(|s| *s > 0.0)
        .map(|s| format!(", ETA {:.0} s", seconds / s - seconds))
        .unwrap_or_default();
    let percent = share
        .map(|s| format!(" ({:.0}%)", s * 100.0))
        .unwrap_or_default();
    format!(
        "{}: scanned {}{percent}, changed {}, skipped {}, deferred {}, {:.1} RCU / {:.1} WCU used in {seconds:.0} s{eta}",
        migration.name(),
        counts.scanned,
        counts.changed,
        counts.skipped,
        counts.deferred,
        spent.read,
        spent.write
    )
}

async fn show_progress(
    migration: Migration,
    progress: Arc<Progress>,
    budget: Arc<Budget>,
    items: Option<i64>,
) {
    let terminal = std::io::stderr().is_terminal();
    let every = if terminal {
        Duration::from_millis(200)
    } else {
        Duration::from_secs(5)
    };
    loop {
        tokio::time::sleep(every).await;
        let line = progress_line(migration, progress.counts(), &budget, items);
        if terminal {
            eprint!("\r\x1b[2K{line}");
        } else {
            eprintln!("{line}");
        }
    }
}

fn summary(report: &Report) -> String {
    if report.already_complete {
        return format!(
            "{}: complete already; nothing to do",
            report.migration.name()
        );
    }
    let c = report.counts;
    format!(
        "{}: scanned {}, changed {}, skipped {} (set already), {} line items it cannot place (each logged with its key and reason, and recorded: --retry-unplaceable looks again), {:.1} RCU and {:.1} WCU in {:.1} s{}",
        report.migration.name(),
        c.scanned,
        c.changed,
        c.skipped,
        c.unplaceable,
        report.spent.read,
        report.spent.write,
        report.seconds,
        if report.segments_resumed > 0 {
            format!(
                "; {} segments finished by an earlier run",
                report.segments_resumed
            )
        } else {
            String::new()
        }
    )
}

/// Exit status: 0 done, 2 misused (nothing was read or written), 1 the run failed.
#[tokio::main]
async fn main() -> ExitCode {
    store_ops::init_logging();
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(usage) => {
            eprintln!("store-migrate: {usage}");
            return ExitCode::from(2);
        }
    };
    let table = match store_ops::table(args.table.clone()) {
        Ok(table) => table,
        Err(err) => {
            eprintln!("store-migrate: {err}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(args, table).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("store-migrate: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args, table: String) -> Result<(), BoxError> {
    let store = store_ops::connect(table.clone()).await?;
    // For the progress line's share and ETA: DynamoDB's item count, updated every few hours.
    let items = store
        .client()
        .describe_table()
        .table_name(&table)
        .send()
        .await
        .ok()
        .and_then(|out| out.table?.item_count);
    let budget = Arc::new(Budget::new(args.options.max_read, args.options.max_write));
    let mut total = Counts::default();
    for migration in Migration::ALL {
        let progress = Arc::new(Progress::default());
        let shown = (!args.json).then(|| {
            tokio::spawn(show_progress(
                migration,
                progress.clone(),
                budget.clone(),
                items,
            ))
        });
        let report = store
            .migrate(migration, &args.options, &budget, &progress)
            .await;
        if let Some(shown) = shown {
            shown.abort();
            if std::io::stderr().is_terminal() {
                eprintln!();
            }
        }
        let report = report?;
        if !args.json {
            println!(
                "{}{}",
                summary(&report),
                if args.options.dry_run {
                    " (dry run: nothing written)"
                } else {
                    ""
                }
            );
        }
        total += report.counts;
    }
    if args.json {
        let spent = budget.spent();
        let json = serde_json::json!({
            "table": table,
            "dryRun": args.options.dry_run,
            "scanned": total.scanned,
            "changed": total.changed,
            "skipped": total.skipped,
            "deferred": total.deferred,
            "unplaceable": total.unplaceable,
            "consumedRead": spent.read,
            "consumedWrite": spent.write,
            "seconds": (budget.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
        });
        println!("{json}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Args, String> {
        parse_args(list.iter().map(|s| (*s).to_owned()))
    }

    #[test]
    fn flags_are_read_and_bad_ones_refused() {
        let parsed =
            args(&["--segments", "8", "--max-wcu", "50", "--dry-run", "--json"]).expect("parses");
        assert_eq!(parsed.options.segments, 8);
        assert_eq!(parsed.options.max_write, Some(50.0));
        assert_eq!(parsed.options.max_read, None);
        assert!(parsed.options.dry_run && parsed.json);
        for bad in [
            &["--segments", "0"][..],
            &["--max-rcu", "-1"],
            &["--max-rcu", "1e-30"],
            &["--max-rcu", "inf"],
            &["--max-wcu", "NaN"],
            &["--max-wcu"],
            &["--table"],
            &["--table", "--json"],
            &["--rerun", "--retry-unplaceable"],
            &["--nope"],
        ] {
            assert!(args(bad).is_err(), "{bad:?}");
        }
    }
}
