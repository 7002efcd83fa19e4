//! The uses of the promotions an order was charged with: counted in the checkout's own
//! transaction, each under its limit, so a code limited to 100 uses is used 100 times however
//! many checkouts race for it; given back in the transaction that ends its hold unpaid.

use aws_sdk_dynamodb::types::builders::UpdateBuilder;

use crate::domain::ids::PromotionId;
use crate::domain::order::OrderDetails;
use crate::dynamo::codec::Item;
use crate::dynamo::entities::promotion_uses;
use crate::{AppError, Store};

/// The most counts of promotions' uses one checkout writes: what its transaction has room
/// for beside a full cart.
pub(super) const MAX_COUNTS: usize = 6;

/// Each count `order` keeps of a promotion's uses: its key and the limit it is under.
fn counts(order: &OrderDetails) -> Result<Vec<(Item, u32)>, AppError> {
    let Some(charged) = &order.charged else {
        return Ok(Vec::new());
    };
    let customer = &order.order.customer_id;
    let mut counts = Vec::new();
    for applied in &charged.promotions {
        let id = PromotionId::parse(&applied.promotion_id)?;
        let limited = [
            (applied.limits.in_all, promotion_uses::key(&id)),
            (
                applied.limits.per_customer,
                promotion_uses::customer_key(&id, customer),
            ),
        ];
        counts.extend(
            limited
                .into_iter()
                .filter_map(|(limit, key)| limit.map(|limit| (key, limit))),
        );
    }
    Ok(counts)
}

impl Store {
    /// The uses `placed` counts, each on the condition that its count is still under the
    /// promotion's limit; more than [`MAX_COUNTS`] is a 409.
    pub(super) fn count_uses(&self, placed: &OrderDetails) -> Result<Vec<UpdateBuilder>, AppError> {
        let counts = counts(placed)?;
        if counts.len() > MAX_COUNTS {
            return Err(AppError::CapReached(format!(
                "one order counts the uses of at most {MAX_COUNTS} promotion limits; check out with fewer codes"
            )));
        }
        counts
            .into_iter()
            .map(|(key, limit)| {
                promotion_uses::COUNT
                    .on(&self.table, key)
                    .add(&promotion_uses::USES_CHANGE, &1)
                    .condition("attribute_not_exists(#uses) OR #uses < :limit")
                    .value(":limit", &promotion_uses::USES, &limit)
                    .build()
            })
            .collect()
    }

    /// The uses `hold` counted, given back: its hold ended unpaid.
    pub(crate) fn give_back_uses(
        &self,
        hold: &OrderDetails,
    ) -> Result<Vec<UpdateBuilder>, AppError> {
        counts(hold)?
            .into_iter()
            .map(|(key, _)| {
                promotion_uses::COUNT
                    .on(&self.table, key)
                    .add(&promotion_uses::USES_CHANGE, &-1)
                    .build()
            })
            .collect()
    }
}
