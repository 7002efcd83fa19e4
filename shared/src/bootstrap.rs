//! The start of every Lambda: logging, configuration and the SDK client, once per cold start.

use std::convert::Infallible;
use std::future::Future;

use aws_config::BehaviorVersion;
use aws_lambda_events::event::dynamodb::Event as StreamEvent;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use aws_sdk_dynamodb::config::SharedHttpClient;
use aws_smithy_http_client::tls;
use lambda_http::{Request, service_fn};
use lambda_runtime::LambdaEvent;

use crate::Store;
use crate::error::BoxError;
use crate::gateway::{HttpEvent, into_gateway_response};
use crate::http::{self, HttpResult};

/// The SDK's HTTP client: hyper with rustls on ring, trusting the system's roots. (http:// works
/// too, for a local engine.)
pub fn http_client() -> SharedHttpClient {
    aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(
            tls::rustls_provider::CryptoMode::Ring,
        ))
        .build_https()
}

/// Reads a required environment variable.
fn required_env(name: &str) -> Result<String, BoxError> {
    match std::env::var(name) {
        Ok(value) if !value.is_empty() => Ok(value),
        _ => Err(format!("environment variable {name} must be set").into()),
    }
}

/// Logging (JSON when `AWS_LAMBDA_LOG_FORMAT=JSON`, level from `AWS_LAMBDA_LOG_LEVEL` or
/// `RUST_LOG`), then the store: `TABLE_NAME`, `CURSOR_SECRET`, and an SDK client from the
/// standard AWS configuration (so `AWS_ENDPOINT_URL_DYNAMODB` points it at a local engine),
/// its connection opened before the first event.
pub async fn init() -> Result<Store, BoxError> {
    lambda_http::tracing::init_default_subscriber();
    let table = required_env("TABLE_NAME")?;
    let secret = required_env("CURSOR_SECRET")?;
    let config = aws_config::defaults(BehaviorVersion::latest())
        .http_client(http_client())
        .load()
        .await;
    let client = aws_sdk_dynamodb::Client::new(&config);
    let store = Store::new(client, table, secret.as_bytes());
    store.warm_up().await;
    Ok(store)
}

/// Serves API Gateway HTTP API events with `handler` until the runtime stops. An event that is
/// not a valid request (a method or path API Gateway would not send, a body that is not the
/// base64 it claims to be) is answered with a 400 problem, never a failed invocation.
pub async fn serve_http<'a, F, Fut>(store: &'a Store, handler: F) -> Result<(), BoxError>
where
    F: Fn(&'a Store, Request) -> Fut + Copy + Send + 'a,
    Fut: Future<Output = HttpResult> + Send + 'a,
{
    lambda_runtime::run(service_fn(
        move |event: LambdaEvent<HttpEvent>| async move {
            let response = match event.payload.into_request() {
                Ok(req) => http::dispatch(store, req, handler).await,
                Err(err) => {
                    tracing::info!(error = %err, "event refused");
                    http::problem(&err)
                }
            };
            Ok::<_, Infallible>(into_gateway_response(response))
        },
    ))
    .await
}

/// Serves DynamoDB stream batches with `handler` until the runtime stops. The handler reports
/// what failed in its response rather than failing the whole invocation.
pub async fn serve_stream<'a, F, Fut>(store: &'a Store, handler: F) -> Result<(), BoxError>
where
    F: Fn(&'a Store, StreamEvent) -> Fut + Copy + Send + 'a,
    Fut: Future<Output = DynamoDbEventResponse> + Send + 'a,
{
    lambda_runtime::run(service_fn(
        move |event: LambdaEvent<StreamEvent>| async move {
            Ok::<_, Infallible>(handler(store, event.payload).await)
        },
    ))
    .await
}
