//! `0001-line-item-gsi2`: line items written before GSI2 get the keys that list them under their
//! product (`GSI2PK`, `GSI2SK`) and their order's `customerId`, which the listing returns.
//!
//! A line item says only its order and SKU; the time and the customer are its order's. An
//! order this store placed has a header in its own partition: the line is set from it (one
//! BatchGetItem of the headers per page). An order the source design's boto3 code wrote has no
//! header, only its listing item in the customer's partition, which the same scan meets,
//! somewhere: when it does, the order's lines are read (one Query) and set from it; a headerless
//! line met first is deferred (`DEFERRED#…`) and looked at again once every segment is done.
//! A line whose order has neither, or whose key is outside the store's ID grammar (written by
//! other code: `ORDER#o.901` / `ITEM#sku 1`), is reported by key with the reason, recorded
//! (`UNPLACEABLE#…`, for `--retry-unplaceable`) and left alone; the run carries on. A header
//! the store cannot read is reported and its order treated as having none.

use crate::domain::stock_shards::ShardIndex;
use std::collections::{BTreeMap, BTreeSet};

use crate::dynamo::errors::unless_condition_failed;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

use crate::AppError;
use crate::domain::ids::{CustomerId, OrderId, Sku};
use crate::domain::order::Order;
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{BadItem, Item};
use crate::dynamo::cursor::text;
use crate::dynamo::entities::{
    customer, line_item, migration_state, migration_state as stored, order_header, order_listing,
};
use crate::dynamo::keys::{GSI2PK, ORDER_PREFIX, PK, SK};
use crate::dynamo::migrations::{Budget, Counts, Migration, Options, patiently};
use crate::dynamo::products::MAX_BATCH_GET;
use crate::dynamo::store::Store;

/// What a line's GSI2 entry needs from its order.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Placed {
    customer: CustomerId,
    at: Timestamp,
}

/// What a page holds that concerns this migration.
#[derive(Debug, Default)]
struct Found {
    /// Line items without GSI2 keys.
    lines: Vec<(OrderId, Sku)>,
    /// Order listings: each order's customer and time.
    listings: BTreeMap<OrderId, Placed>,
    /// Line items whose key the store cannot read: their key as stored, and why.
    malformed: Vec<(String, String, String)>,
}

/// Why a line's order could give it no keys.
const NO_ORDER: &str = "its order has no header the store can read, and no listing";

fn read_page(items: &[Item]) -> Found {
    let mut found = Found::default();
    for item in items {
        let (Some(pk), Some(sk)) = (text(item, PK), text(item, SK)) else {
            continue;
        };
        if pk.starts_with(ORDER_PREFIX) && sk.starts_with(line_item::SK_PREFIX) {
            if item.contains_key(GSI2PK) {
                continue;
            }
            match (line_item::parse_pk(pk), line_item::parse_sk(sk)) {
                (Ok(order), Ok(sku)) => found.lines.push((order, sku)),
                (Err(bad), _) | (_, Err(bad)) => found.malformed.push((
                    pk.to_owned(),
                    sk.to_owned(),
                    format!("its key is outside the store's ID grammar ({bad})"),
                )),
            }
        } else if let (Ok(customer), Ok((at, order))) =
            (customer::parse_pk(pk), order_listing::parse_sk(sk))
        {
            found.listings.insert(order, Placed { customer, at });
        }
    }
    found
}

/// One page of the scan: lines of orders with a header set from it; orders without one set
/// from their listing when the page holds it; other headerless lines deferred.
pub(super) async fn migrate_page(
    store: &Store,
    migration: Migration,
    items: Vec<Item>,
    options: &Options,
    budget: &Budget,
) -> Result<Counts, AppError> {
    let mut counts = Counts {
        scanned: items.len() as u64,
        ..Counts::default()
    };
    let found = read_page(&items);
    let orders: BTreeSet<&OrderId> = found
        .lines
        .iter()
        .map(|(order, _)| order)
        .chain(found.listings.keys())
        .collect();
    for (pk, sk, reason) in &found.malformed {
        store
            .record_unplaceable(migration, (pk, sk), reason, options.dry_run, budget)
            .await?;
        counts.unplaceable += 1;
    }
    let headers = store.read_headers(&orders, budget).await?;
    for (order, sku) in &found.lines {
        if let Some(placed) = headers.get(order) {
            store
                .set_gsi2(order, sku, placed, options, budget, &mut counts)
                .await?;
        } else if !found.listings.contains_key(order) {
            store.defer(migration, order, sku, options, budget).await?;
            counts.deferred += 1;
        }
    }
    for (order, placed) in &found.listings {
        if !headers.contains_key(order) {
            for sku in store.lines_without_gsi2(order, budget).await? {
                store
                    .set_gsi2(order, &sku, placed, options, budget, &mut counts)
                    .await?;
            }
        }
    }
    Ok(counts)
}

/// Once every segment is done: each deferred line set from its order's listing meanwhile is
/// settled; one still without keys has no order to take them from, and is reported. A dry run
/// deferred nothing (it writes nothing), so it cannot tell which lines those are.
pub(super) async fn resolve_deferred(
    store: &Store,
    migration: Migration,
    options: &Options,
    budget: &Budget,
) -> Result<Counts, AppError> {
    let mut counts = Counts::default();
    if options.dry_run {
        return Ok(counts);
    }
    // One read of each order's lines, however many of them were deferred.
    let mut by_order: BTreeMap<OrderId, Vec<Sku>> = BTreeMap::new();
    for (order, sku) in store.deferred(migration, budget).await? {
        by_order.entry(order).or_default().push(sku);
    }
    for (order, skus) in by_order {
        let unset = store.lines_without_gsi2(&order, budget).await?;
        for sku in skus {
            // Set from its order's listing meanwhile, or recorded as not placed: either way
            // it is no longer waiting.
            if unset.contains(&sku) {
                counts.unplaceable += 1;
                let (pk, sk) = (line_item::pk(&order), line_item::sk(&sku));
                store
                    .record_unplaceable(migration, (&pk, &sk), NO_ORDER, false, budget)
                    .await?;
            }
            store
                .settle_deferred(migration, &order, &sku, budget)
                .await?;
        }
    }
    Ok(counts)
}

/// `--retry-unplaceable`: each item an earlier run could not place, looked at again. One gone,
/// or given its keys meanwhile, is settled; one whose order now has a header is set from it;
/// any other stays recorded, and counted.
pub(super) async fn retry_unplaceable(
    store: &Store,
    migration: Migration,
    options: &Options,
    budget: &Budget,
) -> Result<Counts, AppError> {
    let mut counts = Counts::default();
    for (pk, sk, reason) in store.unplaceable(migration, budget).await? {
        counts.scanned += 1;
        let record = migration_state::unplaceable_key(migration.name(), &pk, &sk);
        // A Query rather than a GetItem: the operators' policy reads order partitions only so.
        let found = store.query_prefix_paced(pk.clone(), &sk, budget).await?;
        let item = found
            .iter()
            .find(|item| text(item, SK) == Some(sk.as_str()));
        if item.is_none_or(|item| item.contains_key(GSI2PK)) {
            counts.skipped += 1;
            if !options.dry_run {
                store.delete_paced(record, budget).await?;
            }
            continue;
        }
        let (Ok(order), Ok(sku)) = (line_item::parse_pk(&pk), line_item::parse_sk(&sk)) else {
            counts.unplaceable += 1;
            tracing::warn!(pk, sk, reason, "still left as it is");
            continue;
        };
        let header = store
            .read_headers(&BTreeSet::from([&order]), budget)
            .await?;
        match header.get(&order) {
            Some(placed) => {
                store
                    .set_gsi2(&order, &sku, placed, options, budget, &mut counts)
                    .await?;
                if !options.dry_run {
                    store.delete_paced(record, budget).await?;
                }
            }
            None => {
                counts.unplaceable += 1;
                tracing::warn!(pk, sk, reason, "still left as it is");
            }
        }
    }
    Ok(counts)
}

impl Store {
    /// The orders of `orders` that have a header, with their customer and time (BatchGetItem,
    /// eventually consistent: a header, once written, never changes these; keys DynamoDB leaves
    /// unprocessed are asked for again with backoff, by [`Store::batch_get_reporting`]).
    async fn read_headers(
        &self,
        orders: &BTreeSet<&OrderId>,
        budget: &Budget,
    ) -> Result<BTreeMap<OrderId, Placed>, AppError> {
        let mut placed = BTreeMap::new();
        let keys: Vec<Item> = orders
            .iter()
            .map(|order| order_header::key(order))
            .collect();
        for chunk in keys.chunks(MAX_BATCH_GET) {
            let (headers, consumed) = patiently(|_| {
                self.batch_get_reporting(chunk.to_vec(), false, Some(ReturnConsumedCapacity::Total))
            })
            .await?;
            for consumed in &consumed {
                budget.read(Some(consumed)).await?;
            }
            for item in headers {
                let key = (
                    text(&item, PK).map(str::to_owned),
                    text(&item, SK).map(str::to_owned),
                );
                let Order {
                    order_id,
                    customer_id,
                    placed_at,
                    ..
                } = match order_header::from_item(item) {
                    Ok(order) => order,
                    Err(err) => {
                        // Its order is taken to have no header: its lines are placed from the
                        // listing, or recorded as unplaceable.
                        tracing::warn!(pk = ?key.0, sk = ?key.1, error = %err, "order header the store cannot read: its lines are placed from the listing, if any");
                        continue;
                    }
                };
                placed.insert(
                    order_id,
                    Placed {
                        customer: customer_id,
                        at: placed_at,
                    },
                );
            }
        }
        Ok(placed)
    }

    /// The SKUs of `order`'s line items that have no GSI2 keys (strongly consistent).
    async fn lines_without_gsi2(
        &self,
        order: &OrderId,
        budget: &Budget,
    ) -> Result<Vec<Sku>, AppError> {
        let lines = self
            .query_prefix_paced(line_item::pk(order), line_item::SK_PREFIX, budget)
            .await?;
        Ok(lines
            .iter()
            .filter(|item| !item.contains_key(GSI2PK))
            .filter_map(|item| text(item, SK).and_then(|sk| line_item::parse_sk(sk).ok()))
            .collect())
    }

    /// Sets one line's GSI2 keys and customer, only if it exists and has no GSI2 keys yet.
    async fn set_gsi2(
        &self,
        order: &OrderId,
        sku: &Sku,
        placed: &Placed,
        options: &Options,
        budget: &Budget,
        counts: &mut Counts,
    ) -> Result<(), AppError> {
        if options.dry_run {
            counts.changed += 1;
            return Ok(());
        }
        let sent = patiently(|_| async {
            let sent = line_item::GSI2_BACKFILL
                .on(&self.table, line_item::key(order, sku))
                .set(&line_item::CUSTOMER_ID, &placed.customer)
                .set(
                    &line_item::GSI2PK,
                    &line_item::gsi2pk(sku, ShardIndex::VARIANT),
                )
                .set(&line_item::GSI2SK, &line_item::gsi2sk(placed.at, order))
                .condition("attribute_exists(PK) AND attribute_not_exists(#GSI2PK)")
                .request(&self.client)?
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            Ok(unless_condition_failed(sent)?.map(|out| out.consumed_capacity))
        })
        .await?;
        // Set already (or gone) when refused.
        if budget.conditional_write(sent).await? {
            counts.changed += 1;
        } else {
            counts.skipped += 1;
        }
        Ok(())
    }

    /// Sets a headerless line aside until every order listing has been read.
    async fn defer(
        &self,
        migration: Migration,
        order: &OrderId,
        sku: &Sku,
        options: &Options,
        budget: &Budget,
    ) -> Result<(), AppError> {
        if options.dry_run {
            return Ok(());
        }
        self.put_paced(stored::deferred_key(migration.name(), order, sku), budget)
            .await
    }

    /// The lines set aside.
    async fn deferred(
        &self,
        migration: Migration,
        budget: &Budget,
    ) -> Result<Vec<(OrderId, Sku)>, AppError> {
        let items = self
            .query_prefix_paced(
                migration_state::pk(migration.name()),
                migration_state::DEFERRED_PREFIX,
                budget,
            )
            .await?;
        items
            .iter()
            .filter_map(|item| text(item, SK))
            .map(|sk| Ok(migration_state::parse_deferred_sk(sk).map_err(BadItem::from)?))
            .collect()
    }

    async fn settle_deferred(
        &self,
        migration: Migration,
        order: &OrderId,
        sku: &Sku,
        budget: &Budget,
    ) -> Result<(), AppError> {
        self.delete_paced(stored::deferred_key(migration.name(), order, sku), budget)
            .await
    }
}
