//! Lambda entry point of payment-webhook: the store, and the endpoint secret read once.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    let secrets = functions::payment_webhook::secret::from_env().await?;
    let webhook = functions::payment_webhook::Webhook { store, secrets };
    shared::bootstrap::serve_http(&webhook, functions::payment_webhook::handle).await
}
