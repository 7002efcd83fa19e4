//! The SDK client, built once per cold start from the Lambda environment.

use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::config::SharedHttpClient;
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

/// The store on `table`, with an SDK client from the standard AWS configuration (so
/// `AWS_ENDPOINT_URL_DYNAMODB` points it at a local engine), its connection opened before the
/// first event.
pub async fn connect(table: String) -> Store {
    let config = aws_config::defaults(BehaviorVersion::latest())
        .http_client(http_client())
        .load()
        .await;
    let store = Store::new(aws_sdk_dynamodb::Client::new(&config), table);
    store.warm_up().await;
    store
}
