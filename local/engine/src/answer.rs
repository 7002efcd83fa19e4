//! What a DynamoDB answer holds, whatever its operation (the items it returned, the capacity it
//! consumed, whether it wrote), and the request edit that makes it report capacity: the one
//! home of both, for the capacity meter and make dev's journal alike.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemOutput;
use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
use aws_sdk_dynamodb::operation::put_item::PutItemOutput;
use aws_sdk_dynamodb::operation::query::QueryOutput;
use aws_sdk_dynamodb::operation::scan::ScanOutput;
use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsOutput;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsOutput;
use aws_sdk_dynamodb::operation::update_item::UpdateItemOutput;
use aws_sdk_dynamodb::types::{AttributeValue, ConsumedCapacity};
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::context::Output;

type Item = HashMap<String, AttributeValue>;

/// Adds `ReturnConsumedCapacity: INDEXES` to a request that does not say what it wants back.
pub(crate) fn ask_for_capacity(
    request: &mut aws_smithy_runtime_api::client::orchestrator::HttpRequest,
) -> Result<(), BoxError> {
    crate::edit_json_body(request, |fields| {
        fields
            .entry("ReturnConsumedCapacity")
            .or_insert_with(|| "INDEXES".into());
        true
    })
}

/// What one DynamoDB answer holds, whatever its operation.
pub(crate) struct Answered<'a> {
    pub(crate) write: bool,
    pub(crate) items: Vec<&'a Item>,
    pub(crate) capacity: Vec<&'a ConsumedCapacity>,
}

impl<'a> Answered<'a> {
    /// `None` for an operation that is neither a read nor a write of items.
    pub(crate) fn of(output: &'a Output) -> Option<Self> {
        let read = |items: Vec<&'a Item>, capacity: Vec<&'a ConsumedCapacity>| Answered {
            write: false,
            items,
            capacity,
        };
        let write = |capacity: Vec<&'a ConsumedCapacity>| Answered {
            write: true,
            items: Vec::new(),
            capacity,
        };
        Some(if let Some(out) = output.downcast_ref::<GetItemOutput>() {
            read(
                out.item().into_iter().collect(),
                out.consumed_capacity().into_iter().collect(),
            )
        } else if let Some(out) = output.downcast_ref::<QueryOutput>() {
            read(
                out.items().iter().collect(),
                out.consumed_capacity().into_iter().collect(),
            )
        } else if let Some(out) = output.downcast_ref::<ScanOutput>() {
            read(
                out.items().iter().collect(),
                out.consumed_capacity().into_iter().collect(),
            )
        } else if let Some(out) = output.downcast_ref::<BatchGetItemOutput>() {
            let items = out
                .responses()
                .into_iter()
                .flat_map(|r| r.values().flatten())
                .collect();
            read(items, out.consumed_capacity().iter().collect())
        } else if let Some(out) = output.downcast_ref::<TransactGetItemsOutput>() {
            let items = out.responses().iter().filter_map(|r| r.item()).collect();
            read(items, out.consumed_capacity().iter().collect())
        } else if let Some(out) = output.downcast_ref::<TransactWriteItemsOutput>() {
            write(out.consumed_capacity().iter().collect())
        } else if let Some(out) = output.downcast_ref::<PutItemOutput>() {
            write(out.consumed_capacity().into_iter().collect())
        } else if let Some(out) = output.downcast_ref::<UpdateItemOutput>() {
            write(out.consumed_capacity().into_iter().collect())
        } else if let Some(out) = output.downcast_ref::<DeleteItemOutput>() {
            write(out.consumed_capacity().into_iter().collect())
        } else if let Some(out) = output.downcast_ref::<BatchWriteItemOutput>() {
            write(out.consumed_capacity().iter().collect())
        } else {
            return None;
        })
    }
}
