//! Access pattern 4: the orders with a status, oldest first, through GSI1, merged over the
//! status's shards ([`StatusShards`]); the cursor carries each shard's position.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::order::Order;
use crate::domain::page::{Page, PageRequest};
use crate::domain::status::OrderStatus;
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::{self, text};
use crate::dynamo::entities::{customer, order_listing};
#[cfg(doc)]
use crate::dynamo::keys::StatusShards;
use crate::dynamo::keys::{GSI1PK, GSI1SK, PK, SK};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::Store;

use super::merge::Partition;

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
        let mut parts: Vec<Partition> = (positions.into_iter().enumerate())
            .map(|(k, position)| {
                let query = KeyQuery::on(Index::Gsi1, order_listing::gsi1pk(status, k as u32));
                Partition::new(query, position)
            })
            .collect();
        let merged = self.merge_page(&mut parts, page.limit).await?;
        let next_cursor = if merged.more {
            seal_status_cursor(caller, status, &parts)?
        } else {
            None
        };
        let items = (merged.items.into_iter())
            .map(order_listing::from_item)
            .collect::<Result<_, _>>()?;
        Ok(Page { items, next_cursor })
    }
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
    parts: &[Partition],
) -> Result<Option<String>, AppError> {
    let mut flat = Item::from([(
        STATUS_ENTRY.to_owned(),
        AttributeValue::S(status.to_string()),
    )]);
    for (k, part) in parts.iter().enumerate() {
        for attribute in [GSI1SK, PK, SK] {
            if let Some(value) = part.position.as_ref().and_then(|p| p.get(attribute)) {
                flat.insert(format!("{k}.{attribute}"), value.clone());
            }
        }
    }
    cursor::seal(caller, Some(flat))
}
