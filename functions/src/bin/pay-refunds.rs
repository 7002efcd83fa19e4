//! Lambda entry point of pay-refunds, invoked by its EventBridge schedule every minute: the
//! store, and the payment provider the refunds are sent to.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    let provider = payment_provider::Provider::from_env().await?;
    let payer = functions::pay_refunds::Payer { store, provider };
    shared::bootstrap::serve_scheduled(&payer, functions::pay_refunds::handle).await
}
