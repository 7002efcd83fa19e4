//! `GET /categories/{categoryId}/products?sort=newest|price-asc|price-desc&limit=&cursor=`: a
//! category's published products, each with its title and lowest price, one Query of GSI3 per
//! page (access pattern 14), for any signed-in caller, and
//! for callers without a token under `/storefront` (who see what customers see) (the route table, `shared::http::routes`).

use lambda_http::Request;
use shared::Store;
use shared::domain::category::ListingSort;
use shared::domain::ids::CategoryId;
use shared::http::HttpResult;
use shared::http::request::{page_request, path_param, query_param, viewer};
use shared::http::response::list_response;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let category = path_param(&req, "categoryId", CategoryId::parse)?;
    let sort = ListingSort::parse(query_param(&req, "sort")?)?;
    let caller = viewer(&req);
    let page = page_request(&req)?;
    let products = store
        .list_category_products(&category, sort, &page, caller)
        .await?;
    Ok(list_response(products.items, products.next_cursor))
}
