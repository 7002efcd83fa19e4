//! The two actions of a statistics transaction: a customer's profile update and an order's
//! share, each conditioned so that the statistics stay the sum of the shares.

use aws_sdk_dynamodb::types::builders::{PutBuilder, UpdateBuilder};

use crate::domain::ids::CustomerId;
use crate::domain::stats::{ShareChange, StatsDelta};
use crate::dynamo::entities::{counted_order, customer};
use crate::dynamo::stats::apply::{Completion, Group};
use crate::{AppError, Store};

impl Store {
    /// The profile's part: every change's delta, onto statistics that must be complete (the
    /// stream's changes) or while counting a partition. lastOrderAt only moves forward.
    pub(super) fn profile_update(&self, group: &Group) -> Result<UpdateBuilder, AppError> {
        let mut delta = StatsDelta::NONE;
        for change in &group.changes {
            delta.merge(&change.delta());
        }
        let mut update = customer::STATS_UPDATE
            .on(&self.table, customer::key(&group.customer))
            .add(&customer::ORDER_COUNT_CHANGE, &delta.orders)
            .add(&customer::TOTAL_SPENT_CHANGE, &delta.spent)
            .returning_old_on_failure();
        if let Some(at) = delta.last_order_at.filter(|_| group.set_last) {
            update = update
                .set(&customer::LAST_ORDER_AT, &at)
                .condition("attribute_not_exists(#lastOrderAt) OR #lastOrderAt <= :lastOrderAt");
        }
        update = match group.completion {
            Completion::Required => update.condition("#statsComplete = :yes").value(
                ":yes",
                &customer::STATS_COMPLETE,
                &true,
            ),
            Completion::Partial => update,
            Completion::Completes => update.set(&customer::STATS_COMPLETE, &true),
        };
        update.build()
    }

    /// One order's part: its share (or, once removed, just its version) put on the condition
    /// that the stored share is the one the change starts from, under an older version.
    pub(super) fn share_write(
        &self,
        customer: &CustomerId,
        change: &ShareChange,
    ) -> Result<PutBuilder, AppError> {
        let share = counted_order::Share {
            order_id: change.order_id.clone(),
            spent: change.after,
            version: change.version.clone(),
        };
        let item = counted_order::to_item(customer, &share);
        let put = (counted_order::PUT.put(&self.table, item))
            .value(":version", &counted_order::VERSION, &change.version)
            .returning_old_on_failure();
        match change.before {
            None => put.condition(
                "attribute_not_exists(PK) OR (#countedVersion < :version AND attribute_not_exists(#countedSpent))",
            ),
            Some(before) => put
                .condition("#countedVersion < :version AND #countedSpent = :before")
                .value(":before", &counted_order::SPENT, &before),
        }
        .build()
    }
}
