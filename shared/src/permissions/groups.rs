//! What several functions send alike, named once: a product's pictures and their copies, what
//! placing an order reads first, and what a status change writes. `table.rs` lists each
//! function with these and its own requests.

use super::Sends;
use crate::dynamo::entities::{
    catalog_entry, category_listing, open_order_count, order_header, order_listing, product,
    promotion_uses, variant,
};
use crate::dynamo::keys::Entity;

use Sends::{BatchGetItem, ReadObjects, UpdateItem};

// A product's pictures: the bucket they live in, and what changes with one shown or removed.
/// The pictures' objects read (a presigned URL is signed under this grant).
pub(super) const READ_PICTURES: Sends = ReadObjects("MediaBucket");
/// The product's pictures' summary and version.
pub(super) const PICTURE_SUMMARY: Sends = UpdateItem(&[&product::MEDIA]);
/// The catalog entry's copy of the first picture.
pub(super) const COVER_IN_CATALOG: Sends = UpdateItem(&[&catalog_entry::COVER_CHANGE]);
/// The category listings' copies of the first picture.
pub(super) const COVER_IN_LISTINGS: Sends = UpdateItem(&[&category_listing::COVER_CHANGE]);

// What placing an order (or a checkout) reads first, in one BatchGetItem: the customer, the
// products and the idempotency record.
/// The customer, read with the order's inputs.
pub(super) const INPUT_CUSTOMER: Sends = BatchGetItem(Entity::Customer);
/// The products, read with the order's inputs.
pub(super) const INPUT_PRODUCTS: Sends = BatchGetItem(Entity::Variant);
/// The stock shards of the variants that have more than one, read after them.
pub(super) const INPUT_SHARDS: Sends = BatchGetItem(Entity::StockShard);
/// The idempotency record, read with the order's inputs.
pub(super) const INPUT_IDEMPOTENCY: Sends = BatchGetItem(Entity::IdempotencyRecord);

// A status change: header and listing, the stock given back, the place released.
/// The header moved.
pub(super) const MOVE_HEADER: Sends = UpdateItem(&[&order_header::STATUS_CHANGE]);
/// The listing moved (its GSI1PK following the status).
pub(super) const MOVE_LISTING: Sends = UpdateItem(&[&order_listing::STATUS_CHANGE]);
/// The lines' stock given back to their products.
pub(super) const STOCK_BACK: Sends = UpdateItem(&[&variant::STOCK_UPDATE]);
/// The customer's place under the caps released.
pub(super) const RELEASE_PLACE: Sends = UpdateItem(&[&open_order_count::COUNT_UPDATE]);
/// A promotion's use counted (a checkout), or given back (a hold ending unpaid).
pub(super) const COUNT_USE: Sends = UpdateItem(&[&promotion_uses::COUNT]);
