//! `store-query`: a PartiQL SELECT against the store's table, read-only and never a full scan
//! by accident (`store_ops::partiql::statement` says what it accepts and why). `make query
//! Q="SELECT …"` points it at `make dev`'s engine unless `TABLE_NAME` is set; credentials,
//! region and endpoint otherwise come from the standard AWS configuration. docs/partiql.md has
//! each access pattern as a statement.
//!
//! Exit status: 0 read, 2 refused or misused (nothing was sent), 1 the request failed.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use shared::domain::error::BoxError;
use store_ops::partiql::{self, Checked, Outcome, render};

const USAGE: &str = "usage: store-query [--json | --table-view] [--limit N] [--allow-scan] [--table NAME] \"SELECT …\"";

struct Args {
    statement: String,
    json: bool,
    limit: Option<usize>,
    allow_scan: bool,
    table: Option<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut statement = None;
    let (mut json, mut limit, mut allow_scan, mut table) = (None, None, false, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json = Some(true),
            "--table-view" => json = Some(false),
            "--allow-scan" => allow_scan = true,
            "--table" => table = Some(args.next().ok_or(USAGE)?),
            "--limit" => {
                let value = args.next().unwrap_or_default();
                limit = Some(
                    value
                        .parse::<usize>()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| {
                            format!("--limit must be a positive whole number, not {value:?}")
                        })?,
                );
            }
            flag if flag.starts_with("--") => {
                return Err(format!("unknown flag {flag:?}\n{USAGE}"));
            }
            _ if statement.is_some() => {
                return Err(format!("one statement, in quotes\n{USAGE}"));
            }
            _ => statement = Some(arg),
        }
    }
    Ok(Args {
        statement: statement.filter(|s| !s.trim().is_empty()).ok_or(USAGE)?,
        json: json.unwrap_or_else(|| !std::io::stdout().is_terminal()),
        limit,
        allow_scan,
        table,
    })
}

/// What was read, for the person who asked: pages, capacity, and a scan named as one.
fn summary(checked: &Checked, table: &str, outcome: &Outcome, limit: Option<usize>) -> String {
    let capacity = &outcome.capacity;
    let arms: Vec<String> = std::iter::once(("table", capacity.table))
        .chain(capacity.indexes.iter().map(|(i, u)| (i.as_str(), *u)))
        .filter(|(_, units)| *units > 0.0)
        .map(|(name, units)| format!("{name} {units}"))
        .collect();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut line = format!(
        "{}, {} (ExecuteStatement), read units {} ({})",
        plural(outcome.items, "item"),
        plural(outcome.pages as usize, "page"),
        capacity.total,
        if arms.is_empty() {
            "none".to_string()
        } else {
            arms.join(", ")
        },
    );
    if outcome.stopped_at_limit {
        line += &format!(
            "; stopped at --limit {}, more remain",
            limit.unwrap_or_default()
        );
    }
    if checked.partitions.is_none() {
        let target = checked.target.describe(table);
        line += &format!(
            "\nfull scan of {target} (--allow-scan): the read units above are every item it read, \
             returned or not"
        );
    }
    line
}

async fn run(args: Args, table: String, checked: Checked) -> Result<(), BoxError> {
    let store = store_ops::connect(table.clone()).await?;
    let mut shown = Vec::new();
    let mut stdout = std::io::stdout().lock();
    let outcome = partiql::execute(store.client(), &args.statement, args.limit, |items| {
        if args.json {
            for item in &items {
                writeln!(stdout, "{}", render::json_line(item))?;
            }
        } else {
            shown.extend(items);
        }
        Ok(())
    })
    .await?;
    if !args.json {
        match shown.is_empty() {
            true => writeln!(stdout, "(no items)")?,
            false => write!(stdout, "{}", render::table(&shown))?,
        }
    }
    stdout.flush()?;
    eprintln!("{}", summary(&checked, &table, &outcome, args.limit));
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    store_ops::init_logging();
    let refused = |message: String| {
        eprintln!("{message}");
        ExitCode::from(2)
    };
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => return refused(message),
    };
    let table = match store_ops::table(args.table.clone()) {
        Ok(table) => table,
        Err(message) => return refused(message.to_string()),
    };
    let checked = match partiql::check(&args.statement, &table, args.allow_scan) {
        Ok(checked) => checked,
        Err(refusal) => return refused(refusal.to_string()),
    };
    match run(args, table, checked).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("store-query: {err}");
            ExitCode::FAILURE
        }
    }
}
