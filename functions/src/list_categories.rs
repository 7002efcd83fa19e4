//! `GET /categories`: the storefront's category tree, its roots with their children by name,
//! in one Query (access pattern 13), for any signed-in caller, and
//! for callers without a token under `/storefront` (who see what customers see) (the route table,
//! `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde_json::json;
use shared::Store;
use shared::http::HttpResult;
use shared::http::response::json_response;

pub async fn handle(store: &Store, _req: Request) -> HttpResult {
    let tree = store.category_tree().await?;
    Ok(json_response(
        StatusCode::OK,
        &json!({ "categories": tree }),
    ))
}
