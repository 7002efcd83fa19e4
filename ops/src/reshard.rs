//! `store-reshard --status-shards N`: moves every order into the status shard its ID belongs
//! to under N (see `shared::dynamo::keys::StatusShards`). Run it before lowering the template's
//! `StatusShards` parameter, again after the deploy; it is safe while the store serves and
//! safe to run again. What it cannot move is listed by key with why, the rest moved all the
//! same, and it then exits non-zero. The table is `TABLE_NAME` (or `--table`); credentials, region and endpoint
//! come from the standard AWS configuration (profiles and SSO included, as an operator's
//! workstation has them; `AWS_ENDPOINT_URL_DYNAMODB` for make dev's engine).

use shared::domain::error::BoxError;
use shared::dynamo::keys::StatusShards;

const USAGE: &str = "usage: store-reshard --status-shards N [--table NAME]";

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let mut shards = None;
    let mut table = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--status-shards" => shards = args.next(),
            "--table" => table = args.next(),
            _ => return Err(format!("unknown argument {arg:?}\n{USAGE}").into()),
        }
    }
    let shards = StatusShards::parse(&shards.ok_or(USAGE)?)?;
    let table = store_ops::table(table)?;
    let store = store_ops::connect(table.clone())
        .await?
        .with_status_shards(shards);
    let done = store.reshard_statuses().await?;
    println!(
        "{table}: {} orders read, {} moved into their shard of {}, {} changed meanwhile (run again after the deploy)",
        done.examined,
        done.moved,
        shards.count(),
        done.changed_meanwhile
    );
    for failure in &done.failures {
        println!("  not moved: {}: {}", failure.key, failure.reason);
    }
    if !done.failures.is_empty() {
        return Err(format!(
            "{} items or pages could not be moved (listed above; the rest were): mend them and run again",
            done.failures.len()
        )
        .into());
    }
    Ok(())
}
