//! Lambda entry point of receive-return.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    shared::bootstrap::serve_http(&store, receive_return::handle).await
}
