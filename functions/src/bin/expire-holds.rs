//! Lambda entry point of expire-holds, invoked by its EventBridge schedule every minute: the
//! store, and the payment provider the ended holds' PaymentIntents are canceled at.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    let provider = payment_provider::Provider::from_env().await?;
    let expiry = functions::expire_holds::Expiry { store, provider };
    shared::bootstrap::serve_scheduled(&expiry, functions::expire_holds::handle).await
}
