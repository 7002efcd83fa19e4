//! A secret read once at init: from a variable when it is set (`make dev`, `sam local invoke`;
//! the deployed stack leaves it empty), else from the Secrets Manager secret another variable
//! names (the template's). The payment provider's key and the webhook's endpoint secret are
//! both read so.

use aws_sdk_secretsmanager::config::{BehaviorVersion, Region};
use shared::domain::error::BoxError;
use shared::dynamo::client::{Environment, http_client, retries, timeouts};

/// The variable `name`, when set to something other than blanks.
pub fn set(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The variable `value` when set, else the string of the Secrets Manager secret `id` names;
/// an error that says which to set, or why the secret could not be read.
pub async fn read(value: &str, id: &str) -> Result<String, BoxError> {
    if let Some(raw) = set(value) {
        return Ok(raw);
    }
    let secret =
        set(id).ok_or_else(|| format!("set {id} (the Secrets Manager secret) or {value}"))?;
    from_secrets_manager(&secret).await
}

async fn from_secrets_manager(id: &str) -> Result<String, BoxError> {
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
        .secret_id(id)
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
