//! A promotion, `PROMOTIONS` / `PROMOTION#<promotionId>`: what it takes off, on which lines,
//! when, how often, and whether it combines; with the version each write moves on, so two
//! writes of one promotion at once cannot leave its code claimed twice. Every promotion shares
//! one partition with the codes' claims (`promotion_code`), so the price of a cart reads them
//! all in one Query ([`crate::domain::promotions::MAX_PROMOTIONS`] keep it inside a page).

use crate::domain::ids::{CategoryId, PromotionId, Sku};
use crate::domain::money::{Decimal, Money};
use crate::domain::promotions::{PromotionCode, PromotionRule, PromotionType};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, SK, primary_key};
use crate::dynamo::keys::{self, Entity, MalformedKey, PROMOTION_PREFIX, PROMOTIONS_PK, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::PutSpec;

record! {
    /// What a promotion's item stores of it.
    pub Record stores PromotionRule beside (promotion_id: PromotionId) {
        /// The code customers give (absent: automatic).
        code: PromotionCode = CODE "code", optional, store;
        /// What it takes off.
        kind: PromotionType = KIND "type", required, store;
        /// A percentage's percent, or a fixed amount.
        value: Decimal = VALUE "value", optional, store;
        /// Buy X get Y: the SKUs counted as bought.
        buy_skus: Vec<Sku> = BUY_SKUS "buySkus", empty, store;
        /// Buy X get Y: units bought per reward.
        buy_quantity: u32 = BUY_QUANTITY "buyQuantity", default, store;
        /// Buy X get Y: the SKUs rewarded.
        get_skus: Vec<Sku> = GET_SKUS "getSkus", empty, store;
        /// Buy X get Y: units rewarded each time.
        get_quantity: u32 = GET_QUANTITY "getQuantity", default, store;
        /// Buy X get Y: the percentage off a rewarded unit.
        percent_off: Decimal = PERCENT_OFF "percentOff", optional, store;
        /// The least subtotal.
        min_subtotal: Money = MIN_SUBTOTAL "minSubtotal", optional, store;
        /// The SKUs it applies to.
        skus: Vec<Sku> = SKUS "skus", empty, store;
        /// The categories it applies to.
        categories: Vec<CategoryId> = CATEGORIES "categories", empty, store;
        /// From when.
        starts_at: Timestamp = STARTS_AT "startsAt", optional, store;
        /// Until when.
        ends_at: Timestamp = ENDS_AT "endsAt", optional, store;
        /// Uses in all.
        usage_limit: u32 = USAGE_LIMIT "usageLimit", optional, store;
        /// Uses per customer.
        per_customer_limit: u32 = PER_CUSTOMER_LIMIT "perCustomerLimit", optional, store;
        /// Whether it combines.
        combinable: bool = COMBINABLE "combinable", default, store;
    }
}

/// Moved on by each write; the write's condition holds it to the one read.
pub const VERSION: Attr<u64> = Attr::new("version");

/// What staff's write puts: the promotion whole, its version moved on.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::Promotion,
    attributes: &[
        keys::PK,
        keys::SK,
        CODE.name,
        KIND.name,
        VALUE.name,
        BUY_SKUS.name,
        BUY_QUANTITY.name,
        GET_SKUS.name,
        GET_QUANTITY.name,
        PERCENT_OFF.name,
        MIN_SUBTOTAL.name,
        SKUS.name,
        CATEGORIES.name,
        STARTS_AT.name,
        ENDS_AT.name,
        USAGE_LIMIT.name,
        PER_CUSTOMER_LIMIT.name,
        COMBINABLE.name,
        VERSION.name,
    ],
};

/// The partition every promotion is in.
pub const PK: &str = PROMOTIONS_PK;

/// Every promotion's sort key starts with this.
pub const SK_PREFIX: &str = PROMOTION_PREFIX;

/// The promotion's sort key.
pub fn sk(id: &PromotionId) -> String {
    format!("{PROMOTION_PREFIX}{id}")
}

/// The promotion a sort key names.
pub fn parse_sk(sk: &str) -> Result<PromotionId, MalformedKey> {
    sk.strip_prefix(PROMOTION_PREFIX)
        .and_then(|raw| PromotionId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// The promotion's key.
pub fn key(id: &PromotionId) -> Item {
    primary_key(PK.to_owned(), sk(id))
}

/// The promotion's item at `version`.
pub fn to_item(rule: &PromotionRule, version: u64) -> Item {
    let mut item = key(&rule.promotion_id);
    Record::write(&mut item, rule);
    VERSION.put(&mut item, &version);
    item
}

/// The promotion an item holds, and its version.
pub fn from_item(mut item: Item) -> Result<(PromotionRule, u64), BadItem> {
    let id = parse_sk(&SK.take(&mut item)?)?;
    let version = VERSION.take_optional(&mut item)?.unwrap_or(0);
    Ok((Record::read(&mut item, id)?, version))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::promotions::PromotionBody;
    use crate::dynamo::entities::test_support::{pairs, shape};

    #[test]
    fn a_promotion_is_kept_in_the_promotions_partition_and_reads_back() {
        let body: PromotionBody = serde_json::from_value(serde_json::json!({
            "code": "save10", "type": "buy-x-get-y",
            "buy": {"skus": ["sku-1"], "quantity": 2}, "get": {"skus": ["sku-2"], "quantity": 1, "percentOff": "50"},
            "conditions": {"minSubtotal": "20.00", "categories": ["kitchen"]},
            "endsAt": "2027-01-01T00:00:00Z", "usageLimit": 3, "combinable": true,
        }))
        .expect("shape");
        let rule = body
            .check(PromotionId::parse("bogo").expect("id"))
            .expect("valid");
        let item = to_item(&rule, 4);
        let keys: Vec<_> = shape(&item)
            .into_iter()
            .filter(|(name, _)| ["PK", "SK", "code", "type", "version"].contains(&name.as_str()))
            .collect();
        assert_eq!(
            keys,
            pairs(&[
                ("PK", "S PROMOTIONS"),
                ("SK", "S PROMOTION#bogo"),
                ("code", "S SAVE10"),
                ("type", "S buy-x-get-y"),
                ("version", "N 4"),
            ])
        );
        assert_eq!(
            Entity::of("PROMOTIONS", "PROMOTION#bogo"),
            Some(Entity::Promotion)
        );
        assert_eq!(from_item(item).expect("reads"), (rule, 4));
    }
}
