//! The endpoint secret, read once at init: `PAYMENT_WEBHOOK_SECRET` when it is set (`make dev`,
//! `sam local invoke`; the deployed stack leaves it empty), else the Secrets Manager secret
//! `PAYMENT_WEBHOOK_SECRET_ID` names (the template's `PaymentWebhookSecret`). The secret may
//! hold two, separated by a comma, while it is rolled.

use shared::domain::error::BoxError;
use shared::http::signature::WebhookSecrets;

/// The secrets, or why the function cannot start (logged once, as every init error is).
pub async fn from_env() -> Result<WebhookSecrets, BoxError> {
    let secrets =
        payment_provider::secret::read("PAYMENT_WEBHOOK_SECRET", "PAYMENT_WEBHOOK_SECRET_ID")
            .await
            .and_then(|raw| {
                WebhookSecrets::parse(&raw).ok_or_else(|| "the webhook secret is empty".into())
            });
    if let Err(err) = &secrets {
        tracing::error!(error = %err, "cannot start: no webhook secret");
    }
    secrets
}
