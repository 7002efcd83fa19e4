//! What goes back is what was paid: a refund of lines, a cancellation and a return each give
//! back the units' share of what was paid for their line (price less discount, plus tax), the
//! shares of all a line's units add up to exactly what was paid for it, and cancelling
//! everything before it ships gives the shipping back too.

use proptest::prelude::*;

use crate::domain::currency::Currency;
use crate::domain::money::Money;
use crate::domain::order::{LineQuantity, OrderDetails};
use crate::domain::pricing::quote::Charged;
use crate::domain::refund::RefundAsk;
use crate::domain::status::OrderStatus;
use crate::domain::test_support;

fn money(raw: &str) -> Money {
    Money::parse_number(raw).expect("money")
}

fn quantity(sku: &str, quantity: u32) -> LineQuantity {
    LineQuantity {
        sku: test_support::sku(sku),
        quantity,
    }
}

/// The sample cart checked out with SAVE10, express to New York (docs/pricing.md): a mug at
/// 19.95 (2.00 off, 1.59 tax), two candles at 12.00 (2.40 off, 1.92 tax), express 15.00,
/// untaxed: 58.06 paid.
fn charged_order() -> OrderDetails {
    let mut order = test_support::order(
        OrderStatus::Placed,
        &[("sku-1", 1, "19.95"), ("sku-3", 2, "12.00")],
    );
    for (line, (discount, tax)) in order
        .items
        .iter_mut()
        .zip([("2.00", "1.59"), ("2.40", "1.92")])
    {
        line.discount = Some(money(discount));
        line.tax = Some(money(tax));
    }
    order.charged = Some(Box::new(
        serde_json::from_value::<Charged>(serde_json::json!({
            "subtotal": "43.95", "discount": "4.40", "shipping": "15.00",
            "shippingDiscount": "0.00", "shippingTax": "0.00", "tax": "3.51",
            "pricesIncludeTax": false,
        }))
        .expect("charged"),
    ));
    test_support::paid(order, 5806)
}

#[test]
fn a_refund_of_lines_gives_back_what_was_paid_for_them_never_the_list_price() {
    let order = charged_order();
    let usd = Currency::default();
    let one_candle = RefundAsk::Lines {
        lines: vec![quantity("sku-3", 1)],
        restock: false,
    };
    // A candle: 12.00 less half of 2.40, plus half of 1.92: 11.76, not 12.00.
    assert_eq!(one_candle.plan(&order, &usd).expect("plan").amount, 1176);
    let mug = RefundAsk::Lines {
        lines: vec![quantity("sku-1", 1)],
        restock: false,
    };
    assert_eq!(
        mug.plan(&order, &usd).expect("plan").amount,
        1995 - 200 + 159
    );
}

#[test]
fn cancelling_everything_before_it_ships_gives_back_all_that_was_paid_shipping_included() {
    let order = charged_order();
    let usd = Currency::default();
    let all = [quantity("sku-1", 1), quantity("sku-3", 2)];
    let plan = order.plan_cancellation(&all, &usd).expect("plan");
    assert_eq!(
        plan.amount, 5806,
        "the lines' 43.06 and the shipping's 15.00"
    );
    let some = order
        .plan_cancellation(&[quantity("sku-3", 2)], &usd)
        .expect("plan");
    assert_eq!(some.amount, 2352, "the candles alone: no shipping back");
}

proptest! {
    /// Whatever the line and however its units go back, one refund at a time, each gives back
    /// something between nothing and what is left, and all of them exactly what was paid.
    #[test]
    fn the_shares_of_a_lines_units_add_up_to_exactly_what_was_paid(
        price in 1i64..100_000,
        units in 1u32..40,
        discount_per_mille in 0i64..=1000,
        tax_per_mille in 0i64..300,
        steps in proptest::collection::vec(1u32..5, 1..40),
    ) {
        let usd = Currency::default();
        let cents = |c: i64| Money::new(crate::domain::money::Decimal::new(c, 2));
        let mut order = test_support::order(OrderStatus::Placed, &[("sku-1", units, "1.00")]);
        let subtotal = price * i64::from(units);
        let discount = subtotal * discount_per_mille / 1000;
        let tax = (subtotal - discount) * tax_per_mille / 1000;
        order.items[0].price = cents(price);
        order.items[0].discount = Some(cents(discount));
        order.items[0].tax = Some(cents(tax));
        let paid = order.paid_for_line(&usd, &order.items[0]).expect("paid");
        prop_assert_eq!(paid, subtotal - discount + tax);
        let (mut back, mut given) = (0u32, 0i64);
        for step in steps {
            let step = step.min(units - back);
            if step == 0 {
                break;
            }
            let part = order
                .plus_units(0, &usd, &order.items[0], (back, step))
                .expect("part");
            prop_assert!(part >= 0 && part <= paid - given, "{} of {}", part, paid - given);
            given += part;
            back += step;
        }
        // The rest of the line, if any is left, in one last refund.
        given += order
            .plus_units(0, &usd, &order.items[0], (back, units - back))
            .expect("rest");
        prop_assert_eq!(given, paid);
    }
}

proptest! {
    /// What each line was paid and what the shipping was paid add up to the order's total, for
    /// any cart priced with any percentage off, shipping and tax, included or not: the refunds
    /// of every line (each adding up to its line's) and of the shipping give back exactly what
    /// was paid for the order.
    #[test]
    fn an_orders_lines_and_shipping_were_paid_its_total(
        lines in proptest::collection::vec((1i64..50_000, 1u32..6), 1..6),
        percent_off in 0i128..=1_000_000,
        shipping in 0i64..3_000,
        rate in 0i128..300_000,
        shipping_taxed in any::<bool>(),
        prices_include_tax in any::<bool>(),
    ) {
        use crate::domain::pricing::cents::cents;
        use crate::domain::pricing::promotion::{Benefit, Line, Promotion};
        use crate::domain::pricing::quote::{Destination, Limits, Quote};
        use crate::domain::pricing::{TaxRule, price};
        let cart: Vec<Line> = lines
            .iter()
            .enumerate()
            .map(|(i, (unit_price, quantity))| Line {
                sku: test_support::sku(&format!("sku-{i}")),
                quantity: *quantity,
                unit_price: *unit_price,
                categories: Vec::new(),
            })
            .collect();
        let off = Promotion {
            promotion_id: "off".into(),
            code: None,
            benefit: Benefit::Percentage(percent_off),
            min_subtotal: 0,
            skus: Vec::new(),
            categories: Vec::new(),
            starts_at: None,
            ends_at: None,
            combines: true,
        };
        let tax = TaxRule { rate, shipping_taxed, prices_include_tax };
        let breakdown = price(&cart, shipping, tax, &[&off]);
        let none = |_: &str| Limits::default();
        let quote = Quote::of(&breakdown, &[&off], (tax, &none), Destination::default());
        let items: Vec<(String, u32, String)> = breakdown
            .lines
            .iter()
            .map(|l| (l.sku.to_string(), l.quantity, crate::domain::pricing::cents::money(l.unit_price).to_string()))
            .collect();
        let borrowed: Vec<(&str, u32, &str)> =
            items.iter().map(|(s, q, p)| (s.as_str(), *q, p.as_str())).collect();
        let order = test_support::order(OrderStatus::Placed, &borrowed).charged(&quote, None);
        let usd = Currency::default();
        let lines_paid: i64 = order
            .items
            .iter()
            .map(|line| order.paid_for_line(&usd, line).expect("line"))
            .sum();
        let shipping_paid = order.paid_for_shipping(&usd).expect("shipping");
        prop_assert_eq!(lines_paid + shipping_paid, cents(order.order.total).expect("total"));
    }
}
