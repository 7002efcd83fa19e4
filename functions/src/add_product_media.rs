//! `POST /products/{productId}/media` `{"contentType", "contentLength", "alt"}`: starts an upload
//! of a picture of the product, answering `{"mediaId", "upload": {"url", "fields"}}`, a form
//! signed for the media bucket (an S3 POST policy: the key the store chose, the type, 1 to
//! `contentLength` bytes, ten minutes). The picture shows once the object arrived and passed its
//! check (`check-media`). Staff only (the route table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::Store;
use shared::domain::ids::ProductId;
use shared::domain::media::MediaRequest;
use shared::http::HttpResult;
use shared::http::request::{json_body, path_param};
use shared::http::response::json_response;

const MAX_BODY_BYTES: usize = 4 * 1024;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let product = path_param(&req, "productId", ProductId::parse)?;
    let asked: MediaRequest = json_body(&req, MAX_BODY_BYTES)?;
    let started = store.start_media_upload(&product, asked.check()?).await?;
    Ok(json_response(StatusCode::CREATED, &started))
}
