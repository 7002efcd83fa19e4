//! A code's claim, `PROMOTIONS` / `CODE#<code>`: the one promotion a code names. Its key is the
//! code, so two promotions cannot take one code: the write that claims it is conditional on
//! the claim being absent or its own, in the same transaction as the promotion.

use crate::domain::ids::PromotionId;
use crate::domain::promotions::PromotionCode;
use crate::dynamo::codec::{Attr, BadItem, Item, primary_key};
use crate::dynamo::keys::{self, CODE_PREFIX, Entity, PROMOTIONS_PK};
use crate::dynamo::update::{DeleteSpec, PutSpec};

/// The promotion the code names.
pub const PROMOTION_ID: Attr<PromotionId> = Attr::new("promotionId");

/// What a promotion's write puts: the claim, on the condition it is absent or its own.
pub const CLAIM: PutSpec = PutSpec {
    entity: Entity::PromotionCode,
    attributes: &[keys::PK, keys::SK, PROMOTION_ID.name],
};
/// What a promotion that gives up its code deletes, on the condition the claim is its own.
pub const RELEASE: DeleteSpec = DeleteSpec {
    entity: Entity::PromotionCode,
    checks: &[PROMOTION_ID.name],
};

/// Every claim's sort key starts with this.
pub const SK_PREFIX: &str = CODE_PREFIX;

/// The claim's key.
pub fn key(code: &PromotionCode) -> Item {
    primary_key(PROMOTIONS_PK.to_owned(), format!("{CODE_PREFIX}{code}"))
}

/// `code`'s claim by `promotion`.
pub fn to_item(code: &PromotionCode, promotion: &PromotionId) -> Item {
    let mut item = key(code);
    PROMOTION_ID.put(&mut item, promotion);
    item
}

/// The promotion a claim names.
pub fn from_item(mut item: Item) -> Result<PromotionId, BadItem> {
    PROMOTION_ID.take(&mut item)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, shape};

    #[test]
    fn a_claim_is_keyed_by_its_code_and_names_its_promotion() {
        let code = PromotionCode::parse("save10").expect("code");
        let id = PromotionId::parse("p1").expect("id");
        let item = to_item(&code, &id);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S PROMOTIONS"),
                ("SK", "S CODE#SAVE10"),
                ("promotionId", "S p1"),
            ])
        );
        assert_eq!(
            Entity::of("PROMOTIONS", "CODE#SAVE10"),
            Some(Entity::PromotionCode)
        );
        assert_eq!(from_item(item).expect("reads"), id);
    }
}
