//! The two actions of a statistics transaction: a customer's profile update and an order's
//! share, each conditioned so that the statistics stay the sum of the shares.

use aws_sdk_dynamodb::types::builders::{PutBuilder, UpdateBuilder};
use aws_sdk_dynamodb::types::{Put, ReturnValuesOnConditionCheckFailure, Update};

use crate::Store;
use crate::domain::ids::CustomerId;
use crate::domain::stats::{ShareChange, StatsDelta};
use crate::dynamo::entities::{counted_order, customer};
use crate::dynamo::stats::apply::{Completion, Group};

impl Store {
    /// The profile's part: every change's delta, onto statistics that must be complete (the
    /// stream's changes) or while counting a partition. lastOrderAt only moves forward.
    pub(super) fn profile_update(&self, group: &Group) -> UpdateBuilder {
        let mut delta = StatsDelta::NONE;
        for change in &group.changes {
            delta.merge(&change.delta());
        }
        let mut set = Vec::new();
        let mut conditions = Vec::new();
        let mut update = Update::builder()
            .table_name(&self.table)
            .set_key(Some(customer::key(&group.customer)))
            .expression_attribute_names("#count", customer::ORDER_COUNT_CHANGE.name)
            .expression_attribute_names("#spent", customer::TOTAL_SPENT_CHANGE.name)
            .expression_attribute_values(
                ":orders",
                customer::ORDER_COUNT_CHANGE.value(&delta.orders),
            )
            .expression_attribute_values(":spent", customer::TOTAL_SPENT_CHANGE.value(&delta.spent))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        if let Some(at) = delta.last_order_at.filter(|_| group.set_last) {
            set.push("#last = :at");
            conditions.push("(attribute_not_exists(#last) OR #last <= :at)");
            update = update
                .expression_attribute_names("#last", customer::LAST_ORDER_AT.name)
                .expression_attribute_values(":at", customer::LAST_ORDER_AT.value(&at));
        }
        match group.completion {
            Completion::Required => conditions.push("#complete = :yes"),
            Completion::Partial => {}
            Completion::Completes => set.push("#complete = :yes"),
        }
        if group.completion != Completion::Partial {
            update = update
                .expression_attribute_names("#complete", customer::STATS_COMPLETE.name)
                .expression_attribute_values(":yes", customer::STATS_COMPLETE.value(&true));
        }
        let mut expression = "ADD #count :orders, #spent :spent".to_owned();
        if !set.is_empty() {
            expression.push_str(" SET ");
            expression.push_str(&set.join(", "));
        }
        update = update.update_expression(expression);
        if !conditions.is_empty() {
            update = update.condition_expression(conditions.join(" AND "));
        }
        update
    }

    /// One order's part: its share (or, once removed, just its version) put on the condition
    /// that the stored share is the one the change starts from, under an older version.
    pub(super) fn share_write(&self, customer: &CustomerId, change: &ShareChange) -> PutBuilder {
        let put = Put::builder()
            .table_name(&self.table)
            .set_item(Some(counted_order::to_item(
                customer,
                &change.order_id,
                change.after.as_ref(),
                &change.version,
            )))
            .expression_attribute_names("#version", counted_order::VERSION.name)
            .expression_attribute_names("#share", counted_order::SPENT.name)
            .expression_attribute_values(":version", counted_order::VERSION.value(&change.version))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        match change.before {
            None => put.condition_expression(
                "attribute_not_exists(PK) OR (#version < :version AND attribute_not_exists(#share))",
            ),
            Some(before) => put
                .condition_expression("#version < :version AND #share = :before")
                .expression_attribute_values(":before", counted_order::SPENT.value(&before)),
        }
    }
}
