//! A line of a customer's cart, `CUSTOMER#<customerId>` / `CART#<sku>` (access pattern 9, a
//! customer's cart: one Query on the customer's partition, `begins_with(SK, "CART#")`): the
//! quantity wanted, and `expiresAt`, the table's TTL attribute, `CartTtlDays` after the line's
//! last change. TTL deletes lazily (up to 48 hours late), so a read leaves out a line whose
//! `expiresAt` has passed even while it is still stored. In the customer's partition before the
//! counted orders (`keys::CUSTOMER_PARTITION`), outside every range the statistics read.

use crate::domain::cart::CartLine;
use crate::domain::ids::{CustomerId, Sku};
use crate::dynamo::codec::{Attr, BadItem, Item, SK, primary_key};
use crate::dynamo::entities::customer;
use crate::dynamo::keys::{self, CART_PREFIX, Entity, MalformedKey, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::{DeleteSpec, PutSpec};

record! {
    /// What a cart line stores of the line.
    pub Record stores CartLine beside (sku: Sku) {
        /// How many.
        quantity: u32 = QUANTITY "quantity", required, store;
    }
}

/// When the line expires (seconds since the epoch): the table's TTL attribute.
pub const EXPIRES_AT: Attr<u64> = Attr::new("expiresAt");

/// What changing a line writes: the line whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::CartLine,
    attributes: &[keys::PK, keys::SK, QUANTITY.name, EXPIRES_AT.name],
};
/// A line removed by its customer, whatever it holds.
pub const REMOVE: DeleteSpec = DeleteSpec {
    entity: Entity::CartLine,
    checks: &[],
};
/// A line taken by a checkout, only while it is as the checkout read it.
pub const TAKE: DeleteSpec = DeleteSpec {
    entity: Entity::CartLine,
    checks: &[QUANTITY.name, EXPIRES_AT.name],
};

/// Every cart line's sort key starts with this.
pub const SK_PREFIX: &str = CART_PREFIX;

/// The customer's partition.
pub fn pk(customer: &CustomerId) -> String {
    customer::pk(customer)
}

/// The line's sort key.
pub fn sk(sku: &Sku) -> String {
    format!("{CART_PREFIX}{sku}")
}

/// The SKU a cart line's sort key names.
pub fn parse_sk(sk: &str) -> Result<Sku, MalformedKey> {
    sk.strip_prefix(CART_PREFIX)
        .and_then(|raw| Sku::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// The line's key.
pub fn key(customer: &CustomerId, sku: &Sku) -> Item {
    primary_key(pk(customer), sk(sku))
}

/// The line, expiring at `expires_at`.
pub fn to_item(customer: &CustomerId, line: &CartLine, expires_at: u64) -> Item {
    let mut item = key(customer, &line.sku);
    Record::write(&mut item, line);
    EXPIRES_AT.put(&mut item, &expires_at);
    item
}

/// The line an item holds, and when it expires.
pub fn from_item(mut item: Item) -> Result<(CartLine, u64), BadItem> {
    let sku = parse_sk(&SK.take(&mut item)?)?;
    let line = Record::read(&mut item, sku)?;
    Ok((line, EXPIRES_AT.take(&mut item)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{c1, pairs, shape, sku1};

    #[test]
    fn a_cart_line_sits_in_its_customers_partition_and_reads_back() {
        assert_eq!(pk(&c1()), "CUSTOMER#c1");
        assert_eq!(sk(&sku1()), "CART#sku-1");
        assert!(parse_sk("CART#").is_err() && parse_sk("ORDER#x").is_err());
        let line = CartLine {
            sku: sku1(),
            quantity: 2,
        };
        let item = to_item(&c1(), &line, 1_800_000_000);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S CUSTOMER#c1"),
                ("SK", "S CART#sku-1"),
                ("expiresAt", "N 1800000000"),
                ("quantity", "N 2"),
            ])
        );
        assert_eq!(from_item(item).expect("reads"), (line, 1_800_000_000));
    }
}
