//! Lambda entry point of list-returns.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    shared::bootstrap::serve_http(&store, list_returns::handle).await
}
