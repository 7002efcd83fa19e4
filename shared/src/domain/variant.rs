//! Variants: what is sold. Each is one SKU of a product ([`crate::domain::product`]), with
//! its price and the stock it has; carts, orders, stock changes, refunds and returns all name
//! a variant by its SKU. A variant carries its product's title, its own option values and its
//! product's status, so that an order reads everything it keeps of what was bought in the
//! one BatchGetItem it reads prices with.

use serde::Serialize;

use crate::domain::access::Caller;
use crate::domain::ids::{ProductId, Sku};
use crate::domain::money::Money;
use crate::domain::product::{OptionValues, ProductStatus};
use crate::domain::stock_shards::ShardCount;

/// A variant as its item holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Which SKU.
    pub sku: Sku,
    /// Its product (`None`: a SKU written before products, which `make migrate` gives one).
    pub product_id: Option<ProductId>,
    /// Its product's title.
    pub title: String,
    /// Its value of each of its product's options.
    pub options: OptionValues,
    /// The price of one.
    pub price: Money,
    /// How many are left to order: over all its stock shards once they are read
    /// (`Store::with_shard_stock`), its own item's alone until then.
    pub stock: u64,
    /// How many items its stock is split across (1: its own item alone).
    pub stock_shards: ShardCount,
    /// How many GSI2 partitions its order lines are spread over: the most stock shards it has
    /// ever had (a line is listed under the partition of the shard its buyer started on, and
    /// lines stay where they were written, so this count is never lowered).
    pub order_shards: ShardCount,
    /// Its product's status: only a PUBLISHED product's variants are sold.
    pub status: ProductStatus,
    /// What one weighs, in grams.
    pub weight_grams: u32,
}

impl Variant {
    /// Whether it may be put in a cart or checked out: its product is published.
    pub fn for_sale(&self) -> bool {
        self.status == ProductStatus::Published
    }

    /// What `caller` is shown of it: staff its stock, others whether it is in stock; nobody
    /// but staff a variant of a product not for sale (`None`).
    pub fn seen_by(&self, caller: &Caller) -> Option<VariantSeen> {
        let staff = caller.is_staff();
        (staff || self.for_sale()).then(|| VariantSeen {
            sku: self.sku.clone(),
            product_id: self.product_id.clone(),
            title: self.title.clone(),
            options: self.options.clone(),
            price: self.price,
            weight_grams: self.weight_grams,
            in_stock: self.stock > 0,
            stock: staff.then_some(self.stock),
            stock_shards: (staff && self.stock_shards > ShardCount::ONE)
                .then_some(self.stock_shards.get()),
            status: staff.then_some(self.status),
        })
    }
}

/// A variant as the API answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VariantSeen {
    /// Which SKU.
    pub sku: Sku,
    /// Its product.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product_id: Option<ProductId>,
    /// Its product's title.
    pub title: String,
    /// Its options' values.
    pub options: OptionValues,
    /// The price of one.
    pub price: Money,
    /// What one weighs, in grams.
    pub weight_grams: u32,
    /// Whether any is left to order.
    pub in_stock: bool,
    /// How many are left (staff only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stock: Option<u64>,
    /// How many items its stock is split across (staff only, where more than one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stock_shards: Option<usize>,
    /// Its product's status (staff only: others see only published ones).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<ProductStatus>,
}

/// A line as bought, shown: `2 × Plain tee (M, Blue)`; `2 × sku-2` for a line kept before
/// orders kept titles.
pub fn line_text(quantity: u32, sku: &Sku, title: Option<&str>, options: &OptionValues) -> String {
    match (title, options.is_empty()) {
        (Some(title), true) => format!("{quantity} × {title}"),
        (Some(title), false) => format!("{quantity} × {title} ({})", options.shown()),
        (None, _) => format!("{quantity} × {sku}"),
    }
}

/// What the crate's tests build variants from.
#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// A blue mug, on sale at 19.95, 7 in stock, of a product of its own SKU without options.
    pub(crate) fn mug(sku: Sku) -> Variant {
        Variant {
            product_id: ProductId::parse(sku.as_str()).ok(),
            sku,
            title: "Blue mug".into(),
            options: OptionValues::default(),
            price: Money::parse_number("19.95").expect("money"),
            stock: 7,
            stock_shards: ShardCount::ONE,
            order_shards: ShardCount::ONE,
            status: ProductStatus::Published,
            weight_grams: 350,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_what_was_bought() {
        let sku = Sku::parse("tee-m-blue").expect("sku");
        let options = OptionValues(vec![
            ("Size".into(), "M".into()),
            ("Colour".into(), "Blue".into()),
        ]);
        assert_eq!(
            line_text(2, &sku, Some("Plain tee"), &options),
            "2 × Plain tee (M, Blue)"
        );
        assert_eq!(
            line_text(1, &sku, Some("Mug"), &OptionValues::default()),
            "1 × Mug"
        );
        assert_eq!(line_text(3, &sku, None, &options), "3 × tee-m-blue");
    }
}
