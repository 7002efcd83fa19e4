//! The paged order reads, access patterns 2, 3, 4 and 8: each page is exactly one Query (per
//! status shard for 4, `by_status.rs`; on GSI2 for 8, `by_product.rs`), and every page but the
//! last carries an opaque cursor, bound to the caller and checked to lie inside the listing it
//! is used on.

mod by_product;
mod by_status;
mod merge;

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::{CustomerId, OrderId};
use crate::domain::order::{LineItem, MAX_LINES, Order};
use crate::domain::page::{Page, PageRequest, PlacedWindow};
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::{query_limit, text};
use crate::dynamo::entities::{line_item, order_header, order_listing};
use crate::dynamo::keys::{Entity, ORDER_PARTITION, SK};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::Store;

/// How many items a customer's read of an order's partition asks for: the header and every
/// line an order of this store can have (48; 96 before orders took stock), and DynamoDB's
/// `Limit` only bounds what is read, it costs nothing more.
const CUSTOMER_READ: usize = 100;
const _: () = assert!(2 * MAX_LINES + 1 < CUSTOMER_READ);

/// The sort keys of an order's partition, from its header to its last line item.
fn order_partition_range() -> (String, String) {
    ORDER_PARTITION.range(Entity::OrderHeader, Entity::LineItem)
}

impl Store {
    /// Access pattern 2: a customer's orders, newest first, optionally within a window. ONE
    /// Query on the customer's partition, between the window's order sort keys.
    pub async fn list_customer_orders(
        &self,
        customer: &CustomerId,
        window: PlacedWindow,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Page<Order>, AppError> {
        let query = KeyQuery::on(Index::Table, order_listing::pk(customer))
            .between(order_listing::sk_range(window.from, window.to))
            .newest_first();
        let start = query.open(caller, page.cursor.as_deref(), |key| {
            text(key, SK).is_some_and(order_listing::is_canonical_sk)
        })?;
        query
            .read_page(self, caller, page, start, order_listing::from_item)
            .await
    }

    /// Access pattern 3: an order's line items, in SKU order, for a caller who may see the
    /// order (`None` otherwise, as for a missing order). ONE Query on the order's partition,
    /// from its header (which names the owner) to its last line item. A customer's every page
    /// is read from the header on, so the owner is checked on every page without trusting the
    /// cursor (an order this store writes has at most 48 lines, and had at most 96 before the
    /// catalog: one request of at most [`CUSTOMER_READ`] items); staff page through any order,
    /// headerless ones boto3 writers of the source design wrote too.
    pub async fn list_order_items(
        &self,
        order: &OrderId,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Option<Page<LineItem>>, AppError> {
        let query =
            KeyQuery::on(Index::Table, line_item::pk(order)).between(order_partition_range());
        let after = query.open(caller, page.cursor.as_deref(), |key| {
            text(key, SK)
                .is_some_and(|sk| sk == order_header::SORT_KEY || line_item::is_canonical_sk(sk))
        })?;
        let from_start = !caller.is_staff();
        let (start, limit) = if from_start {
            (None, CUSTOMER_READ)
        } else {
            // The header, the page, and one more.
            (after.clone(), page.limit + 2)
        };
        let out = query
            .request(self)
            .limit(query_limit(limit))
            .set_exclusive_start_key(start)
            .send()
            .await?;

        let (owner, mut lines) = split_header(out.items.unwrap_or_default())?;
        if !caller.may_see_order(owner.as_ref()) {
            return Ok(None);
        }
        if from_start && let Some(after) = after.as_ref().and_then(|key| text(key, SK)) {
            lines.retain(|line| text(line, SK).is_some_and(|sk| sk > after));
        }
        let page = query.page(
            caller,
            lines,
            page.limit,
            || out.last_evaluated_key.filter(|_| !from_start),
            line_item::from_item,
        )?;
        Ok(Some(page))
    }
}

/// An order partition's items as the owner its header names (none without a header) and its
/// line items.
fn split_header(items: Vec<Item>) -> Result<(Option<CustomerId>, Vec<Item>), AppError> {
    let mut owner = None;
    let mut lines = Vec::with_capacity(items.len());
    for item in items {
        if text(&item, SK) == Some(order_header::SORT_KEY) {
            owner = Some(order_header::from_item(item)?.customer_id);
        } else {
            lines.push(item);
        }
    }
    Ok((owner, lines))
}
