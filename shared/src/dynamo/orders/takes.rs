//! An order's takes of stock: each line's units from its variant's item, or, for a SKU split
//! over stock shards, from the shards [`StockLevels::takes`] plans (one action each).

use aws_sdk_dynamodb::types::builders::UpdateBuilder;

use crate::domain::order::LineItem;
use crate::domain::product::ProductStatus;
use crate::domain::stock_shards::{ShardIndex, StockLevels};
use crate::dynamo::entities::{stock_shard, variant};
use crate::dynamo::transaction::Transaction;
use crate::{AppError, Store};

use super::{OrderAction, PlaceOrderError};

impl Store {
    /// Each line's takes added to `transaction`, its buyer starting among a sharded SKU's
    /// shards where their read did; out of stock when a SKU's shards, as read, hold less than
    /// its line.
    pub(super) fn take_lines<'a>(
        &self,
        transaction: &mut Transaction<OrderAction<'a>>,
        lines: &'a [LineItem],
        levels: &StockLevels,
    ) -> Result<(), PlaceOrderError> {
        for line in lines {
            let needed = u64::from(line.quantity);
            let Some(takes) = levels.takes(&line.sku, needed) else {
                return Err(PlaceOrderError::OutOfStock(vec![line.sku.clone()]));
            };
            let sharded = levels.of(&line.sku).is_some();
            for take in takes {
                let (action, update) = match take.shard {
                    ShardIndex::VARIANT => (
                        OrderAction::TakeStock(line, sharded),
                        self.take_stock(line, take.units)?,
                    ),
                    shard => (
                        OrderAction::TakeShard(line),
                        self.take_from_shard(line, shard, take.units)?,
                    ),
                };
                transaction.update(action, update)?;
            }
        }
        Ok(())
    }

    /// A line's stock taken, if its variant is still for sale at the line's price and has
    /// enough stock (a SKU written before products has no status: it is for sale); the
    /// variant as it is when not.
    fn take_stock(&self, line: &LineItem, units: u64) -> Result<UpdateBuilder, AppError> {
        variant::TAKE_STOCK
            .on(&self.table, variant::key(&line.sku))
            .add(&variant::STOCK_CHANGE, &-(units as i64))
            .condition(
                "#price = :price AND #stock >= :needed \
                 AND (attribute_not_exists(#status) OR #status = :published)",
            )
            .value(":price", &variant::PRICE, &line.price)
            .value(":needed", &variant::STOCK, &units)
            .value(":published", &variant::STATUS, &ProductStatus::Published)
            .returning_old_on_failure()
            .build()
    }

    /// Units of a line taken from one of its SKU's stock shards, if the shard holds them and
    /// its copies of the variant's terms still say the line's price and for sale; the shard
    /// as it is when not.
    fn take_from_shard(
        &self,
        line: &LineItem,
        shard: ShardIndex,
        units: u64,
    ) -> Result<UpdateBuilder, AppError> {
        stock_shard::TAKE
            .on(&self.table, stock_shard::key(&line.sku, shard))
            .add(&stock_shard::STOCK_CHANGE, &-(units as i64))
            .condition("#price = :price AND #stock >= :needed AND #status = :published")
            .value(":price", &stock_shard::PRICE, &line.price)
            .value(":needed", &stock_shard::STOCK, &units)
            .value(
                ":published",
                &stock_shard::STATUS,
                &ProductStatus::Published,
            )
            .returning_old_on_failure()
            .build()
    }
}
