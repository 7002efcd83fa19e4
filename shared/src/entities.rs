//! The stored items, read with serde_dynamo, and the entities the API serves.
//!
//! Items are read the way the article's boto3 code writes them: only the attributes in the key
//! design are required, and what the keys already say (customerId, orderId, placedAt, sku) is
//! taken from the keys.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};

use crate::ids::{CustomerId, OrderId, OrderStatus, Sku, Timestamp};
use crate::keys::{self, MalformedKey};
use crate::money::{self, Money};

pub type Item = HashMap<String, AttributeValue>;

/// An item that is in the table but does not read as the entity its keys say it is.
#[derive(Debug, thiserror::Error)]
pub enum BadItem {
    #[error(transparent)]
    Key(#[from] MalformedKey),
    #[error("attributes do not match the entity: {0}")]
    Attributes(#[from] serde_dynamo::Error),
}

/// serde_dynamo reads a number through `f64` unless it is an integer; turning every `N` into
/// its string first keeps money exact (the entities parse those strings themselves).
fn exact_numbers(mut item: Item) -> Item {
    for value in item.values_mut() {
        if let AttributeValue::N(n) = value {
            *value = AttributeValue::S(std::mem::take(n));
        }
    }
    item
}

fn read<T: for<'de> Deserialize<'de>>(item: Item) -> Result<T, BadItem> {
    Ok(serde_dynamo::from_item(exact_numbers(item))?)
}

/// A customer's profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    pub customer_id: CustomerId,
    pub name: String,
    pub email: String,
}

#[derive(Deserialize)]
struct CustomerItem {
    #[serde(rename = "PK")]
    pk: String,
    name: String,
    email: String,
}

impl Customer {
    pub fn from_item(item: Item) -> Result<Self, BadItem> {
        let stored: CustomerItem = read(item)?;
        Ok(Customer {
            customer_id: keys::customer::parse_pk(&stored.pk)?,
            name: stored.name,
            email: stored.email,
        })
    }
}

/// An order as its listing item in the customer's partition (and in GSI1) describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub order_id: OrderId,
    pub customer_id: CustomerId,
    pub placed_at: Timestamp,
    pub status: OrderStatus,
    pub total: Money,
}

#[derive(Deserialize)]
struct OrderListingItem {
    #[serde(rename = "PK")]
    pk: String,
    #[serde(rename = "SK")]
    sk: String,
    status: OrderStatus,
    total: Money,
}

impl Order {
    pub fn from_listing_item(item: Item) -> Result<Self, BadItem> {
        let stored: OrderListingItem = read(item)?;
        let (placed_at, order_id) = keys::order_listing::parse_sk(&stored.sk)?;
        Ok(Order {
            order_id,
            customer_id: keys::customer::parse_pk(&stored.pk)?,
            placed_at,
            status: stored.status,
            total: stored.total,
        })
    }
}

/// One product line of an order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LineItem {
    pub sku: Sku,
    pub quantity: u32,
    pub price: Money,
}

#[derive(Deserialize)]
struct LineItemItem {
    #[serde(rename = "SK")]
    sk: String,
    #[serde(deserialize_with = "money::whole_number")]
    quantity: u32,
    price: Money,
}

impl LineItem {
    pub fn from_item(item: Item) -> Result<Self, BadItem> {
        let stored: LineItemItem = read(item)?;
        Ok(LineItem {
            sku: keys::line_item::parse_sk(&stored.sk)?,
            quantity: stored.quantity,
            price: stored.price,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.to_owned())
    }
    fn n(v: &str) -> AttributeValue {
        AttributeValue::N(v.to_owned())
    }

    #[test]
    fn the_articles_listing_item_reads_with_keys_as_the_source_of_ids() {
        let item = Item::from([
            ("PK".into(), s("CUSTOMER#c1")),
            ("SK".into(), s("ORDER#2026-10-08T14:30:00Z#o100")),
            ("orderId".into(), s("o100")),
            ("status".into(), s("PLACED")),
            ("total".into(), n("39.9")),
            ("GSI1PK".into(), s("STATUS#PLACED")),
            ("GSI1SK".into(), s("2026-10-08T14:30:00Z")),
        ]);
        let order = Order::from_listing_item(item).expect("reads");
        assert_eq!(order.order_id.as_str(), "o100");
        assert_eq!(order.customer_id.as_str(), "c1");
        assert_eq!(order.placed_at.to_string(), "2026-10-08T14:30:00Z");
        assert_eq!(order.status, OrderStatus::Placed);
        assert_eq!(order.total.to_string(), "39.90");
    }

    #[test]
    fn the_articles_line_item_reads_exactly() {
        let item = Item::from([
            ("PK".into(), s("ORDER#o100")),
            ("SK".into(), s("ITEM#sku-1")),
            ("quantity".into(), n("2")),
            ("price".into(), n("19.95")),
        ]);
        let line = LineItem::from_item(item).expect("reads");
        assert_eq!(line.sku.as_str(), "sku-1");
        assert_eq!(line.quantity, 2);
        assert_eq!(line.price.to_string(), "19.95");
    }

    #[test]
    fn items_missing_what_the_article_writes_are_refused() {
        let item = Item::from([
            ("PK".into(), s("ORDER#o100")),
            ("SK".into(), s("ITEM#sku-1")),
            ("quantity".into(), n("2.5")),
            ("price".into(), n("19.95")),
        ]);
        assert!(LineItem::from_item(item).is_err());
        let item = Item::from([("PK".into(), s("CUSTOMER#c1")), ("name".into(), s("Ana"))]);
        assert!(Customer::from_item(item).is_err());
    }
}
