//! The version of a customer's cart, `CUSTOMER#<customerId>` / `CART`, `version`: moved on by
//! every edit that adds a line, in the same transaction as the line, on the condition that it
//! is still the one the edit read before it counted the cart's lines. Two edits that each saw
//! room for one more line cannot both add theirs, so the cap on a cart's lines
//! (`MAX_CART_LINES`) is a condition of the write itself. Its sort key sorts before the lines'
//! (`keys::CUSTOMER_PARTITION`), outside `begins_with(SK, "CART#")` and inside
//! `begins_with(SK, "CART")`: one Query reads it with the lines.
//!
//! It also carries `profiled`, set by every write of the customer's profile, after it: a
//! checkout that finds it beside the cart knows the customer is one without reading the
//! profile (a profile is never deleted, nor its name taken away).

use crate::domain::ids::CustomerId;
use crate::dynamo::codec::{Attr, Item, primary_key};
use crate::dynamo::entities::customer;
use crate::dynamo::keys::{self, Entity};
use crate::dynamo::update::UpdateSpec;

/// The version's sort key.
pub const SORT_KEY: &str = keys::CART_VERSION_SK;

/// How many lines were added to the cart, ever: what an edit reads and moves on.
pub const VERSION: Attr<u64> = Attr::new("version");

/// The customer's profile was written (named) before this was set.
pub const PROFILED: Attr<bool> = Attr::new("profiled");

/// A profile written: `profiled` set (`put-customer`, after the profile).
pub const MARK_PROFILED: UpdateSpec = UpdateSpec {
    set: &[PROFILED.name],
    ..UpdateSpec::of(Entity::CartVersion)
};

/// A line added: the version moved on, if it is still the one read.
pub const MOVE_ON: UpdateSpec = UpdateSpec {
    set: &[VERSION.name],
    ..UpdateSpec::of(Entity::CartVersion)
};

/// The customer's partition.
pub fn pk(customer: &CustomerId) -> String {
    customer::pk(customer)
}

/// The version's key.
pub fn key(customer: &CustomerId) -> Item {
    primary_key(pk(customer), SORT_KEY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_sits_in_its_customers_partition_before_the_lines() {
        let customer = CustomerId::parse("c1").expect("id");
        let key = key(&customer);
        assert_eq!(
            key["PK"].as_s().ok().map(String::as_str),
            Some("CUSTOMER#c1")
        );
        assert_eq!(key["SK"].as_s().ok().map(String::as_str), Some("CART"));
        assert!(!"CART".starts_with(keys::CART_PREFIX));
    }
}
