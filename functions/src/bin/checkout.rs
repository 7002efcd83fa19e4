//! Lambda entry point of checkout: the store, and the payment provider (its key read once, its
//! client readied in init).

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    let provider = payment_provider::Provider::from_env().await?;
    provider
        .prepare(shared::bootstrap::opens_connections_in_init())
        .await;
    let checkout = functions::checkout::Checkout { store, provider };
    shared::bootstrap::serve_http(&checkout, functions::checkout::handle).await
}
