//! How many PLACED orders a customer holds, `CUSTOMER#<customerId>` / `PLACED_ORDERS`,
//! `placedCount`: counted up by each order placed and down by each one leaving PLACED (shipped
//! or cancelled), and checked against the cap on open orders (`MAX_OPEN_ORDERS`) inside each
//! order's transaction. In the customer's partition between the listings and the profile
//! (`keys::CUSTOMER_PARTITION`), so that neither the source design's
//! `begins_with(SK, "ORDER#")` nor the statistics' range meets it.
//!
//! The same item counts, in the map `held` (SKU → units), how much of each product the
//! customer's checked-out orders hold while they are open (waiting for payment, or paid and
//! not yet shipped), checked against `MAX_HELD_QUANTITY` in the checkout's transaction: one
//! action for the place and every line, so that a full cart's checkout stays within
//! DynamoDB's 100 actions.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::domain::ids::{CustomerId, Sku};
use crate::domain::order::LineItem;
use crate::dynamo::codec::{Attr, Item, primary_key};
use crate::dynamo::entities::customer;
use crate::dynamo::keys::{self, Entity};
use crate::dynamo::update::UpdateSpec;

/// The count's sort key.
pub const SORT_KEY: &str = keys::PLACED_ORDERS_SK;

/// How many PLACED orders the customer holds.
pub const COUNT: Attr<u32> = Attr::new("placedCount");
/// What an update adds (one, or minus one).
pub const COUNT_CHANGE: Attr<i64> = Attr::new("placedCount");

/// Units held of each product, by SKU: absent until the customer's first checkout counted.
pub const HELD: Attr<Item> = Attr::new("held");
/// A number of units, as a condition on an entry of [`HELD`] compares it.
pub const UNITS: Attr<u32> = Attr::new("held");

/// What counting an order in or out writes: its place, and (a checkout's) its units, the map
/// set whole the first time and its entries added to after.
pub const COUNT_UPDATE: UpdateSpec = UpdateSpec {
    set: &[HELD.name],
    add: &[COUNT.name, HELD.name],
    ..UpdateSpec::of(Entity::OpenOrderCount)
};

/// The customer's partition.
pub fn pk(customer: &CustomerId) -> String {
    customer::pk(customer)
}

/// The count's key.
pub fn key(customer: &CustomerId) -> Item {
    primary_key(pk(customer), SORT_KEY)
}

/// The map [`HELD`] as an order's `lines` alone make it: the first checkout counted.
pub fn held_map(lines: &[LineItem]) -> Item {
    lines
        .iter()
        .map(|line| {
            let units = AttributeValue::N(line.quantity.to_string());
            (line.sku.as_str().to_owned(), units)
        })
        .collect()
}

/// Whether the stored count has the map [`HELD`].
pub fn counts_held(item: &Item) -> bool {
    item.get(HELD.name).is_some_and(AttributeValue::is_m)
}

/// The units of `sku` the stored count holds (none counted: 0).
pub fn held_units(item: &Item, sku: &Sku) -> u64 {
    item.get(HELD.name)
        .and_then(|held| held.as_m().ok())
        .and_then(|held| held.get(sku.as_str()))
        .and_then(|units| units.as_n().ok())
        .and_then(|units| units.parse().ok())
        .unwrap_or(0)
}
