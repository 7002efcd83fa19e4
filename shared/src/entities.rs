//! The stored items, read with serde_dynamo, and the entities the API serves.
//!
//! Items are read the way the article's boto3 code writes them: only the attributes in the key
//! design are required, and what the keys already say (customerId, orderId, placedAt, sku) is
//! taken from the keys.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::ids::{CustomerId, OrderId, OrderStatus, Sku, Timestamp};
use crate::keys::{self, MalformedKey};
use crate::money::{self, Money};

pub type Item = HashMap<String, AttributeValue>;

/// An item that is in the table but does not read as the entity its keys say it is.
#[derive(Debug, thiserror::Error)]
pub enum BadItem {
    #[error(transparent)]
    Key(#[from] MalformedKey),
    #[error("attribute {name} is missing or is not {expected}")]
    Attribute {
        name: &'static str,
        expected: &'static str,
    },
}

/// The attributes of one stored item, taken out by name as an entity needs them.
///
/// Read by hand rather than through serde_dynamo: its reader rebuilds the item's map twice and
/// goes through a float for fractional numbers. Measured on a listing page (callgrind), an
/// order cost ~9,600 instructions to read that way and ~4,200 now, most of it parsing its
/// keys; numbers stay the exact strings DynamoDB sent.
struct Stored(Item);

/// The DynamoDB type an attribute is stored as.
#[derive(Clone, Copy)]
enum As {
    String,
    Number,
}

fn bad(name: &'static str, expected: &'static str) -> BadItem {
    BadItem::Attribute { name, expected }
}

impl Stored {
    /// The text of attribute `name` if present and stored `as_` a string (`S`) or a number
    /// (`N`); of any other type it is refused as not `expected`.
    fn text(
        &mut self,
        name: &'static str,
        expected: &'static str,
        as_: As,
    ) -> Result<Option<String>, BadItem> {
        match (self.0.remove(name), as_) {
            (None, _) => Ok(None),
            (Some(AttributeValue::S(text)), As::String)
            | (Some(AttributeValue::N(text)), As::Number) => Ok(Some(text)),
            _ => Err(bad(name, expected)),
        }
    }

    /// Attribute `name`, parsed; `None` when absent.
    fn optional<T>(
        &mut self,
        name: &'static str,
        expected: &'static str,
        as_: As,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, BadItem> {
        self.text(name, expected, as_)?
            .map(|text| parse(&text).ok_or(bad(name, expected)))
            .transpose()
    }

    /// Attribute `name`, parsed; it must be there.
    fn required<T>(
        &mut self,
        name: &'static str,
        expected: &'static str,
        as_: As,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T, BadItem> {
        self.optional(name, expected, as_, parse)?
            .ok_or(bad(name, expected))
    }

    /// A string attribute that must be there, as it is.
    fn string(&mut self, name: &'static str) -> Result<String, BadItem> {
        self.text(name, "a string", As::String)?
            .ok_or(bad(name, "a string"))
    }

    fn money(&mut self, name: &'static str) -> Result<Money, BadItem> {
        self.required(name, "a decimal number", As::Number, Money::parse_number)
    }

    fn status(&mut self) -> Result<OrderStatus, BadItem> {
        self.required("status", "an order status", As::String, |s| s.parse().ok())
    }
}

/// Attributes that hold money. [`Money`] serializes as a string (serde_dynamo would otherwise
/// need a float); these become DynamoDB numbers, as the article writes them.
const MONEY_ATTRIBUTES: [&str; 2] = ["total", "price"];

/// An item to write, from its serializable shape.
pub fn write_item<T: Serialize>(value: &T) -> Result<Item, AppError> {
    let mut item: Item = serde_dynamo::to_item(value).map_err(AppError::internal)?;
    for name in MONEY_ATTRIBUTES {
        if let Some(AttributeValue::S(text)) = item.get_mut(name) {
            let number = std::mem::take(text);
            item.insert(name.to_owned(), AttributeValue::N(number));
        }
    }
    Ok(item)
}

/// An upper bound of an item's size as DynamoDB counts it (names plus values), for its 400 KB
/// item and 4 MB transaction limits.
pub fn item_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| {
            name.len()
                + match value {
                    AttributeValue::S(s) | AttributeValue::N(s) => s.len() + 1,
                    AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
                    AttributeValue::B(b) => b.as_ref().len(),
                    // Not written by this store; count generously.
                    other => format!("{other:?}").len(),
                }
        })
        .sum()
}

/// A customer's profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    pub customer_id: CustomerId,
    pub name: String,
    pub email: String,
}

/// The longest name accepted.
pub const MAX_NAME_CHARS: usize = 200;

impl Customer {
    /// A customer from what a client sent: the name 1–200 characters (surrounding white space
    /// dropped, no control characters), the email a plausible address.
    pub fn new(customer_id: CustomerId, name: &str, email: &str) -> Result<Self, AppError> {
        let name = name.trim();
        let chars = name.chars().count();
        if chars == 0 || chars > MAX_NAME_CHARS || name.chars().any(char::is_control) {
            return Err(AppError::invalid(format!(
                "name must be 1-{MAX_NAME_CHARS} characters without control characters"
            )));
        }
        let email = email.trim();
        if !plausible_email(email) {
            return Err(AppError::invalid(
                "email must be an address such as ana@example.com",
            ));
        }
        Ok(Self {
            customer_id,
            name: name.to_owned(),
            email: email.to_owned(),
        })
    }
}

/// One `@`, a local part of 1–64 visible characters, and a domain of dot-separated labels of
/// letters, digits and hyphens with at least two labels: what mail can actually be sent to,
/// without pretending to implement RFC 5322.
fn plausible_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let local_ok = (1..=64).contains(&local.len())
        && local.chars().all(|c| {
            c.is_ascii_graphic()
                && !matches!(
                    c,
                    '@' | '(' | ')' | ',' | ':' | ';' | '<' | '>' | '[' | ']' | '\\' | '"'
                )
        });
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = domain.len() <= 253
        && labels.len() >= 2
        && labels.iter().all(|label| {
            (1..=63).contains(&label.len())
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        });
    email.len() <= 254 && local_ok && domain_ok
}

/// A customer's order statistics, kept on the profile by the stream consumer. A profile the
/// consumer has not reached yet (or one the article's code wrote) has none: zero orders.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OrderStats {
    pub order_count: u64,
    pub total_spent: Money,
    pub last_order_at: Option<Timestamp>,
}

/// The profile as `GET /customers/{customerId}` shows it: one flat object.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomerProfile {
    pub customer: Customer,
    pub stats: OrderStats,
}

// Written out rather than `#[serde(flatten)]`, which buffers every field on the hot path.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProfileView<'a> {
    customer_id: &'a CustomerId,
    name: &'a str,
    email: &'a str,
    order_count: u64,
    total_spent: Money,
    last_order_at: Option<Timestamp>,
}

impl Serialize for CustomerProfile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ProfileView {
            customer_id: &self.customer.customer_id,
            name: &self.customer.name,
            email: &self.customer.email,
            order_count: self.stats.order_count,
            total_spent: self.stats.total_spent,
            last_order_at: self.stats.last_order_at,
        }
        .serialize(s)
    }
}

impl CustomerProfile {
    pub fn from_item(item: Item) -> Result<Self, BadItem> {
        let mut stored = Stored(item);
        let customer_id = keys::customer::parse_pk(&stored.string(keys::PK)?)?;
        Ok(CustomerProfile {
            customer: Customer {
                customer_id,
                name: stored.string("name")?,
                email: stored.string("email")?,
            },
            stats: OrderStats {
                order_count: stored
                    .optional(
                        "orderCount",
                        "a whole number",
                        As::Number,
                        money::whole_number,
                    )?
                    .unwrap_or(0),
                total_spent: stored
                    .optional(
                        "totalSpent",
                        "a decimal number",
                        As::Number,
                        Money::parse_number,
                    )?
                    .unwrap_or_default(),
                last_order_at: stored.optional(
                    "lastOrderAt",
                    "an ISO-8601 timestamp",
                    As::String,
                    |s| Timestamp::parse(s).ok(),
                )?,
            },
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

impl Order {
    /// An order from its listing item: ids and time from the keys, status and total from the
    /// attributes the article writes.
    pub fn from_listing_item(item: Item) -> Result<Self, BadItem> {
        let mut stored = Stored(item);
        let (placed_at, order_id) = keys::order_listing::parse_sk(&stored.string(keys::SK)?)?;
        Ok(Order {
            order_id,
            customer_id: keys::customer::parse_pk(&stored.string(keys::PK)?)?,
            placed_at,
            status: stored.status()?,
            total: stored.money("total")?,
        })
    }

    /// The same order, as its header in the order's own partition describes it.
    pub fn from_header_item(item: Item) -> Result<Self, BadItem> {
        let mut stored = Stored(item);
        Ok(Order {
            order_id: keys::line_item::parse_pk(&stored.string(keys::PK)?)?,
            customer_id: stored.required("customerId", "a customer id", As::String, |s| {
                CustomerId::parse(s).ok()
            })?,
            placed_at: stored.required("placedAt", "an ISO-8601 timestamp", As::String, |s| {
                Timestamp::parse(s).ok()
            })?,
            status: stored.status()?,
            total: stored.money("total")?,
        })
    }
}

/// One product line of an order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineItem {
    pub sku: Sku,
    pub quantity: u32,
    pub price: Money,
}

impl LineItem {
    pub fn from_item(item: Item) -> Result<Self, BadItem> {
        let mut stored = Stored(item);
        let sku = keys::line_item::parse_sk(&stored.string(keys::SK)?)?;
        Ok(LineItem {
            sku,
            quantity: stored.required(
                "quantity",
                "a whole number",
                As::Number,
                money::whole_number,
            )?,
            price: stored.money("price")?,
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
    fn a_profile_reads_with_or_without_statistics() {
        let mut item = Item::from([
            ("PK".into(), s("CUSTOMER#c1")),
            ("SK".into(), s("PROFILE")),
            ("name".into(), s("Ana Torres")),
            ("email".into(), s("ana@example.com")),
        ]);
        let bare = CustomerProfile::from_item(item.clone()).expect("reads");
        assert_eq!(bare.stats, OrderStats::default());
        item.insert("orderCount".into(), n("3"));
        item.insert("totalSpent".into(), n("79.8"));
        item.insert("lastOrderAt".into(), s("2026-10-08T14:30:00Z"));
        let profile = CustomerProfile::from_item(item).expect("reads");
        assert_eq!(profile.stats.order_count, 3);
        assert_eq!(profile.stats.total_spent.to_string(), "79.80");
        let json = serde_json::to_value(&profile).expect("json");
        assert_eq!(
            json,
            serde_json::json!({"customerId": "c1", "name": "Ana Torres", "email": "ana@example.com",
                "orderCount": 3, "totalSpent": "79.80", "lastOrderAt": "2026-10-08T14:30:00Z"})
        );
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
    fn customers_need_a_name_and_a_plausible_email() {
        let id = || CustomerId::parse("c1").expect("id");
        let ok = Customer::new(id(), "  Ana Torres ", "ana@example.com").expect("valid");
        assert_eq!(ok.name, "Ana Torres");
        assert!(Customer::new(id(), &"n".repeat(200), "a@b.co").is_ok());
        assert!(Customer::new(id(), "José Müller", "jose@mail.example.de").is_ok());
        for (name, email) in [
            ("", "ana@example.com"),
            ("   ", "ana@example.com"),
            (&"n".repeat(201) as &str, "ana@example.com"),
            ("Ana\u{7}", "ana@example.com"),
            ("Ana", ""),
            ("Ana", "ana"),
            ("Ana", "ana@"),
            ("Ana", "@example.com"),
            ("Ana", "ana@example"),
            ("Ana", "ana@@example.com"),
            ("Ana", "a na@example.com"),
            ("Ana", "ana@exa mple.com"),
            ("Ana", "ana@-example.com"),
            ("Ana", "ana@example..com"),
        ] {
            assert!(
                Customer::new(id(), name, email).is_err(),
                "{name:?} {email:?}"
            );
        }
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
        assert!(CustomerProfile::from_item(item).is_err());
    }

    #[test]
    fn attributes_of_the_wrong_type_or_value_are_named() {
        let listing = |status: AttributeValue, total: AttributeValue| {
            Item::from([
                ("PK".into(), s("CUSTOMER#c1")),
                ("SK".into(), s("ORDER#2026-10-08T14:30:00Z#o100")),
                ("status".into(), status),
                ("total".into(), total),
            ])
        };
        let err = |item| {
            Order::from_listing_item(item)
                .expect_err("refused")
                .to_string()
        };
        assert_eq!(
            err(listing(s("PLACED"), s("39.9"))),
            "attribute total is missing or is not a decimal number"
        );
        assert_eq!(
            err(listing(s("LOST"), n("39.9"))),
            "attribute status is missing or is not an order status"
        );
        assert_eq!(
            err(listing(n("1"), n("39.9"))),
            "attribute status is missing or is not an order status"
        );
        let mut missing = listing(s("PLACED"), n("39.9"));
        missing.remove("total");
        assert_eq!(
            err(missing),
            "attribute total is missing or is not a decimal number"
        );
        let profile = Item::from([
            ("PK".into(), s("CUSTOMER#c1")),
            ("name".into(), s("Ana")),
            ("email".into(), s("ana@example.com")),
            ("orderCount".into(), n("-1")),
        ]);
        assert_eq!(
            CustomerProfile::from_item(profile)
                .expect_err("refused")
                .to_string(),
            "attribute orderCount is missing or is not a whole number"
        );
    }
}
