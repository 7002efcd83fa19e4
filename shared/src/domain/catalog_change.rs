//! What the catalog's events tell of what changed (`domain::event`'s details): a SKU's stock
//! falling low, a product published or unpublished, a variant's price or stock crossing 0.

use serde::{Deserialize, Serialize};

use crate::domain::ids::{ProductId, Sku};
use crate::domain::money::Money;
use crate::domain::product::ProductStatus;

/// A product's stock, as a stock event tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StockLevel {
    /// Which product.
    pub sku: Sku,
    /// What is left now.
    pub stock: u64,
    /// What it was before the change.
    pub previous_stock: u64,
    /// The store's threshold (`LowStockThreshold`), which it fell below.
    pub threshold: u64,
}

/// A product as `product.published` and `product.unpublished` tell it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductChange {
    /// Which product.
    pub product_id: ProductId,
    /// What the catalog calls it.
    pub title: String,
    /// Its status now.
    pub status: ProductStatus,
    /// Its status before (none: it is new).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_status: Option<ProductStatus>,
}

/// A variant as `variant.price-changed`, `variant.sold-out` and `variant.back-in-stock` tell
/// it: whether it is in stock, not how many (a storefront's cache or a search index shows that).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VariantChange {
    /// Which SKU.
    pub sku: Sku,
    /// Its product (none: a SKU written before products, until `make migrate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product_id: Option<ProductId>,
    /// The price of one, now.
    pub price: Money,
    /// The price before (`variant.price-changed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_price: Option<Money>,
    /// Whether any is left to order, now.
    pub in_stock: bool,
}
