//! The listings, access patterns 2, 3 and 4: each page is exactly one Query, and every page
//! but the last carries an opaque cursor.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::AppError;
use crate::domain::ids::{CustomerId, OrderId};
use crate::domain::listing::{Page, PageRequest, PlacedWindow};
use crate::domain::order::{LineItem, Order};
use crate::domain::status::OrderStatus;
use crate::dynamo::codec::{BadItem, Item};
use crate::dynamo::items::{line_item, listing};
use crate::dynamo::keys::{self, GSI1, GSI1PK, GSI1SK, PK, SK};
use crate::dynamo::store::Store;

/// Everything one listing query needs, stated next to its key condition.
struct ListingQuery<'a> {
    /// What the cursor is bound to: the pattern and every value of the key condition.
    scope: String,
    index: Option<&'static str>,
    key_condition: &'static str,
    values: Vec<(&'static str, String)>,
    /// `false` reads the partition newest (highest sort key) first.
    forward: bool,
    /// The attributes of the LastEvaluatedKey (the index's keys, then the table's).
    key_attributes: &'static [&'static str],
    /// The partition key attribute and value a cursor's key must carry.
    partition: (&'static str, &'a str),
}

impl Store {
    /// Access pattern 2: a customer's orders, newest first, optionally within a window.
    pub async fn list_customer_orders(
        &self,
        customer: &CustomerId,
        window: PlacedWindow,
        page: &PageRequest,
    ) -> Result<Page<Order>, AppError> {
        let pk = keys::order_listing::pk(customer);
        let (lo, hi) = keys::order_listing::sk_range(window.from, window.to);
        let query = ListingQuery {
            scope: format!("customer-orders\n{pk}\n{lo}\n{hi}"),
            index: None,
            key_condition: "#pk = :pk AND #sk BETWEEN :lo AND :hi",
            values: vec![(":pk", pk.clone()), (":lo", lo), (":hi", hi)],
            forward: false,
            key_attributes: &[PK, SK],
            partition: (PK, &pk),
        };
        self.list(query, page, listing::from_item).await
    }

    /// Access pattern 3: an order's line items, in SKU order.
    pub async fn list_order_items(
        &self,
        order: &OrderId,
        page: &PageRequest,
    ) -> Result<Page<LineItem>, AppError> {
        let pk = keys::line_item::pk(order);
        let query = ListingQuery {
            scope: format!("order-items\n{pk}"),
            index: None,
            key_condition: "#pk = :pk AND begins_with(#sk, :prefix)",
            values: vec![
                (":pk", pk.clone()),
                (":prefix", keys::line_item::SK_PREFIX.to_owned()),
            ],
            forward: true,
            key_attributes: &[PK, SK],
            partition: (PK, &pk),
        };
        self.list(query, page, line_item::from_item).await
    }

    /// Access pattern 4: the orders with a status, oldest first, through GSI1.
    pub async fn list_orders_by_status(
        &self,
        status: OrderStatus,
        page: &PageRequest,
    ) -> Result<Page<Order>, AppError> {
        let gsi1pk = keys::order_listing::gsi1pk(status);
        let query = ListingQuery {
            scope: format!("orders-by-status\n{gsi1pk}"),
            index: Some(GSI1),
            key_condition: "#pk = :pk",
            values: vec![(":pk", gsi1pk.clone())],
            forward: true,
            key_attributes: &[GSI1PK, GSI1SK, PK, SK],
            partition: (GSI1PK, &gsi1pk),
        };
        self.list(query, page, listing::from_item).await
    }

    /// Runs one Query for one page. It asks for one item more than the page holds, so that the
    /// last page is known to be the last and carries no cursor.
    async fn list<T>(
        &self,
        query: ListingQuery<'_>,
        page: &PageRequest,
        decode: fn(Item) -> Result<T, BadItem>,
    ) -> Result<Page<T>, AppError> {
        let start = match &page.cursor {
            None => None,
            Some(cursor) => Some(self.open_cursor(&query, cursor)?),
        };
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
        let next_cursor = next_key
            .map(|key| self.cursors.seal(&query.scope, &key))
            .transpose()?;
        let items = items.into_iter().map(decode).collect::<Result<_, _>>()?;
        Ok(Page { items, next_cursor })
    }

    fn open_cursor(&self, query: &ListingQuery<'_>, cursor: &str) -> Result<Item, AppError> {
        let key = self.cursors.open(&query.scope, cursor)?;
        // The tag already binds the cursor to this listing; this guards the secret's absence.
        let (attr, value) = query.partition;
        let same_shape = key.len() == query.key_attributes.len()
            && query.key_attributes.iter().all(|a| key.contains_key(*a))
            && key
                .get(attr)
                .and_then(|v| v.as_s().ok())
                .map(String::as_str)
                == Some(value);
        if same_shape {
            Ok(key)
        } else {
            Err(AppError::invalid("cursor is not valid for this listing"))
        }
    }
}

fn key_of(item: &Item, attributes: &[&str]) -> Item {
    attributes
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), item.get(*name)?.clone())))
        .collect()
}
