//! `PUT /categories/{categoryId}` `{"name", "parentId"}`: creates (201) or renames or moves
//! (200) a category of the storefront's tree: its parent must be another category, not one
//! under it, and no branch deeper than four levels (`shared::domain::category`), checked on
//! the tree as one write at a time leaves it. Staff only (the route table,
//! `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::Store;
use shared::domain::category::Category;
use shared::domain::ids::CategoryId;
use shared::domain::text;
use shared::http::HttpResult;
use shared::http::request::{json_body, path_param};
use shared::http::response::{created, json_response};

const MAX_BODY_BYTES: usize = 4 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CategoryBody {
    name: String,
    /// Absent for a root; `null` is no category, and refused as the contract refuses it.
    #[serde(default, deserialize_with = "shared::domain::present::present")]
    parent_id: Option<CategoryId>,
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "categoryId", CategoryId::parse)?;
    let body: CategoryBody = json_body(&req, MAX_BODY_BYTES)?;
    let category = Category {
        category_id: id.clone(),
        name: text::name(&body.name)?,
        parent_id: body.parent_id,
    };
    if store.put_category(&category).await? {
        Ok(created(&format!("/categories/{id}"), &category))
    } else {
        Ok(json_response(StatusCode::OK, &category))
    }
}
