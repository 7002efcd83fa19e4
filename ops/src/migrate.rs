//! `store-migrate`: runs every pending data migration (`shared::dynamo::migrations`) against the
//! table `TABLE_NAME` (or `--table`), with credentials, region and endpoint from the standard AWS
//! configuration. `make migrate` points it at `make dev`'s engine unless `TABLE_NAME` is set.
//!
//! Run it once after deploying the code that writes what a migration adds (the rollout in
//! docs/adding-an-access-pattern.md). It is safe beside live traffic and safe to run again: a
//! stopped run continues from its checkpoints, a completed migration is skipped.

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use shared::domain::error::BoxError;
use shared::dynamo::migrations::{Budget, Counts, Migration, Options, Progress, Report};

const USAGE: &str = "usage: store-migrate [--segments N] [--max-rcu R] [--max-wcu W] [--dry-run] [--json] [--table NAME]";

struct Args {
    options: Options,
    json: bool,
    table: Option<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, BoxError> {
    let mut parsed = Args {
        options: Options {
            segments: 4,
            max_read: None,
            max_write: None,
            dry_run: false,
        },
        json: false,
        table: None,
    };
    let rate = |value: Option<String>, flag: &str| -> Result<Option<f64>, BoxError> {
        let value = value.ok_or_else(|| format!("{flag} needs a number\n{USAGE}"))?;
        match value.parse::<f64>() {
            Ok(rate) if rate > 0.0 && rate.is_finite() => Ok(Some(rate)),
            _ => Err(format!("{flag} must be a positive number, not {value:?}").into()),
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
            "--json" => parsed.json = true,
            "--table" => parsed.table = args.next(),
            _ => return Err(format!("unknown argument {arg:?}\n{USAGE}").into()),
        }
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
        "{}: scanned {}, changed {}, skipped {} (set already), {} line items left without an order (logged), {:.1} RCU and {:.1} WCU in {:.1} s{}",
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

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    store_ops::init_logging();
    let args = parse_args(std::env::args().skip(1))?;
    let table = store_ops::table(args.table)?;
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

    fn args(list: &[&str]) -> Result<Args, BoxError> {
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
            &["--max-wcu"],
            &["--nope"],
        ] {
            assert!(args(bad).is_err(), "{bad:?}");
        }
    }
}
