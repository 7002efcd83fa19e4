//! The listings, access patterns 2, 3 and 4: each page is exactly one Query, and every page
//! but the last carries an opaque cursor, bound to the caller and checked to lie inside the
//! listing it is used on.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::{CustomerId, OrderId};
use crate::domain::listing::{Page, PageRequest, PlacedWindow};
use crate::domain::order::{LineItem, MAX_LINES, Order};
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{BadItem, Item};
use crate::dynamo::cursor::{self, key_of, text};
use crate::dynamo::items::{self, header, line_item, listing};
use crate::dynamo::keys::{self, GSI1, GSI1PK, GSI1SK, PK, SK};
use crate::dynamo::store::Store;

/// Everything one listing query needs, stated next to its key condition.
struct ListingQuery<'a> {
    index: Option<&'static str>,
    key_condition: &'static str,
    values: Vec<(&'static str, String)>,
    /// `false` reads the partition newest (highest sort key) first.
    forward: bool,
    /// The attributes of the LastEvaluatedKey (the index's keys, then the table's).
    key_attributes: &'static [&'static str],
    /// Whether a key lies inside the key condition: a cursor's key must.
    contains: &'a (dyn Fn(&Item) -> bool + Sync),
}

/// How many items a customer's read of an order's partition asks for: the header and every
/// line an order of this store can have (48; 96 before orders took stock), and DynamoDB's
/// `Limit` only bounds what is read, it costs nothing more.
const CUSTOMER_READ: usize = 100;
const _: () = assert!(2 * MAX_LINES + 1 < CUSTOMER_READ);

/// The sort keys of an order's partition, from its header to its last line item.
const ORDER_PARTITION_FROM: &str = keys::order_header::SK;
const ORDER_PARTITION_TO: &str = keys::line_item::SK_END;

impl Store {
    /// Access pattern 2: a customer's orders, newest first, optionally within a window.
    pub async fn list_customer_orders(
        &self,
        customer: &CustomerId,
        window: PlacedWindow,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Page<Order>, AppError> {
        let pk = keys::order_listing::pk(customer);
        let (lo, hi) = keys::order_listing::sk_range(window.from, window.to);
        let contains = |key: &Item| {
            text(key, PK) == Some(pk.as_str())
                && text(key, SK).is_some_and(|sk| {
                    (lo.as_str()..=hi.as_str()).contains(&sk)
                        && keys::order_listing::parse_sk(sk).is_ok()
                })
        };
        let query = ListingQuery {
            index: None,
            key_condition: "#pk = :pk AND #sk BETWEEN :lo AND :hi",
            values: vec![
                (":pk", pk.clone()),
                (":lo", lo.clone()),
                (":hi", hi.clone()),
            ],
            forward: false,
            key_attributes: &[PK, SK],
            contains: &contains,
        };
        self.list(query, page, caller, listing::from_item).await
    }

    /// Access pattern 3: an order's line items, in SKU order, for a caller who may see the
    /// order (`None` otherwise, as for a missing order). ONE Query on the order's partition,
    /// from its header (which names the owner) to its last line item. A customer's every page
    /// is read from the header on, so the owner is checked on every page without trusting the
    /// cursor (an order this store writes has at most 48 lines, and had at most 96 before the
    /// catalog: one request of at most [`CUSTOMER_READ`] items); staff page through any order,
    /// headerless ones the article's code wrote too.
    pub async fn list_order_items(
        &self,
        order: &OrderId,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Option<Page<LineItem>>, AppError> {
        let pk = keys::line_item::pk(order);
        let after = cursor::open(caller, page.cursor.as_deref(), |key| {
            key.len() == 2
                && text(key, PK) == Some(pk.as_str())
                && text(key, SK).is_some_and(|sk| {
                    sk == ORDER_PARTITION_FROM || keys::line_item::parse_sk(sk).is_ok()
                })
        })?;
        let from_start = !caller.is_staff();
        let (start, limit) = if from_start {
            (None, CUSTOMER_READ)
        } else {
            (after.clone(), page.limit + 2)
        };
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("#pk = :pk AND #sk BETWEEN :from AND :to")
            .expression_attribute_names("#pk", PK)
            .expression_attribute_names("#sk", SK)
            .expression_attribute_values(":pk", items::PK.value(&pk))
            .expression_attribute_values(":from", items::SK.value(&ORDER_PARTITION_FROM.to_owned()))
            .expression_attribute_values(":to", items::SK.value(&ORDER_PARTITION_TO.to_owned()))
            .limit(i32::try_from(limit).unwrap_or(i32::MAX))
            .set_exclusive_start_key(start)
            .send()
            .await?;

        let mut owner = None;
        let mut lines = Vec::new();
        for item in out.items.unwrap_or_default() {
            if text(&item, SK) == Some(ORDER_PARTITION_FROM) {
                owner = Some(header::from_item(item)?.customer_id);
            } else {
                lines.push(item);
            }
        }
        if !caller.may_see_order(owner.as_ref()) {
            return Ok(None);
        }
        if from_start && let Some(after) = after.as_ref().and_then(|key| text(key, SK)) {
            lines.retain(|line| text(line, SK).is_some_and(|sk| sk > after));
        }
        let next_key = if lines.len() > page.limit {
            lines.truncate(page.limit);
            lines.last().map(|last| key_of(last, &[PK, SK]))
        } else if from_start {
            None
        } else {
            out.last_evaluated_key.filter(|key| !key.is_empty())
        };
        let next_cursor = cursor::seal(caller, next_key)?;
        let items = lines
            .into_iter()
            .map(line_item::from_item)
            .collect::<Result<_, _>>()?;
        Ok(Some(Page { items, next_cursor }))
    }

    /// Access pattern 4: the orders with a status, oldest first, through GSI1.
    pub async fn list_orders_by_status(
        &self,
        status: OrderStatus,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Page<Order>, AppError> {
        let gsi1pk = keys::order_listing::gsi1pk(status);
        let contains = |key: &Item| {
            text(key, GSI1PK) == Some(gsi1pk.as_str())
                && text(key, GSI1SK).is_some_and(|at| Timestamp::parse(at).is_ok())
                && text(key, PK).is_some_and(|pk| keys::customer::parse_pk(pk).is_ok())
                && text(key, SK).is_some_and(|sk| keys::order_listing::parse_sk(sk).is_ok())
        };
        let query = ListingQuery {
            index: Some(GSI1),
            key_condition: "#pk = :pk",
            values: vec![(":pk", gsi1pk.clone())],
            forward: true,
            key_attributes: &[GSI1PK, GSI1SK, PK, SK],
            contains: &contains,
        };
        self.list(query, page, caller, listing::from_item).await
    }

    /// Runs one Query for one page. It asks for one item more than the page holds, so that the
    /// last page is known to be the last and carries no cursor.
    async fn list<T>(
        &self,
        query: ListingQuery<'_>,
        page: &PageRequest,
        caller: &Caller,
        decode: fn(Item) -> Result<T, BadItem>,
    ) -> Result<Page<T>, AppError> {
        let start = cursor::open(caller, page.cursor.as_deref(), |key| {
            key.len() == query.key_attributes.len()
                && query.key_attributes.iter().all(|a| key.contains_key(*a))
                && (query.contains)(key)
        })?;
        let (pk_name, sk_name) = match query.index {
            Some(_) => (GSI1PK, GSI1SK),
            None => (PK, SK),
        };
        let mut request = self
            .client
            .query()
            .table_name(&self.table)
            .set_index_name(query.index.map(str::to_owned))
            .key_condition_expression(query.key_condition)
            .expression_attribute_names("#pk", pk_name)
            .scan_index_forward(query.forward)
            .limit(i32::try_from(page.limit + 1).unwrap_or(i32::MAX))
            .set_exclusive_start_key(start);
        if query.key_condition.contains("#sk") {
            request = request.expression_attribute_names("#sk", sk_name);
        }
        for (name, value) in query.values {
            request = request.expression_attribute_values(name, AttributeValue::S(value));
        }
        let out = request.send().await?;

        let mut items = out.items.unwrap_or_default();
        let next_key = if items.len() > page.limit {
            items.truncate(page.limit);
            items.last().map(|last| key_of(last, query.key_attributes))
        } else {
            // Fewer than asked for, yet a LastEvaluatedKey: the 1 MB cap cut the page short.
            out.last_evaluated_key.filter(|key| !key.is_empty())
        };
        let next_cursor = cursor::seal(caller, next_key)?;
        let items = items.into_iter().map(decode).collect::<Result<_, _>>()?;
        Ok(Page { items, next_cursor })
    }
}
