//! `POST /variants/{sku}/stock` `{"delta": n, "shards": k}` (either or both): adds to (or,
//! negative, takes from) a variant's stock in one conditional transaction, so racing changes
//! are never lost and the stock never goes below 0 (409); then splits it over `k` stock
//! shards (1 to 32: a flash sale's buyers then write `k` partitions, not one), its units
//! spread evenly in one transaction that no checkout's take can slip through. Staff only (the
//! route table, `shared::http::routes`).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::domain::ids::Sku;
use shared::domain::product;
use shared::domain::stock_shards::ShardCount;
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param};
use shared::http::response::json_response;
use shared::{AppError, Store};

const MAX_BODY_BYTES: usize = 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StockBody {
    #[serde(default, deserialize_with = "some_whole_number")]
    delta: Option<i64>,
    #[serde(default, deserialize_with = "some_whole_number")]
    shards: Option<u64>,
}

/// A whole number that is present ([`shared::http::request::whole_number`]).
fn some_whole_number<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<i64>,
{
    shared::http::request::whole_number(d).map(Some)
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let sku = path_param(&req, "sku", Sku::parse)?;
    let body = json_body::<StockBody>(&req, MAX_BODY_BYTES)?;
    let shards = body.shards.map(ShardCount::new).transpose()?;
    let delta = body.delta.map(product::stock_delta).transpose()?;
    if shards.is_none() && delta.is_none() {
        return Err(AppError::invalid("give delta, shards or both"));
    }
    let mut variant = None;
    if let Some(delta) = delta {
        variant = Some(store.adjust_stock(&sku, delta).await?);
    }
    if let Some(shards) = shards {
        variant = Some(store.set_stock_shards(&sku, shards).await?);
    }
    let variant = variant.ok_or_else(|| AppError::internal("a stock change changed nothing"))?;
    Ok(json_response(
        StatusCode::OK,
        &variant.seen_by(caller(&req)?),
    ))
}
