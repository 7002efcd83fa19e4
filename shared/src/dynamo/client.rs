//! The SDK client, built once per cold start from the Lambda environment.

use std::time::Duration;

use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::config::SharedHttpClient;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_smithy_http_client::tls;

use crate::Store;

/// The SDK's HTTP client: hyper with rustls on ring, trusting the system's roots. (http:// works
/// too, for a local engine.)
pub fn http_client() -> SharedHttpClient {
    aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(
            tls::rustls_provider::CryptoMode::Ring,
        ))
        .build_https()
}

/// How long DynamoDB may take. A request normally answers in milliseconds; one that has not in
/// a second is stuck (a lost connection, a lost answer) and is tried again, and a whole call
/// gives up after four, well inside the functions' 10 s timeout, so the client gets a 503
/// rather than API Gateway's bare 503 after 30 s.
pub fn timeouts() -> TimeoutConfig {
    TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(1))
        .operation_attempt_timeout(Duration::from_secs(1))
        .operation_timeout(Duration::from_secs(4))
        .build()
}

/// The SDK's own retries of throttling, 5xx answers and timeouts: four attempts, exponential
/// backoff with full jitter from 50 ms (DynamoDB answers in milliseconds; the SDK's general
/// default waits up to a second first), at most a second apart. A retried transaction carries
/// its ClientRequestToken, so DynamoDB applies it once even when an answer was lost.
pub fn retries() -> RetryConfig {
    RetryConfig::standard()
        .with_max_attempts(4)
        .with_initial_backoff(Duration::from_millis(50))
        .with_max_backoff(Duration::from_secs(1))
}

/// The variables that point the SDK at another DynamoDB endpoint (a local engine).
const ENDPOINT_VARIABLES: [&str; 2] = ["AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL"];

/// Refuses an endpoint the SDK would abort on (it panics on an empty one) or send nothing to:
/// set, it must be an `http://` or `https://` URL with a host. Unset is DynamoDB itself.
pub fn check_endpoint(name: &str, value: Option<&str>) -> Result<(), String> {
    let Some(value) = value else {
        return Ok(());
    };
    let host = value
        .strip_prefix("http://")
        .or_else(|| value.strip_prefix("https://"))
        .map(|rest| rest.split(['/', '?', '#']).next().unwrap_or_default());
    match host {
        Some(host) if !host.is_empty() && !host.contains(char::is_whitespace) => Ok(()),
        _ if value.trim().is_empty() => Err(format!(
            "{name} is set but empty: unset it to use DynamoDB, or give the local engine's URL \
             (e.g. http://host.docker.internal:8000 under sam local invoke)"
        )),
        _ => Err(format!(
            "{name} is {value:?}, not an http:// or https:// URL with a host"
        )),
    }
}

/// The endpoint variables of this process, checked.
pub fn check_endpoints() -> Result<(), String> {
    for name in ENDPOINT_VARIABLES {
        check_endpoint(name, std::env::var(name).ok().as_deref())?;
    }
    Ok(())
}

/// The store on `table`, with an SDK client from the standard AWS configuration (so
/// `AWS_ENDPOINT_URL_DYNAMODB` points it at a local engine), its connection opened before the
/// first event.
pub async fn connect(table: String) -> Store {
    // [`check_endpoints`] first: an empty endpoint makes the SDK panic here.
    let config = aws_config::defaults(BehaviorVersion::latest())
        .http_client(http_client())
        .timeout_config(timeouts())
        .retry_config(retries())
        .load()
        .await;
    let store = Store::new(aws_sdk_dynamodb::Client::new(&config), table);
    store.warm_up().await;
    store
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_the_sdk_would_abort_on_are_refused_with_their_name() {
        for ok in [
            None,
            Some("http://127.0.0.1:8000"),
            Some("http://host.docker.internal:8000"),
            Some("https://dynamodb.eu-west-1.amazonaws.com/"),
        ] {
            assert_eq!(check_endpoint("E", ok), Ok(()), "{ok:?}");
        }
        for bad in [
            "",
            "  ",
            "localhost:8000",
            "http://",
            "ftp://x",
            "http:// x",
        ] {
            let err = check_endpoint("AWS_ENDPOINT_URL_DYNAMODB", Some(bad)).expect_err(bad);
            assert!(err.starts_with("AWS_ENDPOINT_URL_DYNAMODB is"), "{err}");
        }
    }
}
