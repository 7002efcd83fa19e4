use serde_json::json;

use super::*;
use crate::domain::pricing::promotion::Line;

fn check(body: serde_json::Value) -> Result<PromotionRule, AppError> {
    let body: PromotionBody =
        serde_json::from_value(body).map_err(|e| AppError::invalid(e.to_string()))?;
    body.check(PromotionId::parse("promo").expect("id"))
}

fn line(sku: &str, quantity: u32, unit_price: i64) -> Line {
    Line {
        sku: Sku::parse(sku).expect("sku"),
        quantity,
        unit_price,
        categories: Vec::new(),
    }
}

#[test]
fn a_code_is_kept_in_capitals_and_answered_as_written() {
    let rule = check(json!({
        "code": "save10", "type": "percentage", "value": "10",
        "conditions": {"minSubtotal": "50.00", "skus": ["sku-2", "sku-1"]},
        "startsAt": "2026-12-01T00:00:00Z", "endsAt": "2027-01-01T00:00:00Z",
        "usageLimit": 100, "perCustomerLimit": 1, "combinable": true,
    }))
    .expect("valid");
    assert_eq!(
        rule.code.as_ref().map(PromotionCode::as_str),
        Some("SAVE10")
    );
    assert_eq!(
        serde_json::to_value(&rule).expect("json"),
        json!({
            "promotionId": "promo", "code": "SAVE10", "type": "percentage", "value": "10",
            "conditions": {"minSubtotal": "50.00", "skus": ["sku-1", "sku-2"], "categories": []},
            "startsAt": "2026-12-01T00:00:00Z", "endsAt": "2027-01-01T00:00:00Z",
            "usageLimit": 100, "perCustomerLimit": 1, "combinable": true,
        })
    );
    let priced = rule.pricing();
    assert_eq!(priced.benefit, Benefit::Percentage(100_000));
    assert_eq!(priced.min_subtotal, 5_000);
    assert!(priced.combines);
}

#[test]
fn each_type_reads_as_the_pricing_applies_it() {
    let fixed = check(json!({"code": null, "type": "fixed", "value": "5"})).expect("fixed");
    assert_eq!(fixed.code, None, "no code: automatic");
    assert_eq!(fixed.pricing().benefit, Benefit::Fixed(500));
    assert_eq!(serde_json::to_value(&fixed).expect("json")["value"], "5.00");
    let free = check(json!({"type": "free-shipping"})).expect("free shipping");
    assert_eq!(free.pricing().benefit, Benefit::FreeShipping);
    let bogo = check(json!({
        "type": "buy-x-get-y",
        "buy": {"skus": ["sku-1"], "quantity": 2},
        "get": {"skus": ["sku-1"], "quantity": 1},
    }))
    .expect("buy two get one");
    let priced = bogo.pricing();
    assert_eq!(
        priced.benefit,
        Benefit::BuyGet {
            buy: 2,
            get: 1,
            rewarded: vec![Sku::parse("sku-1").expect("sku")],
            off: 1_000_000,
        }
    );
    // Three mugs at 19.95: two bought, the third free.
    let taken = priced.take(&[line("sku-1", 3, 1_995)], 0).expect("applies");
    assert_eq!(taken.lines, [1_995]);
    let answer = serde_json::to_value(&bogo).expect("json");
    assert_eq!(
        (answer["get"]["percentOff"].as_str(), answer.get("value")),
        (Some("100"), None)
    );
}

#[test]
fn a_broken_promotion_is_refused() {
    for bad in [
        json!({"type": "half-off", "value": "50"}),
        json!({"type": "percentage"}),
        json!({"type": "percentage", "value": "0"}),
        json!({"type": "percentage", "value": "100.5"}),
        json!({"type": "percentage", "value": "12.34567"}),
        json!({"type": "percentage", "value": "1e1"}),
        json!({"type": "fixed", "value": "0.001"}),
        json!({"type": "fixed", "value": "-5"}),
        json!({"type": "free-shipping", "value": "5"}),
        json!({"type": "percentage", "value": "10", "buy": {"skus": ["a"], "quantity": 1}}),
        json!({"type": "buy-x-get-y", "buy": {"skus": [], "quantity": 1}, "get": {"skus": ["a"], "quantity": 1}}),
        json!({"type": "buy-x-get-y", "buy": {"skus": ["a"], "quantity": 0}, "get": {"skus": ["a"], "quantity": 1}}),
        json!({"type": "buy-x-get-y", "buy": {"skus": ["a"], "quantity": 1}, "get": {"skus": ["a"], "quantity": 1, "percentOff": "0"}}),
        json!({"type": "buy-x-get-y", "buy": {"skus": ["a"], "quantity": 1}, "get": {"skus": ["a"], "quantity": 1}, "conditions": {"skus": ["a"]}}),
        json!({"type": "percentage", "value": "10", "code": "ab"}),
        json!({"type": "percentage", "value": "10", "code": "SAVE 10"}),
        json!({"type": "percentage", "value": "10", "usageLimit": 0}),
        json!({"type": "percentage", "value": "10", "startsAt": "2027-01-01T00:00:00Z", "endsAt": "2026-01-01T00:00:00Z"}),
        json!({"type": "percentage", "value": "10", "conditions": {"minSubtotal": null}}),
        json!({"type": "percentage", "value": "10", "conditions": {"categories": ["bad#id"]}}),
        json!({"type": "percentage", "value": "10", "extra": true}),
    ] {
        assert!(check(bad.clone()).is_err(), "{bad}");
    }
}
