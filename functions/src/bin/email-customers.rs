//! Lambda entry point of email-customers, triggered by its queue on the store's bus: the store
//! (the email records, the customers' addresses) and the mail service, each client built once.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    let mailer = functions::email_customers::Mailer::from_env(store)?;
    shared::bootstrap::serve_batches(&mailer, functions::email_customers::handle).await
}
