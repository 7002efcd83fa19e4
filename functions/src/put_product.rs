//! `PUT /products/{productId}` `{"title", "description", "status", "categoryIds", "options",
//! "variants"}`: creates (201) or replaces (200) a product with its variants, in one
//! transaction with its catalog entry (`shared::dynamo::products`); every rule of the catalog
//! is checked first (`shared::domain::product`), so a refused product writes nothing. Staff
//! only (the route table, `shared::http::routes`).

use std::collections::BTreeMap;

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::Store;
use shared::domain::ids::{CategoryId, ProductId, Sku};
use shared::domain::product::{self, ProductSpec, ProductStatus, RawProduct, RawVariant};
use shared::domain::time::Timestamp;
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param};
use shared::http::response::{created, json_response};

/// A product of 40 variants with long option values and a long description fits.
const MAX_BODY_BYTES: usize = 64 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ProductBody {
    title: String,
    #[serde(default)]
    description: String,
    status: String,
    #[serde(default)]
    category_ids: Vec<CategoryId>,
    #[serde(default)]
    options: Vec<OptionBody>,
    variants: Vec<VariantBody>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OptionBody {
    name: String,
    values: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct VariantBody {
    sku: Sku,
    #[serde(default)]
    options: BTreeMap<String, String>,
    /// A decimal string, as every price the API takes.
    price: String,
    #[serde(default, deserialize_with = "shared::http::request::whole_number")]
    weight_grams: u32,
}

/// The body as the domain's rules take it.
fn raw(body: ProductBody) -> Result<RawProduct, shared::AppError> {
    let variants = body
        .variants
        .into_iter()
        .map(|variant| {
            Ok(RawVariant {
                price: product::price(&variant.price)?,
                sku: variant.sku,
                options: variant.options,
                weight_grams: variant.weight_grams,
            })
        })
        .collect::<Result<_, shared::AppError>>()?;
    Ok(RawProduct {
        title: body.title,
        description: body.description,
        status: body.status.parse::<ProductStatus>()?,
        category_ids: body.category_ids,
        options: body
            .options
            .into_iter()
            .map(|option| (option.name, option.values))
            .collect(),
        variants,
    })
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "productId", ProductId::parse)?;
    let caller = caller(&req)?;
    let body: ProductBody = json_body(&req, MAX_BODY_BYTES)?;
    let spec = ProductSpec::check(id.clone(), raw(body)?, Timestamp::now())?;
    let written = store.put_product(&spec, caller).await?;
    if written.created {
        Ok(created(&format!("/products/{id}"), &written.product))
    } else {
        Ok(json_response(StatusCode::OK, &written.product))
    }
}
