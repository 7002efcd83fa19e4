//! A data migration's own items, under `MIGRATION#<name>` (`store-migrate`): its completion
//! (`STATUS`), each scan segment's checkpoint (`SEGMENT#<total>#<i>`), the line items it
//! deferred (`DEFERRED#<orderId>#<sku>`), and those it could not place
//! (`UNPLACEABLE#<PK>#<SK>`, with the item's key and the reason). No access pattern reads them.

use crate::domain::ids::{OrderId, Sku};
use crate::dynamo::codec::{Attr, Item, primary_key};
use crate::dynamo::keys::{self, MIGRATION_PREFIX, MalformedKey, malformed};

/// The sort key of the migration's completion.
pub const STATUS_SK: &str = "STATUS";
/// Every segment checkpoint's sort key starts with this.
pub const SEGMENT_PREFIX: &str = "SEGMENT#";
/// Every deferred line's sort key starts with this.
pub const DEFERRED_PREFIX: &str = "DEFERRED#";

/// Every unplaceable item's record's sort key starts with this.
pub const UNPLACEABLE_PREFIX: &str = "UNPLACEABLE#";

/// The unplaceable item's partition key, as stored.
pub const ITEM_PK: Attr<String> = Attr::new("itemPK");
/// The unplaceable item's sort key, as stored.
pub const ITEM_SK: Attr<String> = Attr::new("itemSK");
/// Why it could not be placed.
pub const REASON: Attr<String> = Attr::new("reason");

/// The migration's version, when it completed.
pub const VERSION: Attr<u32> = Attr::new("version");
/// When it completed.
pub const COMPLETED_AT: Attr<String> = Attr::new("completedAt");
/// Where the segment's scan continues: its LastEvaluatedKey, as a map; absent once done.
pub const LAST_KEY: Attr<Item> = Attr::new("lastKey");
/// The segment has been scanned to its end.
pub const DONE: Attr<bool> = Attr::new("done");
/// Items the segment's scan has read.
pub const SCANNED: Attr<u64> = Attr::new("scanned");
/// Items it changed.
pub const CHANGED: Attr<u64> = Attr::new("changed");
/// Items it left as they were (already right).
pub const SKIPPED: Attr<u64> = Attr::new("skipped");
/// Line items it set aside until every listing is known.
pub const DEFERRED: Attr<u64> = Attr::new("deferred");
/// Line items no order could be found for.
pub const UNPLACEABLE: Attr<u64> = Attr::new("unplaceable");

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
