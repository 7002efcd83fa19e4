//! The listings, access patterns 2, 3 and 4: each page is exactly one Query, and every page
//! but the last carries an opaque cursor, bound to the caller and checked to lie inside the
//! listing it is used on.

use std::collections::VecDeque;

use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::future::join_all;

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::{CustomerId, OrderId};
use crate::domain::listing::{Page, PageRequest, PlacedWindow};
use crate::domain::order::{LineItem, MAX_LINES, Order};
use crate::domain::status::OrderStatus;
use crate::dynamo::codec::{BadItem, Item};
use crate::dynamo::cursor::{self, key_of, text};
use crate::dynamo::items::{self, header, line_item, listing};
#[cfg(doc)]
use crate::dynamo::keys::StatusShards;
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

    /// Access pattern 4: the orders with a status, oldest first, through GSI1: one Query per
    /// status shard (see [`StatusShards`]), all at once, merged by `placedAt` (ties: by shard,
    /// then in the shard's own order). A page holds exactly `limit` orders unless the listing
    /// ends there; its cursor holds, per shard, the key of the last order taken from it, so the
    /// next page continues every shard exactly where this one stopped.
    pub async fn list_orders_by_status(
        &self,
        status: OrderStatus,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Page<Order>, AppError> {
        let shards = self.status_shards.count();
        let positions = open_status_cursor(caller, page.cursor.as_deref(), status, shards)?;
        let mut reads: Vec<ShardRead> = positions
            .into_iter()
            .enumerate()
            .map(|(k, position)| ShardRead {
                gsi1pk: keys::order_listing::gsi1pk(status, k as u32),
                position,
                buffer: VecDeque::new(),
                more: None,
                read: false,
                last_taken: None,
            })
            .collect();
        let everyone: Vec<usize> = (0..reads.len()).collect();
        self.read_shards(&mut reads, &everyone, per_shard_limit(page.limit, shards))
            .await?;
        let mut taken = Vec::with_capacity(page.limit);
        // Each round either takes an order or reads on a dry shard; a shard read either fills
        // its buffer or says it has nothing more, so this ends well before the bound.
        let mut rounds = 0;
        loop {
            rounds += 1;
            if rounds > 4 * page.limit + 4 * reads.len() + 8 {
                return Err(AppError::internal("the status shards' merge did not end"));
            }
            // A shard that ran dry while DynamoDB has more must be read on before anything is
            // taken (its next order may come first), and before the page says it is the last.
            let dry: Vec<usize> = reads
                .iter()
                .enumerate()
                .filter(|(_, r)| r.buffer.is_empty() && r.more.is_some())
                .map(|(k, _)| k)
                .collect();
            if !dry.is_empty() {
                let wanted = page.limit - taken.len() + 1;
                self.read_shards(&mut reads, &dry, wanted).await?;
                continue;
            }
            if taken.len() == page.limit {
                break;
            }
            let next = reads
                .iter()
                .enumerate()
                .filter_map(|(k, r)| Some((text(r.buffer.front()?, GSI1SK)?, k)))
                .min();
            let Some((_, k)) = next else {
                break;
            };
            let Some(item) = reads[k].buffer.pop_front() else {
                break;
            };
            reads[k].last_taken = Some(taken.len());
            taken.push(item);
        }
        // Each shard now continues after the last order taken from it.
        for read in &mut reads {
            if let Some(index) = read.last_taken {
                read.position = Some(key_of(&taken[index], &[GSI1PK, GSI1SK, PK, SK]));
            }
        }
        let more = reads.iter().any(|r| !r.buffer.is_empty());
        let next_cursor = if more {
            seal_status_cursor(caller, status, &reads)?
        } else {
            None
        };
        let items = taken
            .into_iter()
            .map(listing::from_item)
            .collect::<Result<_, _>>()?;
        Ok(Page { items, next_cursor })
    }

    /// Reads on the shards `which`, all at once, up to `limit` orders each.
    async fn read_shards(
        &self,
        reads: &mut [ShardRead],
        which: &[usize],
        limit: usize,
    ) -> Result<(), AppError> {
        let requests = which.iter().map(|&k| {
            let read = &reads[k];
            let start = if read.read {
                read.more.clone()
            } else {
                read.position.clone()
            };
            self.client
                .query()
                .table_name(&self.table)
                .index_name(GSI1)
                .key_condition_expression("#pk = :pk")
                .expression_attribute_names("#pk", GSI1PK)
                .expression_attribute_values(":pk", AttributeValue::S(read.gsi1pk.clone()))
                .scan_index_forward(true)
                .limit(i32::try_from(limit).unwrap_or(i32::MAX))
                .set_exclusive_start_key(start)
                .send()
        });
        let answers = join_all(requests).await;
        for (&k, answer) in which.iter().zip(answers) {
            let out = answer?;
            let read = &mut reads[k];
            read.read = true;
            let items = out.items.unwrap_or_default();
            // No filter, so a read that found nothing has nothing more.
            read.more = out
                .last_evaluated_key
                .filter(|key| !key.is_empty() && !items.is_empty());
            read.buffer.extend(items);
        }
        Ok(())
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

/// One status shard during a page: where it continues, what was read and not yet taken, and
/// whether DynamoDB has more after that.
struct ShardRead {
    gsi1pk: String,
    /// The key of the last order taken from this shard, on this page or an earlier one.
    position: Option<Item>,
    buffer: VecDeque<Item>,
    /// The last read's LastEvaluatedKey.
    more: Option<Item>,
    /// Read at least once on this page (so it continues from `more`, not `position`).
    read: bool,
    /// Where in the page the last order taken from this shard is.
    last_taken: Option<usize>,
}

/// How many orders the first read asks of each shard: a shard holds about `limit / N` of a
/// page, so twice that and two more make a second read rare without reading N full pages; a
/// shard that runs dry is read on. One shard reads exactly one more than the page, as before.
fn per_shard_limit(limit: usize, shards: u32) -> usize {
    let shards = shards.max(1) as usize;
    (limit + 1).min(2 * (limit + 1).div_ceil(shards) + 2)
}

/// The entry of a by-status cursor that names its status.
const STATUS_ENTRY: &str = "status";

/// The per-shard positions a by-status cursor carries (`<k>.GSI1SK`, `<k>.PK`, `<k>.SK` for
/// each shard something was taken from), as full GSI1 keys; a 400 for anything that is not a
/// listing key of this status and shard count.
fn open_status_cursor(
    caller: &Caller,
    cursor: Option<&str>,
    status: OrderStatus,
    shards: u32,
) -> Result<Vec<Option<Item>>, AppError> {
    let mut positions: Vec<Option<Item>> = vec![None; shards as usize];
    let Some(cursor) = cursor else {
        return Ok(positions);
    };
    let mut flat = cursor::decode(&caller.cursor_tag(), cursor)?;
    let invalid = || AppError::invalid("cursor is not valid for this listing");
    // The listing it was handed out for: a position in another status's shards is no position.
    let listing = flat.remove(STATUS_ENTRY);
    if listing.as_ref().and_then(|v| v.as_s().ok()) != Some(&status.to_string()) {
        return Err(invalid());
    }
    for (name, value) in flat {
        let (shard, attribute) = name.split_once('.').ok_or_else(invalid)?;
        let k: u32 = shard
            .parse()
            .ok()
            .filter(|k: &u32| *k < shards && shard == k.to_string())
            .ok_or_else(invalid)?;
        if ![GSI1SK, PK, SK].contains(&attribute) {
            return Err(invalid());
        }
        let position = positions[k as usize].get_or_insert_with(|| {
            Item::from([(
                GSI1PK.to_owned(),
                AttributeValue::S(keys::order_listing::gsi1pk(status, k)),
            )])
        });
        position.insert(attribute.to_owned(), value);
    }
    for position in positions.iter().flatten() {
        let sk = text(position, SK).and_then(|sk| keys::order_listing::parse_sk(sk).ok());
        let whole = position.len() == 4
            && text(position, PK).is_some_and(|pk| keys::customer::parse_pk(pk).is_ok())
            && sk.is_some_and(|(at, _)| text(position, GSI1SK) == Some(at.to_string().as_str()));
        if !whole {
            return Err(invalid());
        }
    }
    Ok(positions)
}

/// The cursor of the page after this one: each shard's position (flattened, see
/// [`open_status_cursor`]).
fn seal_status_cursor(
    caller: &Caller,
    status: OrderStatus,
    reads: &[ShardRead],
) -> Result<Option<String>, AppError> {
    let mut flat = Item::from([(
        STATUS_ENTRY.to_owned(),
        AttributeValue::S(status.to_string()),
    )]);
    for (k, read) in reads.iter().enumerate() {
        for attribute in [GSI1SK, PK, SK] {
            if let Some(value) = read.position.as_ref().and_then(|p| p.get(attribute)) {
                flat.insert(format!("{k}.{attribute}"), value.clone());
            }
        }
    }
    cursor::seal(caller, Some(flat))
}
