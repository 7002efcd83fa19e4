//! How often a promotion was used, `PROMOTION#<promotionId>` / `USES` in all and
//! `USES#<customerId>` by one customer, `uses`: counted up in the checkout's own transaction,
//! on the condition that the count is still under the promotion's limit, so a code limited to
//! 100 uses is used 100 times however many checkouts race for it; counted down in the
//! transaction that ends a hold unpaid. Each promotion's counts have a partition of their own,
//! away from the promotions every cart reads.

use crate::domain::ids::{CustomerId, PromotionId};
use crate::dynamo::codec::{Attr, Item, primary_key};
use crate::dynamo::keys::{Entity, PROMOTION_PREFIX, USES_SK};
use crate::dynamo::update::UpdateSpec;

/// How many orders used it.
pub const USES: Attr<u32> = Attr::new("uses");
/// What a use adds (one, or minus one).
pub const USES_CHANGE: Attr<i64> = Attr::new("uses");

/// A use counted, or given back.
pub const COUNT: UpdateSpec = UpdateSpec {
    add: &[USES.name],
    checks: &[USES.name],
    ..UpdateSpec::of(Entity::PromotionUses)
};

/// The promotion's counts' partition.
pub fn pk(promotion: &PromotionId) -> String {
    format!("{PROMOTION_PREFIX}{promotion}")
}

/// The count of its uses in all.
pub fn key(promotion: &PromotionId) -> Item {
    primary_key(pk(promotion), USES_SK)
}

/// The count of `customer`'s uses of it.
pub fn customer_key(promotion: &PromotionId, customer: &CustomerId) -> Item {
    primary_key(pk(promotion), format!("{USES_SK}#{customer}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, shape};

    #[test]
    fn a_promotions_counts_share_its_own_partition() {
        let id = PromotionId::parse("save10").expect("id");
        let customer = CustomerId::parse("c1").expect("id");
        assert_eq!(
            shape(&key(&id)),
            pairs(&[("PK", "S PROMOTION#save10"), ("SK", "S USES")])
        );
        assert_eq!(
            shape(&customer_key(&id, &customer)),
            pairs(&[("PK", "S PROMOTION#save10"), ("SK", "S USES#c1")])
        );
        for sk in ["USES", "USES#c1"] {
            assert_eq!(
                Entity::of("PROMOTION#save10", sk),
                Some(Entity::PromotionUses)
            );
        }
    }
}
