//! The price of a customer's cart before they pay: the cart (one Query) and the promotions (one
//! Query of their partition) read together, then the variants, the way to ship and the tax
//! where it goes in ONE BatchGetItem, and the products' categories in a second only when a
//! running promotion names categories. The pricing itself is the domain's
//! ([`crate::domain::pricing::quote`]).

use std::collections::{BTreeMap, BTreeSet};

use crate::AppError;
use crate::domain::address::{Country, Region};
use crate::domain::ids::{CategoryId, CustomerId, ProductId, PromotionId, ShippingOptionId, Sku};
use crate::domain::pricing::TaxRule;
use crate::domain::pricing::cents::cents;
use crate::domain::pricing::promotion::{Line, Promotion};
use crate::domain::pricing::quote::{
    Destination, Limits, Quote, QuoteRequest, Shipped, price_shipped,
};
use crate::domain::promotions::{PromotionCode, PromotionRule};
use crate::domain::shipping::ShippingOption;
use crate::domain::tax::TaxRate;
use crate::domain::time::Timestamp;
use crate::domain::variant::Variant;
use crate::dynamo::codec::{Item, PK, SK};
use crate::dynamo::entities::{product, promotion_uses, shipping_option, tax_rate, variant};
use crate::dynamo::keys::Entity;
use crate::dynamo::products::MAX_BATCH_GET;
use crate::dynamo::store::Store;

/// What pricing reads besides the lines.
struct PricingInputs<'a> {
    /// Whether the counts of uses are read strongly consistent (a checkout decides on them).
    consistent: bool,
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
            consistent: false,
            place,
            option: found.option.as_ref(),
            tax: found.tax.as_ref(),
            promotions: &promotions,
        };
        self.price_cart(customer, &lines, request, inputs).await
    }

    /// What checkout charges for `lines` (its variants read strongly consistent, each with
    /// its quantity) shipped as `request` says: the promotions (one Query), the way to ship
    /// and the country's tax (one BatchGetItem, when either is asked for) and, where a
    /// promotion names categories, the products' (one BatchGetItem), priced by the quote's
    /// computation.
    ///
    /// The promotions are read eventually consistent, as a quote reads them: every checkout
    /// of the store reads the one `PROMOTIONS` partition, and strongly consistent reads of it
    /// would cap the whole store near 3,000 checkouts a second (6,000 this way). A promotion's
    /// start and end are applied by the clock, exactly; only a staff edit reaches checkouts
    /// as DynamoDB's eventual consistency does (typically within a second). The uses a limit
    /// allows are still counted in the order's own transaction.
    pub async fn checkout_price(
        &self,
        customer: &CustomerId,
        lines: &[(&Variant, u32)],
        request: &QuoteRequest,
    ) -> Result<Quote, AppError> {
        let place = request.place.as_ref();
        let (promotions, found) = tokio::try_join!(
            self.promotions(false),
            self.quote_inputs(&[], request.shipping_option.as_ref(), place)
        )?;
        let inputs = PricingInputs {
            consistent: true,
            place: request.place.clone(),
            option: found.option.as_ref(),
            tax: found.tax.as_ref(),
            promotions: &promotions,
        };
        self.price_cart(customer, lines, request, inputs).await
    }

    /// `lines` priced with `inputs`: the running promotions (automatic, and those `request`'s
    /// codes name) whose limits `customer` has not reached, the way to ship checked against
    /// where it goes, and the tax there.
    async fn price_cart(
        &self,
        customer: &CustomerId,
        lines: &[(&Variant, u32)],
        request: &QuoteRequest,
        inputs: PricingInputs<'_>,
    ) -> Result<Quote, AppError> {
        let candidates = candidates(inputs.promotions, &request.codes, Timestamp::now())?;
        let spent = self.spent(customer, &candidates, inputs.consistent).await?;
        let chosen = unspent(candidates, &spent)?;
        let pricing: Vec<Promotion> = chosen.iter().map(|rule| rule.pricing()).collect();
        let applicable: Vec<&Promotion> = pricing.iter().collect();
        let limits_of = |id: &str| {
            chosen
                .iter()
                .find(|rule| rule.promotion_id.as_str() == id)
                .map_or_else(Limits::default, |rule| Limits {
                    in_all: rule.usage_limit,
                    per_customer: rule.per_customer_limit,
                })
        };
        // Only a promotion that may apply makes the products' categories worth a read.
        let needs_categories = chosen.iter().any(|rule| rule.needs_categories());
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
        Ok(Quote::of(
            &breakdown,
            &applicable,
            (rule, &limits_of),
            destination,
        ))
    }

    /// The promotions of `candidates` whose limits are reached, in all or by `customer`: their
    /// counts, one BatchGetItem per 100 (none when no candidate has a limit).
    async fn spent(
        &self,
        customer: &CustomerId,
        candidates: &[&PromotionRule],
        consistent: bool,
    ) -> Result<BTreeSet<PromotionId>, AppError> {
        let keys_of = |item: &Item| (PK.get(item), SK.get(item));
        let mut keys = Vec::new();
        let mut limit_of = BTreeMap::new();
        for rule in candidates {
            let id = &rule.promotion_id;
            let counts = [
                (rule.usage_limit, promotion_uses::key(id)),
                (
                    rule.per_customer_limit,
                    promotion_uses::customer_key(id, customer),
                ),
            ];
            for (limit, key) in counts {
                if let Some(limit) = limit {
                    limit_of.insert(keys_of(&key), (id, limit));
                    keys.push(key);
                }
            }
        }
        let mut spent = BTreeSet::new();
        let mut found = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(MAX_BATCH_GET) {
            found.extend(self.batch_get(chunk.to_vec(), consistent).await?);
        }
        for item in found {
            let uses = promotion_uses::USES.get(&item).unwrap_or(0);
            if let Some((id, limit)) = limit_of.get(&keys_of(&item))
                && uses >= *limit
            {
                spent.insert((*id).clone());
            }
        }
        Ok(spent)
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

/// The promotions that may apply to a cart, before their counts are read: every automatic
/// one running at `now`, and the one each code names; a code no running promotion has is a 422.
fn candidates<'a>(
    promotions: &'a [(PromotionRule, u64)],
    codes: &[PromotionCode],
    now: Timestamp,
) -> Result<Vec<&'a PromotionRule>, AppError> {
    let running = promotions
        .iter()
        .map(|(rule, _)| rule)
        .filter(|rule| rule.pricing().runs_at(now));
    let mut candidates = Vec::new();
    for rule in running {
        if rule.code.is_none() || rule.code.as_ref().is_some_and(|c| codes.contains(c)) {
            candidates.push(rule);
        }
    }
    if let Some(unknown) = codes
        .iter()
        .find(|code| !candidates.iter().any(|r| r.code.as_ref() == Some(*code)))
    {
        return Err(AppError::UnknownCode(unknown.to_string()));
    }
    Ok(candidates)
}

/// The candidates whose limits are not reached: an automatic one used up no longer applies; a
/// code used up is a 409.
fn unspent<'a>(
    candidates: Vec<&'a PromotionRule>,
    spent: &BTreeSet<PromotionId>,
) -> Result<Vec<&'a PromotionRule>, AppError> {
    let mut chosen = Vec::with_capacity(candidates.len());
    for rule in candidates {
        match (&rule.code, spent.contains(&rule.promotion_id)) {
            (Some(code), true) => return Err(AppError::CodeUsedUp(code.to_string())),
            (None, true) => {}
            (_, false) => chosen.push(rule),
        }
    }
    Ok(chosen)
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
