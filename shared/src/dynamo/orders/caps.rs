//! The customer's count of what they hold open, in an order's own transaction: their places
//! under `MAX_OPEN_ORDERS` and (a checkout's) each product's units under `MAX_HELD_QUANTITY`,
//! taken when an order is placed and given back when it leaves the open statuses.

use aws_sdk_dynamodb::types::builders::UpdateBuilder;

use crate::domain::ids::{CustomerId, Sku};
use crate::domain::order::{LineItem, OrderDetails};
use crate::dynamo::codec::Item;
use crate::dynamo::entities::open_order_count;
use crate::dynamo::update::Change;
use crate::{AppError, Store};

use super::PlaceOrderError;

/// What an order leaving the open statuses gives back to its customer's count
/// ([`Store::release_holding`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Release {
    /// Its place under `MAX_OPEN_ORDERS`.
    pub place: bool,
    /// Its lines' units under `MAX_HELD_QUANTITY` (a checkout's).
    pub held: bool,
}

/// Why the customer's count refused an order, from the count as it stands: their places all
/// taken, or too many units of some products held; neither, and its map of held units came
/// (or went) since it was read: worth another try.
pub(super) fn why_not_counted(
    count: &Item,
    lines: &[LineItem],
    (max_open, max_held): (Option<u32>, Option<u32>),
) -> PlaceOrderError {
    if let Some(max) = max_open
        && open_order_count::COUNT.get(count).unwrap_or(0) >= max
    {
        return PlaceOrderError::TooManyOpen(max);
    }
    if let Some(max) = max_held {
        let over: Vec<Sku> = lines
            .iter()
            .filter(|line| {
                open_order_count::held_units(count, &line.sku) + u64::from(line.quantity)
                    > u64::from(max)
            })
            .map(|line| line.sku.clone())
            .collect();
        if !over.is_empty() {
            return PlaceOrderError::TooMuchHeld(over, max);
        }
    }
    PlaceOrderError::Contended
}

/// `count` with each line's units added to what the customer holds of its product, on the
/// condition that none goes past `max`: the map set whole by the first checkout counted
/// (`counts_held` false, and only if it is still absent), its entries added to after.
fn held_counted(count: Change, lines: &[LineItem], counts_held: bool, max: u32) -> Change {
    use open_order_count::{HELD, UNITS};
    if !counts_held {
        return count
            .set(&HELD, &open_order_count::held_map(lines))
            .condition("attribute_not_exists(#held)")
            .returning_old_on_failure();
    }
    let count = count.condition("attribute_exists(#held)");
    let counted = lines.iter().enumerate().fold(count, |count, (n, line)| {
        let entry = Change::entry(&HELD, n);
        count
            .add_to_entry(&HELD, line.sku.as_str(), i64::from(line.quantity))
            .condition(format!(
                "attribute_not_exists({entry}) OR {entry} <= :room_{n}"
            ))
            .value_named(format!(":room_{n}"), &UNITS, &(max - line.quantity))
    });
    counted.returning_old_on_failure()
}

/// `count` with each line's units taken back from what the customer holds of its product, on
/// the condition that each entry holds them (an order counted before units were: it fails, and
/// the caller gives back the place alone).
fn held_released(count: Change, lines: &[LineItem]) -> Change {
    use open_order_count::{HELD, UNITS};
    lines.iter().enumerate().fold(count, |count, (n, line)| {
        let entry = Change::entry(&HELD, n);
        count
            .add_to_entry(&HELD, line.sku.as_str(), -i64::from(line.quantity))
            .condition(format!("{entry} >= :units_{n}"))
            .value_named(format!(":units_{n}"), &UNITS, &line.quantity)
    })
}

impl Store {
    /// The customer's count of what they hold, taken in the order's transaction (one action on
    /// one item): one more place, only while they hold fewer than `MAX_OPEN_ORDERS`; and, for a
    /// checkout (`counts_held`: whether the count has its map yet), each line's units, only
    /// while that keeps the product's units held within `MAX_HELD_QUANTITY`. Racing checkouts
    /// cannot pass either cap together. None: no cap applies.
    pub(super) fn take_holding(
        &self,
        placed: &OrderDetails,
        counts_held: Option<bool>,
    ) -> Result<Option<Change>, PlaceOrderError> {
        let customer = &placed.order.customer_id;
        let count = self.max_open_orders.map(|max| {
            self.count_change(customer)
                .add(&open_order_count::COUNT_CHANGE, &1)
                .condition("attribute_not_exists(#placedCount) OR #placedCount < :max")
                .value(":max", &open_order_count::COUNT, &max)
                .returning_old_on_failure()
        });
        let (Some(max), Some(counts_held)) = (self.max_held_quantity, counts_held) else {
            return Ok(count);
        };
        let over: Vec<Sku> = (placed.items.iter())
            .filter(|line| line.quantity > max)
            .map(|line| line.sku.clone())
            .collect();
        if !over.is_empty() {
            return Err(PlaceOrderError::TooMuchHeld(over, max));
        }
        let count = count.unwrap_or_else(|| self.count_change(customer));
        Ok(Some(held_counted(count, &placed.items, counts_held, max)))
    }

    /// An update of `customer`'s count, doing nothing yet.
    fn count_change(&self, customer: &CustomerId) -> Change {
        open_order_count::COUNT_UPDATE.on(&self.table, open_order_count::key(customer))
    }

    /// What `details` leaving the open statuses gives back to its customer's count, each part
    /// only where it was counted (never below zero): its place, and a checkout's units of each
    /// line. None: nothing to give back.
    pub(super) fn release_holding(
        &self,
        details: &OrderDetails,
        release: Release,
    ) -> Result<Option<UpdateBuilder>, AppError> {
        let customer = &details.order.customer_id;
        let mut count = release.place.then(|| {
            self.count_change(customer)
                .add(&open_order_count::COUNT_CHANGE, &-1)
                .condition("#placedCount > :zero")
                .value(":zero", &open_order_count::COUNT, &0)
        });
        if release.held {
            let count_or_new = count.unwrap_or_else(|| self.count_change(customer));
            count = Some(held_released(count_or_new, &details.items));
        }
        count.map(Change::build).transpose()
    }
}
