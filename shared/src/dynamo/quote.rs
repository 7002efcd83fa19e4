//! The price of a customer's cart before they pay: the cart (one Query) and the promotions (one
//! Query of their partition) read together, then the variants, the way to ship and the tax
//! where it goes in ONE BatchGetItem, and the products' categories in a second only when a
//! running promotion names categories. The pricing itself is the domain's
//! ([`crate::domain::pricing::quote`]).

use std::collections::BTreeMap;

use crate::AppError;
use crate::domain::address::{Country, Region};
use crate::domain::ids::{CategoryId, CustomerId, ProductId, ShippingOptionId, Sku};
use crate::domain::pricing::TaxRule;
use crate::domain::pricing::cents::cents;
use crate::domain::pricing::promotion::{Line, Promotion};
use crate::domain::pricing::quote::{Destination, Quote, QuoteRequest, Shipped, price_shipped};
use crate::domain::promotions::{PromotionCode, PromotionRule};
use crate::domain::shipping::ShippingOption;
use crate::domain::tax::TaxRate;
use crate::domain::time::Timestamp;
use crate::domain::variant::Variant;
use crate::dynamo::codec::{Item, PK, SK};
use crate::dynamo::entities::{product, shipping_option, tax_rate, variant};
use crate::dynamo::keys::Entity;
use crate::dynamo::store::Store;

/// What pricing reads besides the lines.
struct PricingInputs<'a> {
    /// Where it goes.
    place: Option<(Country, Option<Region>)>,
    /// The way to ship asked for, as read.
    option: Option<&'a ShippingOption>,
    /// The country's tax, as read.
    tax: Option<&'a TaxRate>,
    /// Every promotion, with its version.
    promotions: &'a [(PromotionRule, u64)],
}

/// What the one BatchGetItem found.
#[derive(Default)]
struct Found {
    variants: BTreeMap<Sku, Variant>,
    option: Option<ShippingOption>,
    tax: Option<TaxRate>,
}

impl Store {
    /// The price of `customer`'s cart as `request` asks for it. An empty cart is a 409
    /// `cart-empty`; a line of a variant gone or not for sale a 422 or a 409 as at checkout; a
    /// code no running promotion has a 422 `unknown-code`; a way to ship that does not exist a
    /// 404, one that does not serve the address (or no address) a 400.
    pub async fn quote(
        &self,
        customer: &CustomerId,
        request: &QuoteRequest,
    ) -> Result<Quote, AppError> {
        let profile = async {
            match &request.place {
                Some(_) => Ok(None),
                None => self.get_customer(customer).await,
            }
        };
        let (cart, promotions, profile) =
            tokio::try_join!(self.live_cart(customer), self.promotions(false), profile)?;
        if cart.is_empty() {
            return Err(AppError::CartEmpty);
        }
        let place = request.place.clone().or_else(|| {
            let address = profile.as_ref()?.customer.address()?;
            Some((address.country.clone(), address.region.clone()))
        });
        let skus: Vec<Sku> = cart.iter().map(|s| s.line.sku.clone()).collect();
        let found = self
            .quote_inputs(&skus, request.shipping_option.as_ref(), place.as_ref())
            .await?;
        let mut lines = Vec::with_capacity(cart.len());
        for stored in &cart {
            let sku = &stored.line.sku;
            let Some(variant) = found.variants.get(sku) else {
                return Err(AppError::UnknownProducts(vec![sku.clone()]));
            };
            if !variant.for_sale() {
                return Err(AppError::NotForSale(vec![sku.clone()]));
            }
            lines.push((variant, stored.line.quantity));
        }
        let inputs = PricingInputs {
            place,
            option: found.option.as_ref(),
            tax: found.tax.as_ref(),
            promotions: &promotions,
        };
        self.price_cart(&lines, request, inputs).await
    }

    /// What checkout charges for `lines` (its variants read strongly consistent, each with
    /// its quantity) shipped as `request` says: the promotions (one Query), the way to ship
    /// and the country's tax (one BatchGetItem, when either is asked for) and, where a
    /// promotion names categories, the products' (one BatchGetItem), priced by the quote's
    /// computation.
    pub async fn checkout_price(
        &self,
        lines: &[(&Variant, u32)],
        request: &QuoteRequest,
    ) -> Result<Quote, AppError> {
        let place = request.place.as_ref();
        let (promotions, found) = tokio::try_join!(
            self.promotions(true),
            self.quote_inputs(&[], request.shipping_option.as_ref(), place)
        )?;
        let inputs = PricingInputs {
            place: request.place.clone(),
            option: found.option.as_ref(),
            tax: found.tax.as_ref(),
            promotions: &promotions,
        };
        self.price_cart(lines, request, inputs).await
    }

    /// `lines` priced with `inputs`: the running promotions (automatic, and those `request`'s
    /// codes name), the way to ship checked against where it goes, and the tax there.
    async fn price_cart(
        &self,
        lines: &[(&Variant, u32)],
        request: &QuoteRequest,
        inputs: PricingInputs<'_>,
    ) -> Result<Quote, AppError> {
        let now = Timestamp::now();
        let running: Vec<Promotion> = inputs
            .promotions
            .iter()
            .map(|(rule, _)| rule.pricing())
            .filter(|p| p.runs_at(now))
            .collect();
        let applicable = given(&running, &request.codes)?;
        let needs_categories = inputs
            .promotions
            .iter()
            .any(|(rule, _)| rule.needs_categories());
        let categories = if needs_categories {
            self.categories_of(lines.iter().map(|(v, _)| *v)).await?
        } else {
            BTreeMap::new()
        };
        let mut priced = Vec::with_capacity(lines.len());
        let mut weight_grams = 0_u64;
        for (variant, quantity) in lines {
            weight_grams += u64::from(variant.weight_grams) * u64::from(*quantity);
            let product_categories = variant.product_id.as_ref().and_then(|p| categories.get(p));
            priced.push(Line {
                sku: variant.sku.clone(),
                quantity: *quantity,
                unit_price: cents(variant.price)?,
                categories: product_categories.cloned().unwrap_or_default(),
            });
        }
        let place = inputs.place.as_ref();
        let shipped = shipped(request, inputs.option, place, weight_grams)?;
        let rule = match (inputs.tax, place) {
            (Some(rate), Some((_, region))) => rate.rule(region.as_ref(), self.prices_include_tax),
            _ => TaxRule {
                prices_include_tax: self.prices_include_tax,
                ..TaxRule::default()
            },
        };
        let breakdown = price_shipped(&priced, shipped, rule, &applicable)?;
        let (country, region) = inputs.place.map_or((None, None), |(c, r)| (Some(c), r));
        let destination = Destination {
            shipping_option_id: request.shipping_option.clone(),
            country,
            region,
        };
        Ok(Quote::of(&breakdown, &applicable, rule, destination))
    }

    /// The variants of `skus`, the option `option` and the tax of `place`'s country: one
    /// BatchGetItem (eventually consistent: a quote is read again at checkout).
    async fn quote_inputs(
        &self,
        skus: &[Sku],
        option: Option<&ShippingOptionId>,
        place: Option<&(Country, Option<Region>)>,
    ) -> Result<Found, AppError> {
        let mut keys: Vec<Item> = skus.iter().map(variant::key).collect();
        keys.extend(option.map(shipping_option::key));
        keys.extend(place.map(|(country, _)| tax_rate::key(country)));
        let mut found = Found::default();
        if keys.is_empty() {
            return Ok(found);
        }
        for item in self.batch_get(keys, false).await? {
            let (Some(pk), Some(sk)) = (PK.get(&item), SK.get(&item)) else {
                continue;
            };
            match Entity::of(&pk, &sk) {
                Some(Entity::Variant) => {
                    let variant = variant::from_item(item)?;
                    found.variants.insert(variant.sku.clone(), variant);
                }
                Some(Entity::ShippingOption) => {
                    found.option = Some(shipping_option::from_item(item)?);
                }
                Some(Entity::TaxRate) => found.tax = Some(tax_rate::from_item(item)?),
                _ => {}
            }
        }
        Ok(found)
    }

    /// The categories of each product of `variants` (one BatchGetItem of the products).
    async fn categories_of(
        &self,
        variants: impl Iterator<Item = &Variant>,
    ) -> Result<BTreeMap<ProductId, Vec<CategoryId>>, AppError> {
        let mut products: Vec<&ProductId> =
            variants.filter_map(|v| v.product_id.as_ref()).collect();
        products.sort();
        products.dedup();
        let keys = products.into_iter().map(product::key).collect();
        let mut categories = BTreeMap::new();
        for item in self.batch_get(keys, false).await? {
            let (product, _) = product::from_item(item)?;
            categories.insert(product.product_id, product.category_ids);
        }
        Ok(categories)
    }
}

/// The promotions a cart may take: every automatic one running, and the one each code names;
/// a code no running promotion has is a 422.
fn given<'a>(
    running: &'a [Promotion],
    codes: &[PromotionCode],
) -> Result<Vec<&'a Promotion>, AppError> {
    let mut applicable: Vec<&Promotion> = running.iter().filter(|p| p.code.is_none()).collect();
    for code in codes {
        match running
            .iter()
            .find(|p| p.code.as_deref() == Some(code.as_str()))
        {
            Some(promotion) => applicable.push(promotion),
            None => return Err(AppError::UnknownCode(code.to_string())),
        }
    }
    Ok(applicable)
}

/// The way to ship, checked against where the cart goes.
fn shipped<'a>(
    request: &QuoteRequest,
    option: Option<&'a ShippingOption>,
    place: Option<&(Country, Option<Region>)>,
    weight_grams: u64,
) -> Result<Option<Shipped<'a>>, AppError> {
    let Some(id) = &request.shipping_option else {
        return Ok(None);
    };
    let Some(option) = option else {
        return Err(AppError::not_found(format!("no shipping option {id}")));
    };
    let Some((country, region)) = place else {
        return Err(AppError::invalid(
            "a shipping option needs an address: give country (and region), or keep one on the profile",
        ));
    };
    if !option.serves(country, region.as_ref()) {
        let place = region.as_ref().map_or(country.as_str(), Region::as_str);
        return Err(AppError::invalid(format!("{id} does not ship to {place}")));
    }
    Ok(Some(Shipped {
        option,
        weight_grams,
    }))
}
