//! A cart's price as a storefront shows it before paying, and as checkout will charge it: the
//! lines (with their weight and categories), the way to ship chosen, the tax where it goes and
//! the promotions that run, priced once by [`super::price`] and answered in money.

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::address::{Address, Country, Region};
use crate::domain::ids::{ShippingOptionId, Sku};
use crate::domain::money::Money;
use crate::domain::shipping::ShippingOption;

use super::cents::{Cents, money};
use super::promotion::{Line, Promotion};
use super::{Breakdown, TaxRule, price};

/// What a storefront asks a quote for, and a checkout its price.
#[derive(Debug, Clone, Default)]
pub struct QuoteRequest {
    /// The way to ship (none: nothing shipped, no shipping charged).
    pub shipping_option: Option<ShippingOptionId>,
    /// Where it goes (none: the address on the customer's profile, if any).
    pub place: Option<(Country, Option<Region>)>,
    /// The codes given.
    pub codes: Vec<crate::domain::promotions::PromotionCode>,
}

/// The way to ship a priced cart takes, and what it weighs.
#[derive(Debug, Clone, Copy)]
pub struct Shipped<'a> {
    /// The option chosen.
    pub option: &'a ShippingOption,
    /// The cart's weight, in grams.
    pub weight_grams: u64,
}

/// The price of `lines` shipped by `shipped` (none: nothing to ship, no shipping charged) under
/// `tax` with the best of `promotions`. An option free above a subtotal compares the subtotal
/// after the discounts (priced with the option's rate first); a cart heavier than the option's
/// last band is a 400.
pub fn price_shipped(
    lines: &[Line],
    shipped: Option<Shipped<'_>>,
    tax: TaxRule,
    promotions: &[&Promotion],
) -> Result<Breakdown, AppError> {
    let Some(Shipped {
        option,
        weight_grams,
    }) = shipped
    else {
        return Ok(price(lines, 0, tax, promotions));
    };
    let charge = |after_discounts: Cents| {
        option
            .charge(weight_grams, after_discounts)?
            .ok_or_else(|| {
                AppError::invalid(format!(
                    "the cart weighs {weight_grams} g, more than {} ships",
                    option.option_id
                ))
            })
    };
    let subtotal: Cents = lines.iter().map(Line::subtotal).sum();
    let rate = charge(subtotal)?;
    let first = price(lines, rate, tax, promotions);
    let after = charge(first.subtotal - first.discount)?;
    Ok(if after == rate {
        first
    } else {
        price(lines, after, tax, promotions)
    })
}

/// A line of a quote: per line, the discount and tax on all its units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotedLine {
    /// Its SKU.
    pub sku: Sku,
    /// How many.
    pub quantity: u32,
    /// The price of one.
    pub price: Money,
    /// Price × quantity.
    pub subtotal: Money,
    /// What the promotions take off the line.
    pub discount: Money,
    /// The line's tax.
    pub tax: Money,
}

/// One promotion's part of a quote, or of an order's price.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotedPromotion {
    /// Which promotion.
    pub promotion_id: String,
    /// Its code, when a code applied it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// What it takes off, lines and shipping together.
    pub discount: Money,
    /// Its limits, whose uses an order counts (and gives back when its hold ends unpaid).
    #[serde(skip)]
    pub limits: Limits,
}

/// A promotion's limits on its uses: in all, and per customer (none: not counted).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Uses in all.
    pub in_all: Option<u32>,
    /// Uses by one customer.
    pub per_customer: Option<u32>,
}

impl Limits {
    /// How many counts an order that uses it writes.
    pub fn counts(self) -> usize {
        usize::from(self.in_all.is_some()) + usize::from(self.per_customer.is_some())
    }
}

/// The figures of a cart's price besides its lines and its total: what a quote answers and a
/// checked-out order keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    /// The lines' subtotals.
    pub subtotal: Money,
    /// The lines' discounts.
    pub discount: Money,
    /// The shipping, after its discount.
    pub shipping: Money,
    /// What the promotions took off the shipping's rate.
    pub shipping_discount: Money,
    /// The shipping's tax.
    pub shipping_tax: Money,
    /// The lines' taxes and the shipping's.
    pub tax: Money,
}

/// What a checked-out order was charged besides its lines' prices (each line keeps its own
/// discount and tax): the order's `total` is `subtotal - discount + shipping`, plus `tax` when
/// prices exclude it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Charged {
    /// Its figures.
    #[serde(flatten)]
    pub figures: Figures,
    /// Whether the prices included the tax.
    pub prices_include_tax: bool,
    /// The way it ships.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shipping_option_id: Option<ShippingOptionId>,
    /// Where it ships.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shipping_address: Option<Address>,
    /// The promotions that applied, with what each took off.
    #[serde(default)]
    pub promotions: Vec<QuotedPromotion>,
}

impl Charged {
    /// The order's part of `quote`, shipped to `address`.
    pub fn of(quote: &Quote, address: Option<Address>) -> Self {
        Charged {
            figures: quote.figures,
            prices_include_tax: quote.prices_include_tax,
            shipping_option_id: quote.shipping_option_id.clone(),
            shipping_address: address,
            promotions: quote.promotions.clone(),
        }
    }
}

/// Where a quote ships to, and how.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Destination {
    /// The way to ship.
    pub shipping_option_id: Option<ShippingOptionId>,
    /// The country.
    pub country: Option<Country>,
    /// The region.
    pub region: Option<Region>,
}

/// The price of a cart, in money: `total` is `subtotal - discount + shipping`, plus `tax` when
/// prices exclude it. `shipping` is what the shipping costs after its own discount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Quote {
    /// The lines, in SKU order.
    pub lines: Vec<QuotedLine>,
    /// Its figures.
    #[serde(flatten)]
    pub figures: Figures,
    /// What the customer pays.
    pub total: Money,
    /// Whether the prices include the tax (then `tax` is the part of the total that is tax).
    pub prices_include_tax: bool,
    /// The promotions that apply, with what each takes off.
    pub promotions: Vec<QuotedPromotion>,
    /// The way to ship priced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shipping_option_id: Option<ShippingOptionId>,
    /// The country taxed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<Country>,
    /// The region taxed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
}

impl Quote {
    /// `breakdown` in money, with the codes of the promotions that applied and where it goes.
    pub fn of(
        breakdown: &Breakdown,
        promotions: &[&Promotion],
        (tax, limits_of): (TaxRule, &dyn Fn(&str) -> Limits),
        destination: Destination,
    ) -> Self {
        let code_of = |id: &str| {
            promotions
                .iter()
                .find(|p| p.promotion_id == id)
                .and_then(|p| p.code.clone())
        };
        Quote {
            lines: breakdown
                .lines
                .iter()
                .map(|l| QuotedLine {
                    sku: l.sku.clone(),
                    quantity: l.quantity,
                    price: money(l.unit_price),
                    subtotal: money(l.subtotal),
                    discount: money(l.discount),
                    tax: money(l.tax),
                })
                .collect(),
            figures: Figures {
                subtotal: money(breakdown.subtotal),
                discount: money(breakdown.discount),
                shipping: money(breakdown.shipping - breakdown.shipping_discount),
                shipping_discount: money(breakdown.shipping_discount),
                shipping_tax: money(breakdown.shipping_tax),
                tax: money(breakdown.tax),
            },
            total: money(breakdown.total),
            prices_include_tax: tax.prices_include_tax,
            promotions: breakdown
                .promotions
                .iter()
                .map(|a| QuotedPromotion {
                    promotion_id: a.promotion_id.clone(),
                    code: code_of(&a.promotion_id),
                    discount: money(a.amount),
                    limits: limits_of(&a.promotion_id),
                })
                .collect(),
            shipping_option_id: destination.shipping_option_id,
            country: destination.country,
            region: destination.region,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::shipping::ShippingOptionBody;

    fn standard() -> ShippingOption {
        let body: ShippingOptionBody = serde_json::from_value(serde_json::json!({
            "name": "Standard", "countries": ["US"],
            "rate": {"byWeight": [{"upToGrams": 1000, "amount": "4.00"}]},
            "freeAbove": "50.00",
        }))
        .expect("shape");
        body.check(ShippingOptionId::parse("standard").expect("id"))
            .expect("valid")
    }

    fn mugs(quantity: u32) -> Vec<Line> {
        vec![Line {
            sku: Sku::parse("mug").expect("sku"),
            quantity,
            unit_price: 1_995,
            categories: Vec::new(),
        }]
    }

    #[test]
    fn free_above_compares_the_subtotal_after_discounts() {
        let option = standard();
        let shipped = Some(Shipped {
            option: &option,
            weight_grams: 900,
        });
        // 3 × 19.95 = 59.85: free above 50.00.
        let none = price_shipped(&mugs(3), shipped, TaxRule::default(), &[]).expect("priced");
        assert_eq!((none.shipping, none.total), (0, 5_985));
        // 20 % off: 47.88 left, under 50.00, so the shipping's 4.00 is charged.
        let off = Promotion {
            promotion_id: "p".into(),
            code: None,
            benefit: super::super::promotion::Benefit::Percentage(200_000),
            min_subtotal: 0,
            skus: Vec::new(),
            categories: Vec::new(),
            starts_at: None,
            ends_at: None,
            combines: false,
        };
        let priced = price_shipped(&mugs(3), shipped, TaxRule::default(), &[&off]).expect("priced");
        assert_eq!(
            (priced.discount, priced.shipping, priced.total),
            (1_197, 400, 5_985 - 1_197 + 400)
        );
        let heavy = Some(Shipped {
            option: &option,
            weight_grams: 1_001,
        });
        assert!(price_shipped(&mugs(1), heavy, TaxRule::default(), &[]).is_err());
        let none = |_: &str| Limits::default();
        let quote = Quote::of(
            &priced,
            &[&off],
            (TaxRule::default(), &none),
            Destination::default(),
        );
        assert_eq!(
            serde_json::to_value(&quote).expect("json")["shipping"],
            "4.00"
        );
    }
}
