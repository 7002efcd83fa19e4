//! What a checked-out order's header keeps of its price beyond its total (`ORDER#<orderId>` /
//! `HEADER`): the subtotal, the discount, the shipping and its discount and tax, the tax, the
//! way it ships and where, and the promotions that applied, written with the hold in the
//! checkout's transaction. An order placed by staff, or checked out before carts were priced,
//! has none of them.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::domain::address::Address;
use crate::domain::ids::ShippingOptionId;
use crate::domain::money::Money;
use crate::domain::pricing::quote::{Charged, Figures, Limits, QuotedPromotion};
use crate::dynamo::codec::{Attr, BadItem, Item, Stored};

/// The lines' subtotals.
pub const SUBTOTAL: Attr<Money> = Attr::new("subtotal");
/// The lines' discounts.
pub const DISCOUNT: Attr<Money> = Attr::new("discount");
/// The shipping, after its discount.
pub const SHIPPING: Attr<Money> = Attr::new("shipping");
/// What the promotions took off the shipping's rate.
pub const SHIPPING_DISCOUNT: Attr<Money> = Attr::new("shippingDiscount");
/// The shipping's tax.
pub const SHIPPING_TAX: Attr<Money> = Attr::new("shippingTax");
/// The lines' taxes and the shipping's.
pub const TAX: Attr<Money> = Attr::new("tax");
/// Whether the prices included the tax.
pub const PRICES_INCLUDE_TAX: Attr<bool> = Attr::new("pricesIncludeTax");
/// The way it ships.
pub const SHIPPING_OPTION_ID: Attr<ShippingOptionId> = Attr::new("shippingOptionId");
/// Where it ships.
pub const SHIPPING_ADDRESS: Attr<Address> = Attr::new("shippingAddress");
/// The promotions that applied.
pub const PROMOTIONS: Attr<Vec<QuotedPromotion>> = Attr::new("promotions");

/// Writes `charged` into a header's item.
pub fn write(item: &mut Item, charged: &Charged) {
    SUBTOTAL.put(item, &charged.figures.subtotal);
    DISCOUNT.put(item, &charged.figures.discount);
    SHIPPING.put(item, &charged.figures.shipping);
    SHIPPING_DISCOUNT.put(item, &charged.figures.shipping_discount);
    SHIPPING_TAX.put(item, &charged.figures.shipping_tax);
    TAX.put(item, &charged.figures.tax);
    PRICES_INCLUDE_TAX.put(item, &charged.prices_include_tax);
    SHIPPING_OPTION_ID.put_optional(item, charged.shipping_option_id.as_ref());
    SHIPPING_ADDRESS.put_optional(item, charged.shipping_address.as_ref());
    if !charged.promotions.is_empty() {
        PROMOTIONS.put(item, &charged.promotions);
    }
}

/// The charges a header's item holds, if it holds any (taken out of it).
pub fn take(item: &mut Item) -> Result<Option<Charged>, BadItem> {
    let Some(subtotal) = SUBTOTAL.take_optional(item)? else {
        return Ok(None);
    };
    Ok(Some(Charged {
        figures: Figures {
            subtotal,
            discount: DISCOUNT.take(item)?,
            shipping: SHIPPING.take(item)?,
            shipping_discount: SHIPPING_DISCOUNT.take(item)?,
            shipping_tax: SHIPPING_TAX.take(item)?,
            tax: TAX.take(item)?,
        },
        prices_include_tax: PRICES_INCLUDE_TAX.take_optional(item)?.unwrap_or(false),
        shipping_option_id: SHIPPING_OPTION_ID.take_optional(item)?,
        shipping_address: SHIPPING_ADDRESS.take_optional(item)?,
        promotions: PROMOTIONS.take_optional(item)?.unwrap_or_default(),
    }))
}

const PROMOTION_ID: Attr<String> = Attr::new("promotionId");
const PROMOTION_CODE: Attr<String> = Attr::new("code");
const PROMOTION_DISCOUNT: Attr<Money> = Attr::new("discount");
const PROMOTION_USAGE_LIMIT: Attr<u32> = Attr::new("usageLimit");
const PROMOTION_PER_CUSTOMER_LIMIT: Attr<u32> = Attr::new("perCustomerLimit");

/// The promotions that applied: a list (`L`) of maps of `promotionId`, `code` (when a code
/// applied it), `discount` and the limits whose uses the order counted (`usageLimit`,
/// `perCustomerLimit`: what its hold's end gives back), in ID order.
impl Stored for Vec<QuotedPromotion> {
    const EXPECTED: &'static str = "a list of promotions";
    fn to_attribute(&self) -> AttributeValue {
        AttributeValue::L(
            self.iter()
                .map(|p| {
                    let mut map = Item::new();
                    PROMOTION_ID.put(&mut map, &p.promotion_id);
                    PROMOTION_CODE.put_optional(&mut map, p.code.as_ref());
                    PROMOTION_DISCOUNT.put(&mut map, &p.discount);
                    PROMOTION_USAGE_LIMIT.put_optional(&mut map, p.limits.in_all.as_ref());
                    PROMOTION_PER_CUSTOMER_LIMIT
                        .put_optional(&mut map, p.limits.per_customer.as_ref());
                    AttributeValue::M(map)
                })
                .collect(),
        )
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        let AttributeValue::L(list) = value else {
            return None;
        };
        list.into_iter()
            .map(|entry| {
                let AttributeValue::M(mut map) = entry else {
                    return None;
                };
                Some(QuotedPromotion {
                    promotion_id: PROMOTION_ID.take(&mut map).ok()?,
                    code: PROMOTION_CODE.take_optional(&mut map).ok()?,
                    discount: PROMOTION_DISCOUNT.take(&mut map).ok()?,
                    limits: Limits {
                        in_all: PROMOTION_USAGE_LIMIT.take_optional(&mut map).ok()?,
                        per_customer: PROMOTION_PER_CUSTOMER_LIMIT.take_optional(&mut map).ok()?,
                    },
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::address::AddressBody;

    #[test]
    fn the_charges_read_back_as_written_and_an_order_without_them_has_none() {
        let money = |raw| Money::parse_number(raw).expect("money");
        let body: AddressBody = serde_json::from_value(serde_json::json!({
            "name": "Ana", "line1": "1 Main St", "city": "Albany", "postalCode": "12207",
            "country": "US", "region": "NY",
        }))
        .expect("shape");
        let charged = Charged {
            figures: Figures {
                subtotal: money("43.95"),
                discount: money("4.40"),
                shipping: money("15.00"),
                shipping_discount: money("0"),
                shipping_tax: money("0"),
                tax: money("3.51"),
            },
            prices_include_tax: false,
            shipping_option_id: ShippingOptionId::parse("express").ok(),
            shipping_address: Some(body.check().expect("valid")),
            promotions: vec![QuotedPromotion {
                promotion_id: "save10".into(),
                code: Some("SAVE10".into()),
                discount: money("4.40"),
                limits: Limits {
                    in_all: Some(100),
                    per_customer: Some(1),
                },
            }],
        };
        let mut item = Item::new();
        write(&mut item, &charged);
        assert_eq!(item.len(), 10, "every part written");
        assert_eq!(take(&mut item).expect("reads"), Some(charged));
        assert!(item.is_empty(), "every attribute taken");
        assert_eq!(take(&mut Item::new()).expect("reads"), None);
    }
}
