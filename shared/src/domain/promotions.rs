//! Promotions as staff write them (`PUT /promotions/{promotionId}`): a code customers give, or
//! none (automatic); what it takes off — a percentage, a fixed amount, buy X get Y, or the
//! shipping — on which lines (conditions: a least subtotal, SKUs, categories); when it runs; how
//! often it may be used; and whether it combines with others. The price of a cart reads each as
//! [`pricing::promotion::Promotion`](crate::domain::pricing::promotion::Promotion).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize, Serializer};

use crate::AppError;
use crate::domain::ids::{CategoryId, PromotionId, Sku};
use crate::domain::money::{Decimal, Money};
use crate::domain::pricing::cents::{cents, per_million};
use crate::domain::pricing::promotion::{Benefit, Promotion};
use crate::domain::product;
use crate::domain::time::Timestamp;

/// The most promotions a store runs: the price of a cart reads them all in one Query.
pub const MAX_PROMOTIONS: usize = 100;
/// The most SKUs one list of a promotion names.
pub const MAX_SKUS: usize = 50;
/// The most categories a promotion's conditions name.
pub const MAX_CATEGORIES: usize = 20;
/// The most units a buy-x-get-y counts or rewards at a time.
pub const MAX_UNITS: u32 = 100;

/// A code a customer gives: 3-32 letters, digits, `_` or `-`, the same whatever its case (kept
/// in capitals).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct PromotionCode(String);

impl PromotionCode {
    /// The code `raw` names, in capitals; a 400 otherwise.
    pub fn parse(raw: &str) -> Result<Self, AppError> {
        let ok = (3..=32).contains(&raw.len())
            && raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if ok {
            Ok(Self(raw.to_ascii_uppercase()))
        } else {
            Err(AppError::invalid(format!(
                "a code is 3-32 letters, digits, '_' or '-', not {:?}",
                raw.escape_default().to_string()
            )))
        }
    }

    /// The code, as keys hold it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PromotionCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a promotion takes off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PromotionType {
    /// A percentage of the lines it applies to.
    Percentage,
    /// A fixed amount off the lines it applies to.
    Fixed,
    /// For every `buy` units, `get` units at a percentage off.
    BuyXGetY,
    /// The shipping.
    FreeShipping,
}

impl PromotionType {
    /// As the contract and the item write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Percentage => "percentage",
            Self::Fixed => "fixed",
            Self::BuyXGetY => "buy-x-get-y",
            Self::FreeShipping => "free-shipping",
        }
    }
}

impl fmt::Display for PromotionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PromotionType {
    type Err = AppError;
    fn from_str(raw: &str) -> Result<Self, AppError> {
        [
            Self::Percentage,
            Self::Fixed,
            Self::BuyXGetY,
            Self::FreeShipping,
        ]
        .into_iter()
        .find(|t| t.as_str() == raw)
        .ok_or_else(|| {
            AppError::invalid(
                "type must be percentage, fixed, buy-x-get-y or free-shipping".to_owned(),
            )
        })
    }
}

/// A promotion as the store keeps it (flat, as its item stores it; answered as staff wrote it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromotionRule {
    /// Its ID.
    pub promotion_id: PromotionId,
    /// The code customers give (none: applied on its own wherever its conditions hold).
    pub code: Option<PromotionCode>,
    /// What it takes off.
    pub kind: PromotionType,
    /// A percentage's percent, or a fixed amount.
    pub value: Option<Decimal>,
    /// Buy X get Y: the SKUs whose units count as bought.
    pub buy_skus: Vec<Sku>,
    /// Buy X get Y: how many units are bought for each reward.
    pub buy_quantity: u32,
    /// Buy X get Y: the SKUs whose units are rewarded.
    pub get_skus: Vec<Sku>,
    /// Buy X get Y: how many units are rewarded each time.
    pub get_quantity: u32,
    /// Buy X get Y: the percentage off each rewarded unit.
    pub percent_off: Option<Decimal>,
    /// The least subtotal (before discounts) it needs.
    pub min_subtotal: Option<Money>,
    /// The SKUs it applies to (none: any).
    pub skus: Vec<Sku>,
    /// The categories it applies to (none: any).
    pub categories: Vec<CategoryId>,
    /// From when it runs (included).
    pub starts_at: Option<Timestamp>,
    /// Until when it runs (excluded).
    pub ends_at: Option<Timestamp>,
    /// How many orders may use it in all (none: no limit).
    pub usage_limit: Option<u32>,
    /// How many orders of one customer may use it (none: no limit).
    pub per_customer_limit: Option<u32>,
    /// Whether it combines with other combinable promotions.
    pub combinable: bool,
}

impl PromotionRule {
    /// The promotion as the price of a cart applies it.
    pub fn pricing(&self) -> Promotion {
        // Every figure was checked when written: a percentage from 0 to 100 with at most four
        // decimals, an amount in whole cents.
        let percent = |p: Option<Decimal>| p.and_then(|p| per_million(p).ok()).unwrap_or(0);
        let benefit = match self.kind {
            PromotionType::Percentage => Benefit::Percentage(percent(self.value)),
            PromotionType::Fixed => Benefit::Fixed(
                self.value
                    .and_then(|v| cents(Money::new(v)).ok())
                    .unwrap_or(0),
            ),
            PromotionType::BuyXGetY => Benefit::BuyGet {
                buy: self.buy_quantity,
                get: self.get_quantity,
                rewarded: self.get_skus.clone(),
                off: percent(self.percent_off),
            },
            PromotionType::FreeShipping => Benefit::FreeShipping,
        };
        let skus = if self.kind == PromotionType::BuyXGetY {
            self.buy_skus.clone()
        } else {
            self.skus.clone()
        };
        Promotion {
            promotion_id: self.promotion_id.to_string(),
            code: self.code.as_ref().map(ToString::to_string),
            benefit,
            min_subtotal: self.min_subtotal.and_then(|m| cents(m).ok()).unwrap_or(0),
            skus,
            categories: self.categories.clone(),
            starts_at: self.starts_at,
            ends_at: self.ends_at,
            combines: self.combinable,
        }
    }

    /// Whether it names categories (the price of a cart then reads its lines' products).
    pub fn needs_categories(&self) -> bool {
        !self.categories.is_empty()
    }
}

/// Buy X get Y's `buy`, as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BuyBody {
    /// The SKUs whose units count.
    pub skus: Vec<String>,
    /// How many units.
    pub quantity: u32,
}

/// Buy X get Y's `get`, as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetBody {
    /// The SKUs whose units are rewarded.
    pub skus: Vec<String>,
    /// How many units.
    pub quantity: u32,
    /// The percentage off each (100: free, the default).
    #[serde(
        default,
        deserialize_with = "crate::domain::present::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub percent_off: Option<String>,
}

/// The conditions, as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConditionsBody {
    /// The least subtotal, before discounts.
    #[serde(
        default,
        deserialize_with = "crate::domain::present::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_subtotal: Option<String>,
    /// The SKUs it applies to.
    #[serde(default)]
    pub skus: Vec<String>,
    /// The categories it applies to.
    #[serde(default)]
    pub categories: Vec<String>,
}

/// A promotion as staff send it. `code`, the window's ends and the limits may be `null`: no code
/// (automatic), no end, no limit.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromotionBody {
    /// The code customers give; none: automatic.
    #[serde(default)]
    pub code: Option<String>,
    /// `percentage`, `fixed`, `buy-x-get-y` or `free-shipping`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A percentage's percent (`"10"`), or a fixed amount (`"5.00"`).
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub value: Option<String>,
    /// Buy X get Y: what is bought.
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub buy: Option<BuyBody>,
    /// Buy X get Y: what is rewarded.
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub get: Option<GetBody>,
    /// When it applies.
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub conditions: Option<ConditionsBody>,
    /// From when (RFC 3339).
    #[serde(default)]
    pub starts_at: Option<String>,
    /// Until when (RFC 3339, excluded).
    #[serde(default)]
    pub ends_at: Option<String>,
    /// How many orders may use it in all.
    #[serde(default)]
    pub usage_limit: Option<u32>,
    /// How many orders of one customer may use it.
    #[serde(default)]
    pub per_customer_limit: Option<u32>,
    /// Whether it combines with others.
    #[serde(default)]
    pub combinable: bool,
}

/// A percentage staff write: above 0, at most 100, at most four decimals, plain digits.
fn percent(what: &str, raw: &str) -> Result<Decimal, AppError> {
    let invalid = || {
        AppError::invalid(format!(
            "{what} is a percentage above 0 and at most 100 with at most four decimals (\"10\", \"12.5\"), not {:?}",
            raw.escape_default().to_string()
        ))
    };
    let (whole, decimals) = raw.split_once('.').unwrap_or((raw, "0"));
    let written = (1..=3).contains(&whole.len())
        && whole.bytes().all(|b| b.is_ascii_digit())
        && (1..=4).contains(&decimals.len())
        && decimals.bytes().all(|b| b.is_ascii_digit());
    let value: Decimal = raw.parse().map_err(|_| invalid())?;
    if !written || value <= Decimal::ZERO || per_million(value).is_err() {
        return Err(invalid());
    }
    Ok(value.normalize())
}

/// 1 to `max` SKUs, each once, in order.
fn skus(what: &str, raw: &[String], least: usize) -> Result<Vec<Sku>, AppError> {
    if raw.len() < least || raw.len() > MAX_SKUS {
        return Err(AppError::invalid(format!(
            "{what} names {least}-{MAX_SKUS} SKUs"
        )));
    }
    let mut skus = raw
        .iter()
        .map(|s| Sku::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    skus.sort();
    skus.dedup();
    Ok(skus)
}

/// A count of units, from 1 to [`MAX_UNITS`].
fn units(what: &str, quantity: u32) -> Result<u32, AppError> {
    if (1..=MAX_UNITS).contains(&quantity) {
        Ok(quantity)
    } else {
        Err(AppError::invalid(format!("{what} is 1-{MAX_UNITS} units")))
    }
}

impl PromotionBody {
    /// The promotion, or a 400 naming what is wrong.
    pub fn check(self, promotion_id: PromotionId) -> Result<PromotionRule, AppError> {
        let kind: PromotionType = self.kind.parse()?;
        let conditions = self.conditions.unwrap_or_default();
        let mut rule = PromotionRule {
            promotion_id,
            code: self.code.as_deref().map(PromotionCode::parse).transpose()?,
            kind,
            value: None,
            buy_skus: Vec::new(),
            buy_quantity: 0,
            get_skus: Vec::new(),
            get_quantity: 0,
            percent_off: None,
            min_subtotal: conditions
                .min_subtotal
                .as_deref()
                .map(product::price)
                .transpose()?,
            skus: skus("conditions.skus", &conditions.skus, 0)?,
            categories: categories(&conditions.categories)?,
            starts_at: self
                .starts_at
                .as_deref()
                .map(Timestamp::parse)
                .transpose()?,
            ends_at: self.ends_at.as_deref().map(Timestamp::parse).transpose()?,
            usage_limit: limit("usageLimit", self.usage_limit)?,
            per_customer_limit: limit("perCustomerLimit", self.per_customer_limit)?,
            combinable: self.combinable,
        };
        if let (Some(start), Some(end)) = (rule.starts_at, rule.ends_at)
            && start >= end
        {
            return Err(AppError::invalid("startsAt must be earlier than endsAt"));
        }
        match (kind, self.value, self.buy, self.get) {
            (PromotionType::Percentage, Some(value), None, None) => {
                rule.value = Some(percent("value", &value)?);
            }
            (PromotionType::Fixed, Some(value), None, None) => {
                rule.value = Some(product::price(&value)?.amount());
            }
            (PromotionType::BuyXGetY, None, Some(buy), Some(get)) => {
                if !rule.skus.is_empty() {
                    return Err(AppError::invalid(
                        "a buy-x-get-y names what it counts in buy.skus, not conditions.skus",
                    ));
                }
                rule.buy_skus = skus("buy.skus", &buy.skus, 1)?;
                rule.buy_quantity = units("buy.quantity", buy.quantity)?;
                rule.get_skus = skus("get.skus", &get.skus, 1)?;
                rule.get_quantity = units("get.quantity", get.quantity)?;
                let off = get.percent_off.as_deref().unwrap_or("100");
                rule.percent_off = Some(percent("get.percentOff", off)?);
            }
            (PromotionType::FreeShipping, None, None, None) => {}
            (kind, ..) => {
                return Err(AppError::invalid(format!(
                    "a {kind} promotion takes {}",
                    match kind {
                        PromotionType::Percentage | PromotionType::Fixed =>
                            "a value, and no buy or get",
                        PromotionType::BuyXGetY => "buy and get, and no value",
                        PromotionType::FreeShipping => "no value, buy or get",
                    }
                )));
            }
        }
        Ok(rule)
    }
}

/// A limit of uses: at least 1 when given.
fn limit(what: &str, limit: Option<u32>) -> Result<Option<u32>, AppError> {
    match limit {
        Some(0) => Err(AppError::invalid(format!("{what} is at least 1"))),
        other => Ok(other),
    }
}

/// At most [`MAX_CATEGORIES`] categories, each once.
fn categories(raw: &[String]) -> Result<Vec<CategoryId>, AppError> {
    if raw.len() > MAX_CATEGORIES {
        return Err(AppError::invalid(format!(
            "conditions.categories names at most {MAX_CATEGORIES} categories"
        )));
    }
    let mut ids = raw
        .iter()
        .map(|c| CategoryId::parse(c))
        .collect::<Result<Vec<_>, _>>()?;
    ids.sort();
    ids.dedup();
    Ok(ids)
}

/// The answer: the promotion as staff wrote it, checked (codes in capitals, lists sorted).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Written<'a> {
    promotion_id: &'a PromotionId,
    code: &'a Option<PromotionCode>,
    #[serde(rename = "type")]
    kind: PromotionType,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    buy: Option<BuyBody>,
    #[serde(skip_serializing_if = "Option::is_none")]
    get: Option<GetBody>,
    conditions: ConditionsBody,
    starts_at: &'a Option<Timestamp>,
    ends_at: &'a Option<Timestamp>,
    usage_limit: Option<u32>,
    per_customer_limit: Option<u32>,
    combinable: bool,
}

impl Serialize for PromotionRule {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        let strings = |list: &[Sku]| list.iter().map(ToString::to_string).collect();
        let value = self.value.map(|v| match self.kind {
            PromotionType::Fixed => Money::new(v).to_string(),
            _ => v.to_string(),
        });
        let bought = self.kind == PromotionType::BuyXGetY;
        Written {
            promotion_id: &self.promotion_id,
            code: &self.code,
            kind: self.kind,
            value,
            buy: bought.then(|| BuyBody {
                skus: strings(&self.buy_skus),
                quantity: self.buy_quantity,
            }),
            get: bought.then(|| GetBody {
                skus: strings(&self.get_skus),
                quantity: self.get_quantity,
                percent_off: self.percent_off.map(|p| p.to_string()),
            }),
            conditions: ConditionsBody {
                min_subtotal: self.min_subtotal.map(|m| m.to_string()),
                skus: strings(&self.skus),
                categories: self.categories.iter().map(ToString::to_string).collect(),
            },
            starts_at: &self.starts_at,
            ends_at: &self.ends_at,
            usage_limit: self.usage_limit,
            per_customer_limit: self.per_customer_limit,
            combinable: self.combinable,
        }
        .serialize(out)
    }
}

#[cfg(test)]
mod tests;
