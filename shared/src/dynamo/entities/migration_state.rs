//! A data migration's own items, under `MIGRATION#<name>` (`store-migrate`): its completion
//! (`STATUS`), each scan segment's checkpoint (`SEGMENT#<total>#<i>`), the line items it
//! deferred (`DEFERRED#<orderId>#<sku>`), and those it could not place
//! (`UNPLACEABLE#<PK>#<SK>`, with the item's key and the reason). No access pattern reads them.

use crate::domain::ids::{OrderId, Sku};
use crate::dynamo::codec::{Item, primary_key};
use crate::dynamo::keys::{self, MIGRATION_PREFIX, MalformedKey, malformed};
use crate::dynamo::record::record;

/// The sort key of the migration's completion.
pub const STATUS_SK: &str = "STATUS";
/// Every segment checkpoint's sort key starts with this.
pub const SEGMENT_PREFIX: &str = "SEGMENT#";
/// Every deferred line's sort key starts with this.
pub const DEFERRED_PREFIX: &str = "DEFERRED#";

/// Every unplaceable item's record's sort key starts with this.
pub const UNPLACEABLE_PREFIX: &str = "UNPLACEABLE#";

/// A migration's completion, as its `STATUS` item keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The migration's version.
    pub version: u32,
    /// When it completed (RFC 3339).
    pub completed_at: String,
    /// How many items it could not place.
    pub unplaceable: u64,
}

record! {
    /// What a migration's `STATUS` item stores.
    pub CompletionRecord stores Completion beside () {
        /// The migration's version, when it completed.
        version: u32 = VERSION "version", required, store;
        /// When it completed.
        completed_at: String = COMPLETED_AT "completedAt", required, store;
        /// Line items no order could be found for.
        unplaceable: u64 = UNPLACEABLE "unplaceable", default, store;
    }
}

/// An item the migration could not place, as its record keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unplaceable {
    /// The item's partition key, as stored.
    pub item_pk: String,
    /// Its sort key, as stored.
    pub item_sk: String,
    /// Why it could not be placed.
    pub reason: String,
}

record! {
    /// What an `UNPLACEABLE#` item stores.
    pub UnplaceableRecord stores Unplaceable beside () {
        /// The unplaceable item's partition key, as stored.
        item_pk: String = ITEM_PK "itemPK", required, store;
        /// The unplaceable item's sort key, as stored.
        item_sk: String = ITEM_SK "itemSK", required, store;
        /// Why it could not be placed.
        reason: String = REASON "reason", default, store;
    }
}

/// A scan segment's checkpoint, as its `SEGMENT#` item keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// The migration's version that wrote it.
    pub version: u32,
    /// The segment has been scanned to its end.
    pub done: bool,
    /// Where its scan continues: its LastEvaluatedKey; `None` once done.
    pub last_key: Option<Item>,
    /// Items the segment's scan has read.
    pub scanned: u64,
    /// Items it changed.
    pub changed: u64,
    /// Items it left as they were (already right).
    pub skipped: u64,
    /// Line items it set aside until every listing is known.
    pub deferred: u64,
}

record! {
    /// What a `SEGMENT#` item stores.
    pub SegmentRecord stores Segment beside () {
        /// The migration's version (the completion's attribute).
        version: u32 = VERSION, default, store;
        /// The segment has been scanned to its end.
        done: bool = DONE "done", default, store;
        /// Where the segment's scan continues: its LastEvaluatedKey, as a map; absent once done.
        last_key: Item = LAST_KEY "lastKey", optional, store;
        /// Items the segment's scan has read.
        scanned: u64 = SCANNED "scanned", default, store;
        /// Items it changed.
        changed: u64 = CHANGED "changed", default, store;
        /// Items it left as they were (already right).
        skipped: u64 = SKIPPED "skipped", default, store;
        /// Line items it set aside until every listing is known.
        deferred: u64 = DEFERRED "deferred", default, store;
    }
}

/// The migration's partition key.
pub fn pk(name: &str) -> String {
    format!("{MIGRATION_PREFIX}{name}")
}

/// Segment `segment` of a scan in `total` segments: a count change starts a new scan.
pub fn segment_sk(segment: u32, total: u32) -> String {
    format!("{SEGMENT_PREFIX}{total}#{segment:04}")
}

/// A line item deferred until the scan has seen every order listing.
pub fn deferred_sk(order: &OrderId, sku: &Sku) -> String {
    format!("{DEFERRED_PREFIX}{order}#{sku}")
}

/// The order and SKU a deferred line's sort key names.
pub fn parse_deferred_sk(sk: &str) -> Result<(OrderId, Sku), MalformedKey> {
    sk.strip_prefix(DEFERRED_PREFIX)
        .and_then(|rest| rest.split_once('#'))
        .and_then(|(order, sku)| Some((OrderId::parse(order).ok()?, Sku::parse(sku).ok()?)))
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// The record of an item (`pk`, `sk` as stored, whatever their shape) the migration could not
/// place.
pub fn unplaceable_sk(pk: &str, sk: &str) -> String {
    format!("{UNPLACEABLE_PREFIX}{pk}#{sk}")
}

/// The key of the record of an item it could not place.
pub fn unplaceable_key(name: &str, pk: &str, sk: &str) -> Item {
    primary_key(self::pk(name), unplaceable_sk(pk, sk))
}

/// The key of the migration's completion.
pub fn status_key(name: &str) -> Item {
    primary_key(pk(name), STATUS_SK)
}

/// The key of segment `segment` of a scan in `total` segments.
pub fn segment_key(name: &str, segment: u32, total: u32) -> Item {
    primary_key(pk(name), segment_sk(segment, total))
}

/// The key of a line set aside.
pub fn deferred_key(name: &str, order: &OrderId, sku: &Sku) -> Item {
    primary_key(pk(name), deferred_sk(order, sku))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{o100, sku1};

    #[test]
    fn migration_state_keys() {
        assert_eq!(pk("0001-line-item-gsi2"), "MIGRATION#0001-line-item-gsi2");
        assert_eq!(segment_sk(3, 8), "SEGMENT#8#0003");
        assert_eq!(deferred_sk(&o100(), &sku1()), "DEFERRED#o100#sku-1");
        assert_eq!(
            unplaceable_sk("ORDER#o.901", "ITEM#sku 1"),
            "UNPLACEABLE#ORDER#o.901#ITEM#sku 1"
        );
        assert_eq!(
            parse_deferred_sk("DEFERRED#o100#sku-1").expect("parses"),
            (o100(), sku1())
        );
    }
}
