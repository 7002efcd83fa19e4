//! The endpoint secret, read once at init: `PAYMENT_WEBHOOK_SECRET` when it is set (`make dev`,
//! `sam local invoke`; the deployed stack leaves it empty), else the Secrets Manager secret
//! `PAYMENT_WEBHOOK_SECRET_ID` names (the template's `PaymentWebhookSecretId`). The secret
//! may hold two, separated by a comma, while it is rolled.

use aws_sdk_secretsmanager::config::{BehaviorVersion, Region};
use shared::domain::error::BoxError;
use shared::dynamo::client::{Environment, http_client, retries, timeouts};
use shared::http::signature::WebhookSecrets;

fn set(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The secrets, or why the function cannot start (logged once, as every init error is).
pub async fn from_env() -> Result<WebhookSecrets, BoxError> {
    let loaded = match set("PAYMENT_WEBHOOK_SECRET") {
        Some(raw) => Ok(raw),
        None => from_secrets_manager().await,
    };
    let secrets = loaded.and_then(|raw| {
        WebhookSecrets::parse(&raw).ok_or_else(|| "the webhook secret is empty".into())
    });
    if let Err(err) = &secrets {
        tracing::error!(error = %err, "cannot start: no webhook secret");
    }
    secrets
}

async fn from_secrets_manager() -> Result<String, BoxError> {
    let id = set("PAYMENT_WEBHOOK_SECRET_ID").ok_or(
        "set PAYMENT_WEBHOOK_SECRET_ID (the Secrets Manager secret) or PAYMENT_WEBHOOK_SECRET",
    )?;
    let environment = Environment::of_process()?;
    let mut config = aws_sdk_secretsmanager::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(environment.region))
        .credentials_provider(environment.credentials)
        .http_client(http_client())
        .timeout_config(timeouts())
        .retry_config(retries());
    config.set_endpoint_url(set("AWS_ENDPOINT_URL_SECRETS_MANAGER"));
    let client = aws_sdk_secretsmanager::Client::from_conf(config.build());
    let out = client
        .get_secret_value()
        .secret_id(&id)
        .send()
        .await
        .map_err(|err| {
            format!(
                "reading secret {id}: {}",
                aws_sdk_secretsmanager::error::DisplayErrorContext(&err)
            )
        })?;
    out.secret_string
        .ok_or_else(|| format!("secret {id} holds no string").into())
}
