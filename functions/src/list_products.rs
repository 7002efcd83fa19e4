//! `GET /products?limit=&cursor=`: the catalog, one Query per page over its shards, for any
//! signed-in caller.

use lambda_http::Request;
use shared::Store;
use shared::http::HttpResult;
use shared::http::request::{page_request, viewer};
use shared::http::response::list_response;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let caller = viewer(&req);
    let page = page_request(&req)?;
    let products = store.list_products(&page, caller).await?;
    Ok(list_response(products.items, products.next_cursor))
}
