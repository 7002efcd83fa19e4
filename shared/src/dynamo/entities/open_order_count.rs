//! How many PLACED orders a customer holds, `CUSTOMER#<customerId>` / `PLACED_ORDERS`,
//! `placedCount`: counted up by each order placed and down by each one leaving PLACED (shipped
//! or cancelled), and checked against the cap on open orders (`MAX_OPEN_ORDERS`) inside each
//! order's transaction. In the customer's partition between the listings and the profile
//! (`keys::CUSTOMER_PARTITION`), so that neither the source design's
//! `begins_with(SK, "ORDER#")` nor the statistics' range meets it.

use crate::domain::ids::CustomerId;
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

/// What counting an order in or out writes.
pub const COUNT_UPDATE: UpdateSpec = UpdateSpec {
    add: &[COUNT.name],
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
