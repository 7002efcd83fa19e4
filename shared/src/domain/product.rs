//! Products as a shop's catalog holds them: a product is a title, a description, a status, the
//! categories it is listed in and up to [`MAX_OPTIONS`] options (Size: S, M, L); its variants
//! are what is sold ([`crate::domain::variant`]), one SKU each, one value of every option. The
//! rules a product must keep are checked here, once, before anything is written.

use std::collections::{BTreeMap, HashSet};

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::ids::{CategoryId, ProductId, Sku};
use crate::domain::media::{MediaSeen, Picture};
use crate::domain::money::{Decimal, Money};
use crate::domain::time::Timestamp;

/// The largest unit price, 1,000,000.00: keeps every total far inside DynamoDB's 38 digits.
pub const MAX_PRICE: Decimal = Decimal::from_parts(100_000_000, 0, 0, false, 2);

/// The longest product name accepted.
pub const MAX_NAME_CHARS: usize = crate::domain::text::MAX_NAME_CHARS;
/// The largest change of stock one request may make.
pub const MAX_STOCK_DELTA: i64 = 1_000_000;

/// The most options a product has: as the platforms shops move from (Shopify, Medusa).
pub const MAX_OPTIONS: usize = 3;
/// The most values one option has.
pub const MAX_OPTION_VALUES: usize = 30;
/// The most variants a product has. A product is written in ONE transaction (its item, each
/// variant, each variant it drops, its catalog entry), and DynamoDB takes at most 100 actions
/// in one: 1 + 40 + 40 + 1 = 82.
pub const MAX_VARIANTS: usize = 40;
/// The most categories a product is listed in.
pub const MAX_CATEGORIES: usize = 5;
/// The most characters of an option's name or value.
pub const MAX_OPTION_CHARS: usize = 50;
/// The most characters of a description.
pub const MAX_DESCRIPTION_CHARS: usize = 5_000;
/// The heaviest variant: 1,000 kg.
pub const MAX_WEIGHT_GRAMS: u32 = 1_000_000;

crate::listed! {
    /// Who sees a product. Only a PUBLISHED product's variants can be put in a cart or checked
    /// out; customers (and callers without a token) never see the others.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum ProductStatus as "status" {
        /// Being prepared: staff only.
        Draft = "DRAFT",
        /// On sale.
        Published = "PUBLISHED",
        /// No longer sold: staff only, kept for the orders that name its variants.
        Archived = "ARCHIVED",
    }
}

/// A variant of a SKU written before products had statuses was on sale.
impl Default for ProductStatus {
    fn default() -> Self {
        ProductStatus::Published
    }
}

impl Serialize for ProductStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProductStatus {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One option of a product and the values its variants choose from, in the order staff gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProductOption {
    /// What it is called: `Size`.
    pub name: String,
    /// What it can be: `S`, `M`, `L`.
    pub values: Vec<String>,
}

/// A variant's value of each of its product's options, in the product's order of options: a
/// JSON object (`{"Size": "M", "Colour": "Blue"}`) in the API, shown as `M, Blue`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct OptionValues(pub Vec<(String, String)>);

impl OptionValues {
    /// The values alone, comma-separated (`M, Blue`); empty for a product without options.
    pub fn shown(&self) -> String {
        let values: Vec<&str> = self.0.iter().map(|(_, value)| value.as_str()).collect();
        values.join(", ")
    }

    /// Whether the variant has no options (its product has none).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for OptionValues {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// Read back in the order the object lists them (an event's line, say).
impl<'de> Deserialize<'de> for OptionValues {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> serde::de::Visitor<'de> for InOrder {
            type Value = OptionValues;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of option name to value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut values = Vec::new();
                while let Some(pair) = map.next_entry::<String, String>()? {
                    values.push(pair);
                }
                Ok(OptionValues(values))
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

/// A product, as its item stores it: everything but its variants' prices and stock, which
/// each variant's own item holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    /// Which product.
    pub product_id: ProductId,
    /// What the catalog calls it.
    pub title: String,
    /// What a storefront says of it.
    pub description: String,
    /// Who sees it.
    pub status: ProductStatus,
    /// The categories that list it while it is published.
    pub category_ids: Vec<CategoryId>,
    /// Its options, in order.
    pub options: Vec<ProductOption>,
    /// Its variants' SKUs, in the order staff gave them.
    #[serde(skip)]
    pub skus: Vec<Sku>,
    /// When it was first written: the listings' "newest".
    pub created_at: Timestamp,
}

/// One variant as staff write it: the SKU, its options' values, its price and its weight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantSpec {
    /// Which SKU.
    pub sku: Sku,
    /// One value of each of the product's options.
    pub options: OptionValues,
    /// The price of one.
    pub price: Money,
    /// What one weighs, in grams.
    pub weight_grams: u32,
}

/// A variant as a client sends it, before it is checked against its product's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawVariant {
    /// Which SKU.
    pub sku: Sku,
    /// Option name to value.
    pub options: BTreeMap<String, String>,
    /// The price of one.
    pub price: Money,
    /// What one weighs, in grams.
    pub weight_grams: u32,
}

/// A product and its variants, as `PUT /products/{productId}` asks for them, checked: every
/// rule of the catalog holds, or nothing is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductSpec {
    /// The product (its `created_at` is the store's to set).
    pub product: Product,
    /// Its variants, in the order given.
    pub variants: Vec<VariantSpec>,
}

/// What a client sent for a product, before the rules are checked.
#[derive(Debug, Clone)]
pub struct RawProduct {
    /// What the catalog calls it.
    pub title: String,
    /// What a storefront says of it.
    pub description: String,
    /// Who sees it.
    pub status: ProductStatus,
    /// The categories that list it.
    pub category_ids: Vec<CategoryId>,
    /// Its options: name, values.
    pub options: Vec<(String, Vec<String>)>,
    /// Its variants.
    pub variants: Vec<RawVariant>,
}

/// An option's name or value: 1 to [`MAX_OPTION_CHARS`] characters once trimmed, none
/// hidden, no comma (a line shows its values comma-separated).
fn option_text(what: &str, raw: &str) -> Result<String, AppError> {
    let text = raw.trim();
    if text.is_empty()
        || raw.chars().count() > MAX_OPTION_CHARS
        || raw.chars().any(crate::domain::text::hidden)
        || text.contains(',')
    {
        return Err(AppError::invalid(format!(
            "{what} {:?} must be 1-{MAX_OPTION_CHARS} characters, without commas or control characters",
            raw.escape_default().to_string()
        )));
    }
    Ok(text.to_owned())
}

/// A description: at most [`MAX_DESCRIPTION_CHARS`] characters, line breaks allowed, no other
/// control characters.
fn description(raw: &str) -> Result<String, AppError> {
    let hidden = |c: char| c != '\n' && crate::domain::text::hidden(c);
    if raw.chars().count() > MAX_DESCRIPTION_CHARS || raw.chars().any(hidden) {
        return Err(AppError::invalid(format!(
            "description must be at most {MAX_DESCRIPTION_CHARS} characters, without control characters but line breaks"
        )));
    }
    Ok(raw.trim().to_owned())
}

/// The product's options checked: at most [`MAX_OPTIONS`], distinct names, each with 1 to
/// [`MAX_OPTION_VALUES`] distinct values.
fn options(raw: Vec<(String, Vec<String>)>) -> Result<Vec<ProductOption>, AppError> {
    if raw.len() > MAX_OPTIONS {
        return Err(AppError::invalid(format!(
            "a product has at most {MAX_OPTIONS} options, not {}",
            raw.len()
        )));
    }
    let mut names = HashSet::new();
    raw.into_iter()
        .map(|(name, values)| {
            let name = option_text("option name", &name)?;
            if !names.insert(name.to_lowercase()) {
                return Err(AppError::invalid(format!("option {name:?} is named twice")));
            }
            if values.is_empty() || values.len() > MAX_OPTION_VALUES {
                return Err(AppError::invalid(format!(
                    "option {name:?} must have 1-{MAX_OPTION_VALUES} values"
                )));
            }
            let mut seen = HashSet::new();
            let values = values
                .iter()
                .map(|value| {
                    let value = option_text("option value", value)?;
                    if seen.insert(value.clone()) {
                        Ok(value)
                    } else {
                        Err(AppError::invalid(format!(
                            "option {name:?} has the value {value:?} twice"
                        )))
                    }
                })
                .collect::<Result<_, _>>()?;
            Ok(ProductOption { name, values })
        })
        .collect()
}

/// A variant's options checked against its product's: one value of each option, each one of
/// that option's values, none of another option; in the product's order.
fn variant_options(
    sku: &Sku,
    options: &[ProductOption],
    raw: &BTreeMap<String, String>,
) -> Result<OptionValues, AppError> {
    if let Some(unknown) = raw
        .keys()
        .find(|name| !options.iter().any(|o| o.name == **name))
    {
        return Err(AppError::invalid(format!(
            "variant {sku} names option {unknown:?}, which the product does not have"
        )));
    }
    options
        .iter()
        .map(|option| {
            let value = raw.get(&option.name).ok_or_else(|| {
                AppError::invalid(format!(
                    "variant {sku} has no value of option {:?}",
                    option.name
                ))
            })?;
            if option.values.iter().any(|v| v == value) {
                Ok((option.name.clone(), value.clone()))
            } else {
                Err(AppError::invalid(format!(
                    "variant {sku}'s {:?} is {value:?}, which is not one of the option's values",
                    option.name
                )))
            }
        })
        .collect::<Result<_, _>>()
        .map(OptionValues)
}

/// The variants checked against their product's options: 1 to [`MAX_VARIANTS`] of distinct
/// SKUs, each with one value of every option, no two with the same values (a product without
/// options has exactly one), each of a weight up to [`MAX_WEIGHT_GRAMS`].
fn variants(options: &[ProductOption], raw: Vec<RawVariant>) -> Result<Vec<VariantSpec>, AppError> {
    if raw.is_empty() || raw.len() > MAX_VARIANTS {
        return Err(AppError::invalid(format!(
            "a product has 1-{MAX_VARIANTS} variants, not {}",
            raw.len()
        )));
    }
    if options.is_empty() && raw.len() > 1 {
        return Err(AppError::invalid(
            "a product without options has exactly one variant",
        ));
    }
    let (mut skus, mut combinations) = (HashSet::new(), HashSet::new());
    raw.into_iter()
        .map(|variant| {
            if !skus.insert(variant.sku.clone()) {
                return Err(AppError::invalid(format!(
                    "SKU {} is given to two variants",
                    variant.sku
                )));
            }
            let values = variant_options(&variant.sku, options, &variant.options)?;
            if !combinations.insert(values.clone()) {
                return Err(AppError::invalid(format!(
                    "variant {} has the same options as another: {}",
                    variant.sku,
                    values.shown()
                )));
            }
            if variant.weight_grams > MAX_WEIGHT_GRAMS {
                return Err(AppError::invalid(format!(
                    "weightGrams must be at most {MAX_WEIGHT_GRAMS}"
                )));
            }
            Ok(VariantSpec {
                sku: variant.sku,
                options: values,
                price: variant.price,
                weight_grams: variant.weight_grams,
            })
        })
        .collect()
}

impl ProductSpec {
    /// `raw` checked as product `product_id`, first written at `created_at`: a title, a
    /// description, at most [`MAX_CATEGORIES`] distinct categories, its options, and 1 to
    /// [`MAX_VARIANTS`] variants of distinct SKUs, each with one value of every option and no
    /// two with the same values (a product without options has exactly one variant).
    pub fn check(
        product_id: ProductId,
        raw: RawProduct,
        created_at: Timestamp,
    ) -> Result<Self, AppError> {
        let title = product_name(&raw.title)?;
        let description = description(&raw.description)?;
        let mut categories = HashSet::new();
        if raw.category_ids.len() > MAX_CATEGORIES
            || !raw.category_ids.iter().all(|id| categories.insert(id))
        {
            return Err(AppError::invalid(format!(
                "categoryIds must be at most {MAX_CATEGORIES} distinct categories"
            )));
        }
        let options = options(raw.options)?;
        let variants = variants(&options, raw.variants)?;
        Ok(ProductSpec {
            product: Product {
                product_id,
                title,
                description,
                status: raw.status,
                category_ids: raw.category_ids,
                options,
                skus: variants.iter().map(|v| v.sku.clone()).collect(),
                created_at,
            },
            variants,
        })
    }

    /// The lowest of its variants' prices: what a listing shows ("from 12.00").
    pub fn lowest_price(&self) -> Money {
        self.variants
            .iter()
            .map(|v| v.price)
            .min()
            .unwrap_or(Money::new(Decimal::ZERO))
    }
}

/// A published product as the catalog's listings keep it: its title, its lowest price and its
/// first picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    /// Which product.
    pub product_id: ProductId,
    /// What the catalog calls it.
    pub title: String,
    /// Its lowest variant price.
    pub price: Money,
    /// Its first picture.
    pub cover: Option<Picture>,
}

/// A published product as a listing answers it: its title, its lowest price and its first
/// picture, which a browser can load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedProduct {
    /// Which product.
    pub product_id: ProductId,
    /// What the catalog calls it.
    pub title: String,
    /// Its lowest variant price.
    pub price: Money,
    /// Its first picture (none: it has none yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picture: Option<MediaSeen>,
}

/// A product's title: as a customer's name ([`crate::domain::text::name`]).
pub fn product_name(raw: &str) -> Result<String, AppError> {
    crate::domain::text::name(raw)
}

/// A price as a client writes it: a decimal string above 0, at most 1,000,000.00, with at most
/// two decimal places, plain digits and a point (no sign, exponent, spaces or leading zeros:
/// one spelling per amount, as the contract's pattern in `api/openapi.yaml` says).
pub fn price(raw: &str) -> Result<Money, AppError> {
    let invalid = || {
        AppError::invalid(format!(
            "price {:?} must be a decimal string above 0 and at most {MAX_PRICE}, with at most two decimal places",
            raw.escape_default().to_string()
        ))
    };
    let plain = !raw.is_empty()
        && raw.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && raw.bytes().filter(|b| *b == b'.').count() <= 1
        && !raw.starts_with('.')
        && !raw.ends_with('.')
        && !(raw.starts_with('0') && raw.len() > 1 && !raw.starts_with("0."));
    if !plain {
        return Err(invalid());
    }
    let price: Decimal = raw.parse().map_err(|_| invalid())?;
    if price <= Decimal::ZERO || price > MAX_PRICE || price.scale() > 2 {
        return Err(invalid());
    }
    Ok(Money::new(price))
}

/// A change of stock: not zero, at most a million either way.
pub fn stock_delta(delta: i64) -> Result<i64, AppError> {
    if delta == 0 || delta.unsigned_abs() > MAX_STOCK_DELTA.unsigned_abs() {
        return Err(AppError::invalid(format!(
            "delta must be a whole number from -{MAX_STOCK_DELTA} to {MAX_STOCK_DELTA}, not 0"
        )));
    }
    Ok(delta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_are_plain_positive_decimals_of_at_most_two_places() {
        for ok in ["19.95", "0.01", "1", "1000000.00", "7.5"] {
            assert!(price(ok).is_ok(), "{ok}");
        }
        assert_eq!(price("7.5").expect("valid").to_string(), "7.50");
        for bad in [
            "",
            "0",
            "0.00",
            "-1",
            "1.001",
            "1e3",
            " 1",
            "1.",
            ".5",
            "1000000.01",
            "1,5",
            "NaN",
            "007",
            "00.5",
        ] {
            assert!(matches!(price(bad), Err(AppError::Invalid(_))), "{bad:?}");
        }
    }

    #[test]
    fn names_and_deltas_are_bounded() {
        assert_eq!(product_name("  Blue mug ").expect("valid"), "Blue mug");
        for bad in ["", "  ", "a\u{7}b", &"n".repeat(201)] {
            assert!(product_name(bad).is_err(), "{bad:?}");
        }
        assert!(stock_delta(-5).is_ok() && stock_delta(1_000_000).is_ok());
        for bad in [0, 1_000_001, -1_000_001, i64::MIN] {
            assert!(stock_delta(bad).is_err(), "{bad}");
        }
    }
}
