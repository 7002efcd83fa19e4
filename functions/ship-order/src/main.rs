//! Lambda entry point of ship-order.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    shared::bootstrap::serve_http(&store, ship_order::handle).await
}
