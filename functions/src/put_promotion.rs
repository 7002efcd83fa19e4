//! `PUT /promotions/{promotionId}` `{"code", "type", "value", "buy", "get", "conditions",
//! "startsAt", "endsAt", "usageLimit", "perCustomerLimit", "combinable"}`: creates (201) or
//! replaces (200) a promotion (`shared::domain::promotions`), its code claimed in the same
//! transaction: a code another promotion holds is a 409 `code-taken`. Staff only (the route
//! table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use shared::Store;
use shared::domain::ids::PromotionId;
use shared::domain::promotions::PromotionBody;
use shared::http::HttpResult;
use shared::http::request::{json_body, path_param};
use shared::http::response::{created, json_response};

/// Three lists of 50 SKUs and 20 categories fit.
const MAX_BODY_BYTES: usize = 16 * 1024;

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "promotionId", PromotionId::parse)?;
    let body: PromotionBody = json_body(&req, MAX_BODY_BYTES)?;
    let rule = body.check(id.clone())?;
    if store.put_promotion(&rule).await? {
        Ok(created(&format!("/promotions/{id}"), &rule))
    } else {
        Ok(json_response(StatusCode::OK, &rule))
    }
}
