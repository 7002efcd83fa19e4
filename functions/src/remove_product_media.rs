//! `DELETE /products/{productId}/media/{mediaId}`: removes a picture of the product, its object
//! deleted from the bucket first, then its item, in one transaction with its product's summary
//! and, when it was the first, the copies its listings keep (`shared::dynamo::media`). 204; a
//! picture the product does not have is a 404. Staff only (the route table,
//! `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use lambda_http::{Body, Response};
use shared::Store;
use shared::domain::ids::{MediaId, ProductId};
use shared::http::HttpResult;
use shared::http::request::path_param;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let product = path_param(&req, "productId", ProductId::parse)?;
    let media = path_param(&req, "mediaId", MediaId::parse)?;
    store.remove_media(&product, &media).await?;
    let mut response = Response::new(Body::Empty);
    *response.status_mut() = StatusCode::NO_CONTENT;
    Ok(response)
}
