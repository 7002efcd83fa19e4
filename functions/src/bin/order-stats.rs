//! Lambda entry point of order-stats, triggered by the table's stream.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    shared::bootstrap::serve_stream(&store, functions::order_stats::handle).await
}
