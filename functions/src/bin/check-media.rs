//! Lambda entry point of check-media, triggered by its queue of the media bucket's
//! notifications: the store (the table and the bucket) built once.

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), shared::domain::error::BoxError> {
    let store = shared::bootstrap::init().await?;
    shared::bootstrap::serve_batches(&store, functions::check_media::handle).await
}
