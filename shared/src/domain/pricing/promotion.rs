//! Promotions as the price of a cart applies them: what each takes off which lines (or the
//! shipping), computed on the lines' own subtotals, never on what another promotion left, so
//! that the result does not depend on the order promotions or lines come in.

use std::collections::BTreeMap;

use crate::domain::ids::{CategoryId, Sku};
use crate::domain::time::Timestamp;

use super::cents::{Cents, allocate, scale};

/// What a promotion takes off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Benefit {
    /// A percentage of the lines it applies to, per million (12.5 % is 125,000).
    Percentage(i128),
    /// A fixed amount off the lines it applies to, spread over them by their subtotals.
    Fixed(Cents),
    /// For every `buy` units of the SKUs it applies to, `get` more of `rewarded` at `off` per
    /// million (1,000,000: free); the cheapest units are the ones rewarded.
    BuyGet {
        /// How many units to buy.
        buy: u32,
        /// How many units are rewarded for each `buy`.
        get: u32,
        /// Which SKUs' units are rewarded.
        rewarded: Vec<Sku>,
        /// How much off each rewarded unit, per million.
        off: i128,
    },
    /// The shipping, whole.
    FreeShipping,
}

/// A promotion as the pricing reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Promotion {
    /// Its ID: which promotion a discount came from, and the order of ties.
    pub promotion_id: String,
    /// The code a customer gives, or none: applied on its own when its conditions hold.
    pub code: Option<String>,
    /// What it takes off.
    pub benefit: Benefit,
    /// The least subtotal (before any discount) it needs.
    pub min_subtotal: Cents,
    /// The SKUs it applies to (none: any).
    pub skus: Vec<Sku>,
    /// The categories it applies to (none: any).
    pub categories: Vec<CategoryId>,
    /// From when (included) and until when (excluded).
    pub starts_at: Option<Timestamp>,
    /// Until when (excluded).
    pub ends_at: Option<Timestamp>,
    /// Whether it combines with other combinable promotions.
    pub combines: bool,
}

/// A line as promotions read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Its SKU.
    pub sku: Sku,
    /// How many.
    pub quantity: u32,
    /// The price of one.
    pub unit_price: Cents,
    /// Its categories (its product's).
    pub categories: Vec<CategoryId>,
}

impl Line {
    /// Its price before any discount.
    pub fn subtotal(&self) -> Cents {
        self.unit_price * Cents::from(self.quantity)
    }
}

/// What one promotion takes off: per line (by index) and off the shipping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Taken {
    /// Off each line, in the lines' order.
    pub lines: Vec<Cents>,
    /// Off the shipping.
    pub shipping: Cents,
}

impl Taken {
    /// All it takes off.
    pub fn total(&self) -> Cents {
        self.lines.iter().sum::<Cents>() + self.shipping
    }
}

impl Promotion {
    /// Whether it runs at `now`.
    pub fn runs_at(&self, now: Timestamp) -> bool {
        self.starts_at.is_none_or(|start| start <= now) && self.ends_at.is_none_or(|end| now < end)
    }

    /// Whether `line` is one it applies to.
    fn applies_to(&self, line: &Line) -> bool {
        (self.skus.is_empty() || self.skus.contains(&line.sku))
            && (self.categories.is_empty()
                || line.categories.iter().any(|c| self.categories.contains(c)))
    }

    /// What it takes off `lines` (sorted by SKU) and `shipping`, or `None` when its conditions
    /// do not hold (a subtotal too low, no line it applies to, nothing to take off).
    pub fn take(&self, lines: &[Line], shipping: Cents) -> Option<Taken> {
        let subtotal: Cents = lines.iter().map(Line::subtotal).sum();
        if subtotal < self.min_subtotal {
            return None;
        }
        let eligible: Vec<Cents> = lines
            .iter()
            .map(|l| if self.applies_to(l) { l.subtotal() } else { 0 })
            .collect();
        let eligible_total: Cents = eligible.iter().sum();
        let taken = match &self.benefit {
            Benefit::Percentage(rate) => Taken {
                lines: allocate(scale(eligible_total, *rate, 1_000_000), &eligible),
                shipping: 0,
            },
            Benefit::Fixed(amount) => Taken {
                lines: allocate((*amount).min(eligible_total), &eligible),
                shipping: 0,
            },
            Benefit::BuyGet {
                buy,
                get,
                rewarded,
                off,
            } => Taken {
                lines: buy_get(lines, |l| self.applies_to(l), (*buy, *get), rewarded, *off),
                shipping: 0,
            },
            Benefit::FreeShipping => Taken {
                lines: vec![0; lines.len()],
                shipping,
            },
        };
        (taken.total() > 0).then_some(taken)
    }
}

/// Buy `buy`, get `get`: the bought units are the dearest units of the lines `counts`, the
/// rewarded ones the cheapest units of `rewarded` not counted as bought; groups are made while
/// both are left. Off each rewarded unit: its price × `off` per million, rounded.
fn buy_get(
    lines: &[Line],
    counts: impl Fn(&Line) -> bool,
    (buy, get): (u32, u32),
    rewarded: &[Sku],
    off: i128,
) -> Vec<Cents> {
    let mut discounts = vec![0; lines.len()];
    if buy == 0 || get == 0 {
        return discounts;
    }
    // Units left of each line, by (price, SKU): the lines come sorted by SKU.
    let mut left: Vec<u32> = lines.iter().map(|l| l.quantity).collect();
    let mut dearest: Vec<usize> = (0..lines.len()).filter(|i| counts(&lines[*i])).collect();
    dearest.sort_by(|a, b| {
        lines[*b]
            .unit_price
            .cmp(&lines[*a].unit_price)
            .then(a.cmp(b))
    });
    let mut cheapest: Vec<usize> = (0..lines.len())
        .filter(|i| rewarded.contains(&lines[*i].sku))
        .collect();
    cheapest.sort_by(|a, b| {
        lines[*a]
            .unit_price
            .cmp(&lines[*b].unit_price)
            .then(a.cmp(b))
    });
    let mut rewarded_units: BTreeMap<usize, u32> = BTreeMap::new();
    loop {
        // Take `buy` of the dearest, then `get` of the cheapest that remain.
        let mut trial = left.clone();
        if !take_units(&mut trial, &dearest, buy) {
            break;
        }
        let mut chosen = Vec::new();
        for &i in &cheapest {
            while trial[i] > 0 && u32::try_from(chosen.len()).unwrap_or(u32::MAX) < get {
                trial[i] -= 1;
                chosen.push(i);
            }
        }
        if u32::try_from(chosen.len()).unwrap_or(0) < get {
            break;
        }
        left = trial;
        for i in chosen {
            *rewarded_units.entry(i).or_default() += 1;
        }
    }
    for (i, units) in rewarded_units {
        discounts[i] = scale(lines[i].unit_price, off, 1_000_000) * Cents::from(units);
    }
    discounts
}

/// Takes `n` units from `left` along `order`; false when there are not that many.
fn take_units(left: &mut [u32], order: &[usize], mut n: u32) -> bool {
    for &i in order {
        let taken = left[i].min(n);
        left[i] -= taken;
        n -= taken;
        if n == 0 {
            return true;
        }
    }
    false
}
