//! What the operators' commands share: the store, built from the standard AWS configuration
//! (profiles and SSO included, as an operator's workstation has them; the functions read only
//! the Lambda environment), and their argument reading.

pub mod partiql;

use shared::Store;
use shared::domain::error::BoxError;
use shared::dynamo::client;

/// The store on `table`, with the whole default configuration chain.
pub async fn connect(table: String) -> Result<Store, BoxError> {
    client::check_endpoints(|name| std::env::var(name).ok())?;
    let config = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .http_client(client::http_client())
        .timeout_config(client::timeouts())
        .retry_config(client::retries())
        .load()
        .await;
    Ok(Store::new(aws_sdk_dynamodb::Client::new(&config), table))
}

/// The table: `--table`, else `TABLE_NAME`.
pub fn table(flag: Option<String>) -> Result<String, BoxError> {
    flag.or_else(|| std::env::var("TABLE_NAME").ok().filter(|t| !t.is_empty()))
        .ok_or_else(|| "the table: set TABLE_NAME or pass --table".into())
}

/// Logs to stderr (stdout is the command's answer), at `RUST_LOG`'s level, warnings by default.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_writer(std::io::stderr)
        .init();
}
