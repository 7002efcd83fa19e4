//! The price of a cart held to what a customer and an accountant would check by hand, and to
//! its invariants over generated carts: the order of lines and promotions does not matter, the
//! parts add up, nothing is negative.

use proptest::prelude::*;

use super::promotion::{Benefit, Line, Promotion};
use super::*;
use crate::domain::ids::{CategoryId, Sku};

fn sku(s: &str) -> Sku {
    Sku::parse(s).expect("sku")
}

fn line(s: &str, quantity: u32, unit_price: Cents) -> Line {
    Line {
        sku: sku(s),
        quantity,
        unit_price,
        categories: vec![CategoryId::parse("mugs").expect("id")],
    }
}

fn promotion(id: &str, benefit: Benefit) -> Promotion {
    Promotion {
        promotion_id: id.into(),
        code: None,
        benefit,
        min_subtotal: 0,
        skus: Vec::new(),
        categories: Vec::new(),
        starts_at: None,
        ends_at: None,
        combines: true,
    }
}

const NO_TAX: TaxRule = TaxRule {
    rate: 0,
    shipping_taxed: false,
    prices_include_tax: false,
};

#[test]
fn a_percentage_is_rounded_once_and_spread_exactly() {
    // 10 % of 3 × 3.33 = 9.99 is 0.999: 1.00 off, spread 34 + 33 + 33.
    let lines = [line("a", 1, 333), line("b", 1, 333), line("c", 1, 333)];
    let ten = promotion("ten", Benefit::Percentage(100_000));
    let priced = price(&lines, 0, NO_TAX, &[&ten]);
    let discounts: Vec<Cents> = priced.lines.iter().map(|l| l.discount).collect();
    assert_eq!(discounts, [34, 33, 33]);
    assert_eq!((priced.discount, priced.total), (100, 899));
}

#[test]
fn a_discount_never_passes_what_it_is_off() {
    let lines = [line("a", 1, 500), line("b", 2, 250)];
    let huge = promotion("huge", Benefit::Fixed(5_000));
    let priced = price(&lines, 400, NO_TAX, &[&huge]);
    assert_eq!(priced.discount, 1_000, "the whole subtotal, no more");
    assert_eq!(priced.total, 400, "the shipping is still paid");
    assert!(priced.lines.iter().all(|l| l.discount == l.subtotal));
}

#[test]
fn buy_two_get_one_rewards_the_cheapest_whatever_the_order() {
    let lines = [line("dear", 2, 1_000), line("cheap", 1, 400)];
    let b2g1 = promotion(
        "b2g1",
        Benefit::BuyGet {
            buy: 2,
            get: 1,
            rewarded: vec![sku("dear"), sku("cheap")],
            off: 1_000_000,
        },
    );
    let priced = price(&lines, 0, NO_TAX, &[&b2g1]);
    let cheap = priced
        .lines
        .iter()
        .find(|l| l.sku == sku("cheap"))
        .expect("line");
    assert_eq!((cheap.discount, priced.discount), (400, 400));
    let reversed = [lines[1].clone(), lines[0].clone()];
    assert_eq!(price(&reversed, 0, NO_TAX, &[&b2g1]), priced);
    // Two units only: no group.
    assert_eq!(
        price(&[line("dear", 2, 1_000)], 0, NO_TAX, &[&b2g1]).discount,
        0
    );
}

#[test]
fn the_best_of_combinable_ones_together_or_one_alone() {
    let lines = [line("a", 1, 10_000)];
    let five = promotion("five", Benefit::Percentage(50_000));
    let ten = promotion("ten", Benefit::Fixed(1_000));
    let mut solo = promotion("solo", Benefit::Percentage(120_000));
    solo.combines = false;
    // 5 % + 10.00 = 15.00 beats 12 % alone.
    let priced = price(&lines, 0, NO_TAX, &[&solo, &five, &ten]);
    assert_eq!(priced.discount, 1_500);
    let ids: Vec<&str> = priced
        .promotions
        .iter()
        .map(|a| a.promotion_id.as_str())
        .collect();
    assert_eq!(ids, ["five", "ten"]);
    solo.benefit = Benefit::Percentage(200_000);
    let priced = price(&lines, 0, NO_TAX, &[&five, &ten, &solo]);
    assert_eq!((priced.discount, priced.promotions.len()), (2_000, 1));
}

#[test]
fn a_minimum_subtotal_and_targets_decide_whether_it_applies() {
    let lines = [line("a", 1, 1_000), line("b", 1, 1_000)];
    let mut only_b = promotion("only-b", Benefit::Percentage(500_000));
    only_b.skus = vec![sku("b")];
    let priced = price(&lines, 0, NO_TAX, &[&only_b]);
    let off: Vec<Cents> = priced.lines.iter().map(|l| l.discount).collect();
    assert_eq!(off, [0, 500]);
    only_b.min_subtotal = 2_001;
    assert_eq!(price(&lines, 0, NO_TAX, &[&only_b]).discount, 0);
}

#[test]
fn free_shipping_and_tax_per_line() {
    let lines = [line("a", 1, 1_234), line("b", 3, 333)];
    let tax = TaxRule {
        rate: 200_000,
        shipping_taxed: true,
        prices_include_tax: false,
    };
    let priced = price(&lines, 500, tax, &[]);
    // 20 % of 12.34 is 2.468 → 2.47; of 9.99, 1.998 → 2.00; of 5.00, 1.00.
    let taxes: Vec<Cents> = priced.lines.iter().map(|l| l.tax).collect();
    assert_eq!((taxes, priced.shipping_tax), (vec![247, 200], 100));
    assert_eq!(priced.total, 1_234 + 999 + 500 + 547);
    let free = promotion("ship", Benefit::FreeShipping);
    let priced = price(&lines, 500, tax, &[&free]);
    assert_eq!((priced.shipping_discount, priced.shipping_tax), (500, 0));
    assert_eq!(priced.total, 1_234 + 999 + 447);
}

#[test]
fn prices_that_include_tax_show_its_part_and_total_as_they_are() {
    let lines = [line("a", 1, 1_200)];
    let tax = TaxRule {
        rate: 200_000,
        shipping_taxed: false,
        prices_include_tax: true,
    };
    let priced = price(&lines, 0, tax, &[]);
    // 12.00 with 20 % in it: 10.00 net, 2.00 tax.
    assert_eq!((priced.tax, priced.total), (200, 1_200));
}

fn arb_line() -> impl Strategy<Value = Line> {
    (0u8..12, 1u32..20, 1i64..50_000).prop_map(|(s, quantity, price)| Line {
        sku: sku(&format!("s{s}")),
        quantity,
        unit_price: price,
        categories: Vec::new(),
    })
}

fn arb_promotion() -> impl Strategy<Value = Promotion> {
    let benefit = prop_oneof![
        (0i128..=1_000_000).prop_map(Benefit::Percentage),
        (0i64..100_000).prop_map(Benefit::Fixed),
        (1u32..4, 1u32..3, 0i128..=1_000_000).prop_map(|(buy, get, off)| Benefit::BuyGet {
            buy,
            get,
            rewarded: (0..6).map(|s| sku(&format!("s{s}"))).collect(),
            off,
        }),
        Just(Benefit::FreeShipping),
    ];
    (0u8..8, benefit, any::<bool>(), 0i64..200_000).prop_map(|(id, benefit, combines, min)| {
        Promotion {
            combines,
            min_subtotal: min,
            ..promotion(&format!("p{id}"), benefit)
        }
    })
}

fn unique_skus(lines: Vec<Line>) -> Vec<Line> {
    let mut seen = BTreeSet::new();
    lines
        .into_iter()
        .filter(|l| seen.insert(l.sku.clone()))
        .collect()
}

/// Promotions are the store's items: one per ID.
fn unique_ids(promotions: Vec<Promotion>) -> Vec<Promotion> {
    let mut seen = BTreeSet::new();
    promotions
        .into_iter()
        .filter(|p| seen.insert(p.promotion_id.clone()))
        .collect()
}

proptest! {
    #[test]
    fn the_order_of_lines_and_promotions_does_not_matter_and_every_part_adds_up(
        lines in proptest::collection::vec(arb_line(), 1..10).prop_map(unique_skus),
        promotions in proptest::collection::vec(arb_promotion(), 0..5).prop_map(unique_ids),
        shipping in 0i64..5_000,
        rate in 0i128..=300_000,
        (shipping_taxed, prices_include_tax) in (any::<bool>(), any::<bool>()),
        rotate in 0usize..10,
    ) {
        let tax = TaxRule { rate, shipping_taxed, prices_include_tax };
        let given: Vec<&Promotion> = promotions.iter().collect();
        let priced = price(&lines, shipping, tax, &given);
        let mut turned = lines.clone();
        turned.rotate_left(rotate % lines.len());
        turned.reverse();
        let mut others = given.clone();
        others.reverse();
        prop_assert_eq!(&price(&turned, shipping, tax, &others), &priced);

        let sum = |f: fn(&PricedLine) -> Cents| priced.lines.iter().map(f).sum::<Cents>();
        prop_assert_eq!(sum(|l| l.subtotal), priced.subtotal);
        prop_assert_eq!(sum(|l| l.discount), priced.discount);
        prop_assert_eq!(sum(|l| l.tax) + priced.shipping_tax, priced.tax);
        prop_assert_eq!(
            priced.promotions.iter().map(|a| a.amount).sum::<Cents>(),
            priced.discount + priced.shipping_discount
        );
        for l in &priced.lines {
            prop_assert!(0 <= l.discount && l.discount <= l.subtotal);
            prop_assert!(l.tax >= 0);
        }
        prop_assert!(0 <= priced.shipping_discount && priced.shipping_discount <= shipping);
        let net = priced.subtotal - priced.discount + shipping - priced.shipping_discount;
        let expected = if prices_include_tax { net } else { net + priced.tax };
        prop_assert_eq!(priced.total, expected);
        prop_assert!(priced.total >= 0);
    }
}
