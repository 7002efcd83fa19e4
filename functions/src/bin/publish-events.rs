//! Lambda entry point of publish-events, triggered by the table's stream: the store (to read an
//! order's lines), the bus and the dead-letter queue, each client built once.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    let publisher = functions::publish_events::Publisher::from_env(store)?;
    shared::bootstrap::serve_batches(&publisher, functions::publish_events::handle).await
}
