//! Access pattern 8: the orders that contain a product, newest first, through GSI2 — the line
//! items' inverted view (`PRODUCT#<sku>` / `<placedAt>#<orderId>`), projecting what a line says
//! (`customerId`, `quantity`, `price`). ONE Query per page, beside a read of the variant that
//! says whether its lines are spread over more partitions (a SKU whose stock was split for a
//! sale: `PRODUCT#<sku>#<k>`); then one Query per partition, merged, as access pattern 4 does.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::Sku;
use crate::domain::order::ProductOrderLine;
use crate::domain::page::{Page, PageRequest, PlacedWindow};
use crate::domain::stock_shards::{ShardCount, ShardIndex};
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::{self, text};
use crate::dynamo::entities::line_item;
use crate::dynamo::keys::{GSI2PK, GSI2SK, PK, SK};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::Store;

use super::merge::Partition;

/// The entry of a merged cursor that names its SKU; each partition's position is the entry
/// named by its index, holding its GSI2 sort key (the rest of the key follows from it).
const SKU_ENTRY: &str = "sku";

impl Store {
    /// Access pattern 8: `sku`'s order lines placed in `window`, newest first.
    pub async fn list_product_orders(
        &self,
        sku: &Sku,
        window: PlacedWindow,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Page<ProductOrderLine>, AppError> {
        let range = line_item::gsi2sk_range(window.from, window.to);
        let first = partition_query(sku, ShardIndex::VARIANT, range.clone());
        let flat = (page.cursor.as_deref())
            .map(|cursor| cursor::decode(&caller.cursor_tag(), cursor))
            .transpose()?;
        let merged_cursor = flat
            .as_ref()
            .is_some_and(|flat| flat.contains_key(SKU_ENTRY));
        if merged_cursor {
            let shards = self.order_shards(sku).await?;
            let positions = merged_positions(flat, sku, shards, &first)?;
            return self
                .merged_product_orders(sku, positions, range, page, caller)
                .await;
        }
        // A page of the first partition, and at the same time the count of partitions: one
        // round trip, and the page itself when the SKU's lines are in one partition.
        let start = match flat {
            Some(key) if first.holds(&key) && is_line_of(&key, sku) => Some(key),
            Some(_) => return Err(AppError::invalid("cursor is not valid for this listing")),
            None => None,
        };
        let (shards, out) = futures_util::future::join(
            self.order_shards(sku),
            first.page_request(self, page, start.clone()).send(),
        )
        .await;
        let (shards, out) = (shards?, out?);
        if shards == ShardCount::ONE {
            return first.page(
                caller,
                out.items.unwrap_or_default(),
                page.limit,
                || out.last_evaluated_key,
                line_item::product_order_from_item,
            );
        }
        // Spread since this listing began: its position is the first partition's.
        let mut positions = vec![None; shards.get()];
        positions[0] = start;
        self.merged_product_orders(sku, positions, range, page, caller)
            .await
    }

    /// How many GSI2 partitions `sku`'s lines are spread over, as its variant says (eventually
    /// consistent, as the index itself is); 1 for a SKU without a variant.
    async fn order_shards(&self, sku: &Sku) -> Result<ShardCount, AppError> {
        Ok((self.get_variant(sku, false).await?)
            .map_or(ShardCount::ONE, |variant| variant.order_shards))
    }

    /// A page merged over `sku`'s partitions, each continuing from its position. A partition
    /// nothing was taken from on a page after the first reads only what sorts after the page
    /// before ended (a partition the SKU gained meanwhile holds lines newer than that).
    async fn merged_product_orders(
        &self,
        sku: &Sku,
        positions: Vec<Option<Item>>,
        (lo, hi): (String, String),
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Page<ProductOrderLine>, AppError> {
        let frontier = (positions.iter().flatten())
            .filter_map(|key| text(key, GSI2SK))
            .min()
            .map(str::to_owned);
        let too_many = || AppError::internal("more GSI2 partitions than a SKU can have");
        let mut parts: Vec<Partition> = (positions.into_iter().enumerate())
            .map(|(k, position)| {
                let hi = match (&position, &frontier) {
                    (None, Some(frontier)) if *frontier < hi => frontier.clone(),
                    _ => hi.clone(),
                };
                let k = ShardIndex::nth(k).ok_or_else(too_many)?;
                let query = partition_query(sku, k, (lo.clone(), hi));
                Ok(Partition::new(query, position))
            })
            .collect::<Result<_, AppError>>()?;
        let merged = self.merge_page(&mut parts, page.limit).await?;
        let next_cursor = if merged.more {
            seal_merged_cursor(caller, sku, &parts)?
        } else {
            None
        };
        let items = (merged.items.into_iter())
            .map(line_item::product_order_from_item)
            .collect::<Result<_, _>>()?;
        Ok(Page { items, next_cursor })
    }
}

/// The Query of `sku`'s lines in partition `k`, newest first, within `range`.
fn partition_query(sku: &Sku, k: ShardIndex, range: (String, String)) -> KeyQuery {
    KeyQuery::on(Index::Gsi2, line_item::gsi2pk(sku, k))
        .between(range)
        .newest_first()
}

/// The positions a merged cursor (`flat`, decoded) carries, one per partition something was
/// taken from, as full GSI2 keys; a 400 for anything that is not the GSI2 position of a line of
/// `sku` in one of its `shards` partitions, inside the window `first` reads.
fn merged_positions(
    flat: Option<Item>,
    sku: &Sku,
    shards: ShardCount,
    first: &KeyQuery,
) -> Result<Vec<Option<Item>>, AppError> {
    let invalid = || AppError::invalid("cursor is not valid for this listing");
    let mut flat = flat.unwrap_or_default();
    let listing = flat.remove(SKU_ENTRY);
    if listing.as_ref().and_then(|v| v.as_s().ok()) != Some(&sku.to_string()) {
        return Err(invalid());
    }
    let mut positions = vec![None; shards.get()];
    for (name, value) in flat {
        let k = (name.parse::<usize>().ok())
            .filter(|k| *k < shards.get() && name == k.to_string())
            .ok_or_else(invalid)?;
        let shard = ShardIndex::nth(k).ok_or_else(invalid)?;
        let gsi2sk = value.as_s().map_err(|_| invalid())?;
        let (placed_at, order) = line_item::parse_gsi2sk(gsi2sk).map_err(|_| invalid())?;
        let key = Item::from([
            (GSI2PK.to_owned(), s(line_item::gsi2pk(sku, shard))),
            (GSI2SK.to_owned(), s(line_item::gsi2sk(placed_at, &order))),
            (PK.to_owned(), s(line_item::pk(&order))),
            (SK.to_owned(), s(line_item::sk(sku))),
        ]);
        // Inside the window (the first partition's query, with this partition's key).
        let mut inside = key.clone();
        inside.insert(
            GSI2PK.to_owned(),
            s(line_item::gsi2pk(sku, ShardIndex::VARIANT)),
        );
        if text(&key, GSI2SK) != Some(gsi2sk) || !first.holds(&inside) {
            return Err(invalid());
        }
        positions[k] = Some(key);
    }
    Ok(positions)
}

/// The cursor of the page after this one: the SKU, and each partition's position by its sort
/// key (see [`merged_positions`]).
fn seal_merged_cursor(
    caller: &Caller,
    sku: &Sku,
    parts: &[Partition],
) -> Result<Option<String>, AppError> {
    let mut flat: BTreeMap<String, AttributeValue> =
        BTreeMap::from([(SKU_ENTRY.to_owned(), s(sku.to_string()))]);
    for (k, part) in parts.iter().enumerate() {
        if let Some(value) = part.position.as_ref().and_then(|p| p.get(GSI2SK)) {
            flat.insert(k.to_string(), value.clone());
        }
    }
    cursor::seal(caller, Some(flat.into_iter().collect()))
}

fn s(text: String) -> AttributeValue {
    AttributeValue::S(text)
}

/// Whether `key` (a GSI2 position, as [`KeyQuery::holds`] checked) is, byte for byte, the
/// GSI2 position the store itself writes for a line of `sku` in its first partition: a cursor
/// carrying anything else (another product, another order's keys, a timestamp spelled another
/// way) is refused before it reaches DynamoDB.
fn is_line_of(key: &Item, sku: &Sku) -> bool {
    let (Some(gsi2pk), Some(gsi2sk), Some(pk), Some(sk)) = (
        text(key, GSI2PK),
        text(key, GSI2SK),
        text(key, PK),
        text(key, SK),
    ) else {
        return false;
    };
    let Ok((placed_at, order)) = line_item::parse_gsi2sk(gsi2sk) else {
        return false;
    };
    gsi2pk == line_item::gsi2pk(sku, ShardIndex::VARIANT)
        && gsi2sk == line_item::gsi2sk(placed_at, &order)
        && pk == line_item::pk(&order)
        && sk == line_item::sk(sku)
}
