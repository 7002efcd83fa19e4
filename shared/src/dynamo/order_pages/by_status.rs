//! Access pattern 4: the orders with a status, oldest first, through GSI1, merged over the
//! status's shards ([`StatusShards`]); the cursor carries each shard's position.

use std::collections::VecDeque;

use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::future::join_all;

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::order::Order;
use crate::domain::page::{Page, PageRequest};
use crate::domain::status::OrderStatus;
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::{self, key_of, text};
use crate::dynamo::entities::{customer, order_listing};
#[cfg(doc)]
use crate::dynamo::keys::StatusShards;
use crate::dynamo::keys::{GSI1PK, GSI1SK, PK, SK};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::Store;

impl Store {
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
                gsi1pk: order_listing::gsi1pk(status, k as u32),
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
                read.position = Some(key_of(&taken[index], Index::Gsi1.position_attributes()));
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
            .map(order_listing::from_item)
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
            KeyQuery::on(Index::Gsi1, read.gsi1pk.clone())
                .request(self)
                .limit(cursor::query_limit(limit))
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
                AttributeValue::S(order_listing::gsi1pk(status, k)),
            )])
        });
        position.insert(attribute.to_owned(), value);
    }
    // Each position is byte for byte the GSI1 key of a listing as the store writes it.
    for position in positions.iter().flatten() {
        let sk = text(position, SK).and_then(order_listing::parse_canonical_sk);
        let whole = position.len() == 4
            && text(position, PK).is_some_and(customer::is_canonical_pk)
            && sk.is_some_and(|(at, _)| {
                text(position, GSI1SK) == Some(order_listing::gsi1sk(at).as_str())
            });
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
