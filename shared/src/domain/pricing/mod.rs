//! The price of a cart: ONE computation, used by a quote and by checkout alike. From the lines
//! (price, quantity, weight, categories), the shipping option chosen, the tax that applies where
//! it goes and the promotions that may apply, it gives the subtotal, each discount allocated to
//! the lines it applies to, the shipping, the tax, and the total, in cents, exactly:
//!
//! - the lines are read in SKU order, and each promotion is computed on the lines' own
//!   subtotals, never on what another left: the result does not depend on the order lines
//!   were added in or promotions were given;
//! - a line's discount never passes its subtotal, the shipping's never passes the shipping, no
//!   tax and no total is ever negative;
//! - each figure of the order is the sum of its lines' (and the shipping's): the allocations
//!   add up exactly (`cents::allocate`);
//! - one rounding rule, half away from zero to the cent, applied per line (docs/pricing.md).

pub mod cents;
pub mod promotion;
pub mod quote;

use std::collections::BTreeSet;

use crate::domain::ids::Sku;

use cents::{Cents, scale};
use promotion::{Line, Promotion, Taken};

/// How tax applies where the order goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TaxRule {
    /// The rate, per million (20 % is 200,000); 0 where no rate is set.
    pub rate: i128,
    /// Whether the shipping is taxed there too.
    pub shipping_taxed: bool,
    /// Whether prices include the tax (the store's setting): the tax is then the part of
    /// each amount that is tax, and the total does not grow by it.
    pub prices_include_tax: bool,
}

impl TaxRule {
    /// The tax on `amount` (already net of its discount).
    fn on(self, amount: Cents) -> Cents {
        if self.prices_include_tax {
            // The amount is net + tax: the net is amount / (1 + rate), rounded; the rest is tax.
            amount - scale(amount, 1_000_000, 1_000_000 + self.rate)
        } else {
            scale(amount, self.rate, 1_000_000)
        }
    }
}

/// A line of the cart as priced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PricedLine {
    /// Its SKU.
    pub sku: Sku,
    /// How many.
    pub quantity: u32,
    /// The price of one.
    pub unit_price: Cents,
    /// Price × quantity.
    pub subtotal: Cents,
    /// What the promotions take off it.
    pub discount: Cents,
    /// Its tax, on what is left.
    pub tax: Cents,
}

/// One promotion's part of the order's discount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// Which promotion.
    pub promotion_id: String,
    /// What it takes off, lines and shipping together.
    pub amount: Cents,
}

/// The price of a cart, in cents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakdown {
    /// The lines, in SKU order.
    pub lines: Vec<PricedLine>,
    /// The promotions that apply, with what each takes off.
    pub promotions: Vec<Applied>,
    /// The lines' subtotals.
    pub subtotal: Cents,
    /// The lines' discounts.
    pub discount: Cents,
    /// The shipping's rate.
    pub shipping: Cents,
    /// What the promotions take off the shipping.
    pub shipping_discount: Cents,
    /// The shipping's tax.
    pub shipping_tax: Cents,
    /// The lines' taxes and the shipping's.
    pub tax: Cents,
    /// What the customer pays.
    pub total: Cents,
}

/// The price of `lines` shipped at `shipping` under `tax`, with the best of `promotions` (each
/// one that runs and whose code, if it has one, is among the codes given; the caller leaves
/// out those whose uses are spent).
pub fn price(
    lines: &[Line],
    shipping: Cents,
    tax: TaxRule,
    promotions: &[&Promotion],
) -> Breakdown {
    let mut lines = lines.to_vec();
    lines.sort_by(|a, b| a.sku.cmp(&b.sku));
    let chosen = best(&lines, shipping, promotions);
    // Each line's discount: the promotions' parts, in the promotions' order, capped at what is
    // left of the line, so that the parts per promotion add up to the line's.
    let mut left: Vec<Cents> = lines.iter().map(Line::subtotal).collect();
    let mut shipping_left = shipping;
    let mut applied = Vec::new();
    for (promotion, taken) in &chosen {
        let mut amount = 0;
        for (i, part) in taken.lines.iter().enumerate() {
            let part = (*part).min(left[i]);
            left[i] -= part;
            amount += part;
        }
        let off_shipping = taken.shipping.min(shipping_left);
        shipping_left -= off_shipping;
        amount += off_shipping;
        if amount > 0 {
            applied.push(Applied {
                promotion_id: promotion.promotion_id.clone(),
                amount,
            });
        }
    }
    let priced: Vec<PricedLine> = lines
        .iter()
        .zip(&left)
        .map(|(line, net)| PricedLine {
            sku: line.sku.clone(),
            quantity: line.quantity,
            unit_price: line.unit_price,
            subtotal: line.subtotal(),
            discount: line.subtotal() - net,
            tax: tax.on(*net),
        })
        .collect();
    let shipping_tax = if tax.shipping_taxed {
        tax.on(shipping_left)
    } else {
        0
    };
    let sum = |f: fn(&PricedLine) -> Cents| priced.iter().map(f).sum::<Cents>();
    let (subtotal, discount) = (sum(|l| l.subtotal), sum(|l| l.discount));
    let tax_total = sum(|l| l.tax) + shipping_tax;
    let net = subtotal - discount + shipping_left;
    Breakdown {
        lines: priced,
        promotions: applied,
        subtotal,
        discount,
        shipping,
        shipping_discount: shipping - shipping_left,
        shipping_tax,
        tax: tax_total,
        total: if tax.prices_include_tax {
            net
        } else {
            net + tax_total
        },
    }
}

/// The promotions that give the most: every combinable one together, or one that does not
/// combine alone, whichever takes off more (ties: fewer promotions, then the lowest IDs).
fn best<'a>(
    lines: &[Line],
    shipping: Cents,
    promotions: &[&'a Promotion],
) -> Vec<(&'a Promotion, Taken)> {
    // Each once (an ID names one promotion: the store's key), in ID order.
    let mut seen = BTreeSet::new();
    let mut given = promotions.to_vec();
    given.sort_by(|a, b| a.promotion_id.cmp(&b.promotion_id));
    let usable: Vec<(&Promotion, Taken)> = given
        .into_iter()
        .filter(|p| seen.insert(p.promotion_id.clone()))
        .filter_map(|p| p.take(lines, shipping).map(|taken| (p, taken)))
        .collect();
    let (together, alone): (Vec<_>, Vec<_>) = usable.into_iter().partition(|(p, _)| p.combines);
    let mut candidates: Vec<Vec<(&Promotion, Taken)>> =
        alone.into_iter().map(|c| vec![c]).collect();
    if !together.is_empty() {
        candidates.push(together);
    }
    let worth = |set: &[(&Promotion, Taken)]| capped(lines, shipping, set);
    candidates
        .into_iter()
        .max_by(|a, b| {
            worth(a)
                .cmp(&worth(b))
                .then(b.len().cmp(&a.len()))
                .then_with(|| ids(b).cmp(&ids(a)))
        })
        .unwrap_or_default()
}

/// What a set of promotions takes off together, each line and the shipping capped.
fn capped(lines: &[Line], shipping: Cents, set: &[(&Promotion, Taken)]) -> Cents {
    let on_lines: Cents = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let asked: Cents = set.iter().map(|(_, t)| t.lines[i]).sum();
            asked.min(line.subtotal())
        })
        .sum();
    let on_shipping = set
        .iter()
        .map(|(_, t)| t.shipping)
        .sum::<Cents>()
        .min(shipping);
    on_lines + on_shipping
}

fn ids(set: &[(&Promotion, Taken)]) -> Vec<String> {
    set.iter().map(|(p, _)| p.promotion_id.clone()).collect()
}

#[cfg(test)]
mod tests;
