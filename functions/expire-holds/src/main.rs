//! Lambda entry point of expire-holds, invoked by its EventBridge schedule every minute.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    shared::bootstrap::serve_scheduled(&store, expire_holds::handle).await
}
