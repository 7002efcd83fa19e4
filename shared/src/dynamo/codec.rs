//! How values become DynamoDB attributes and back: an attribute is declared once, as an
//! [`Attr<T>`] with its name, and `T` decides its DynamoDB type (`S` or `N`) for reading,
//! writing and expression values alike. A value of another type does not compile:
//!
//! ```compile_fail
//! use shared::domain::money::Money;
//! use shared::dynamo::codec::{Attr, Item};
//! const TOTAL: Attr<Money> = Attr::new("total");
//! let mut item = Item::new();
//! TOTAL.put(&mut item, &"39.90".to_owned()); // a string where the total is a number
//! ```
//!
//! while the right one does:
//!
//! ```
//! use shared::domain::money::Money;
//! use shared::dynamo::codec::{Attr, Item};
//! const TOTAL: Attr<Money> = Attr::new("total");
//! let mut item = Item::new();
//! TOTAL.put(&mut item, &Money::parse_number("39.9").unwrap());
//! assert_eq!(item["total"].as_n().unwrap(), "39.90");
//! ```
//!
//! Read by hand rather than through serde_dynamo: its reader rebuilds the item's map twice and
//! goes through a float for fractional numbers. Measured on a listing page (callgrind), an
//! order cost ~9,600 instructions to read that way and ~4,200 this way, most of it parsing its
//! keys; numbers stay the exact strings DynamoDB sent.

use std::collections::HashMap;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::AppError;
use crate::domain::address::Country;
use crate::domain::customer::{CustomerName, EmailAddress};
use crate::domain::email::EmailState;
use crate::domain::event::{EventId, EventType};
use crate::domain::fulfilment::FulfilmentStatus;
use crate::domain::ids::{
    CancellationId, CategoryId, CustomerId, DisputeId, FulfilmentId, MediaId, OrderId,
    PaymentEventId, PaymentId, ProductId, PromotionId, ProviderRefundId, RefundId, ReturnId,
    ShippingOptionId, Sku,
};
use crate::domain::media::MediaType;
use crate::domain::money::{self, Decimal, Money};
use crate::domain::payment::EventOutcome;
use crate::domain::product::ProductStatus;
use crate::domain::promotions::{PromotionCode, PromotionType};
use crate::domain::refund::RefundReason;
use crate::domain::refund::{RefundKind, RefundStatus};
use crate::domain::returns::ReturnStatus;
use crate::domain::stats::ShareVersion;
use crate::domain::status::OrderStatus;
use crate::domain::stock_shards::ShardCount;
use crate::domain::time::Timestamp;
use crate::dynamo::keys::{self, MalformedKey};

/// An item as the SDK holds it: attribute names to values.
pub type Item = HashMap<String, AttributeValue>;

/// An item that is in the table but does not read as the entity its keys say it is.
#[derive(Debug, thiserror::Error)]
pub enum BadItem {
    /// A key attribute that does not have the key design's shape.
    #[error(transparent)]
    Key(#[from] MalformedKey),
    /// An attribute that is missing or of another type than its declaration's.
    #[error("attribute {name} is missing or is not {expected}")]
    Attribute {
        /// The attribute's name.
        name: &'static str,
        /// What it should have been (`a decimal number`, ...).
        expected: &'static str,
    },
}

/// An item that does not read as what its keys say is a fault of the data, never of the
/// caller: a 500, its details logged.
impl From<BadItem> for AppError {
    fn from(err: BadItem) -> Self {
        AppError::internal(err)
    }
}

/// A type that has one DynamoDB representation.
pub trait Stored: Sized {
    /// What a reader is told when the attribute is not that: "a decimal number".
    const EXPECTED: &'static str;
    /// The value as a DynamoDB attribute.
    fn to_attribute(&self) -> AttributeValue;
    /// The value an attribute holds, if it holds one of this type.
    fn from_attribute(value: AttributeValue) -> Option<Self>;
}

impl Stored for String {
    const EXPECTED: &'static str = "a string";
    fn to_attribute(&self) -> AttributeValue {
        AttributeValue::S(self.clone())
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        match value {
            AttributeValue::S(text) => Some(text),
            _ => None,
        }
    }
}

/// A type stored as its text in a string (`S`) or number (`N`) attribute, read back by
/// `$parse`; a number's text is DynamoDB's exact decimal, never a float.
macro_rules! stored_as {
    ($type:ty, $variant:ident, $expected:literal, $parse:expr) => {
        impl Stored for $type {
            const EXPECTED: &'static str = $expected;
            fn to_attribute(&self) -> AttributeValue {
                AttributeValue::$variant(self.to_string())
            }
            fn from_attribute(value: AttributeValue) -> Option<Self> {
                match value {
                    AttributeValue::$variant(text) => $parse(&text),
                    _ => None,
                }
            }
        }
    };
}

stored_as!(CustomerId, S, "a customer id", |s: &str| CustomerId::parse(
    s
)
.ok());
stored_as!(OrderId, S, "an order id", |s: &str| OrderId::parse(s).ok());
stored_as!(OrderStatus, S, "an order status", |s: &str| s.parse().ok());
stored_as!(Timestamp, S, "an ISO-8601 timestamp", |s: &str| {
    Timestamp::parse(s).ok()
});
stored_as!(ShareVersion, S, "a share version", |s: &str| {
    ShareVersion::parse(s).ok()
});
stored_as!(PaymentId, S, "a payment id", |s: &str| PaymentId::parse(s)
    .ok());
stored_as!(PaymentEventId, S, "an event id", |s: &str| {
    PaymentEventId::parse(s).ok()
});
stored_as!(EventType, S, "an event type", |s: &str| s.parse().ok());
stored_as!(EventId, S, "an event id", |s: &str| EventId::parse(s).ok());
stored_as!(EmailState, S, "an email state", |s: &str| s.parse().ok());
stored_as!(EventOutcome, S, "an event outcome", |s: &str| {
    EventOutcome::ALL.into_iter().find(|o| o.as_str() == s)
});
stored_as!(CustomerName, S, "a name", |s: &str| Some(
    CustomerName::stored(s.to_owned())
));
stored_as!(EmailAddress, S, "an email address", |s: &str| Some(
    EmailAddress::stored(s.to_owned())
));
stored_as!(RefundReason, S, "a refund reason", |s: &str| s.parse().ok());
stored_as!(RefundStatus, S, "a refund status", |s: &str| s.parse().ok());
stored_as!(RefundKind, S, "a refund kind", |s: &str| s.parse().ok());
stored_as!(RefundId, S, "a refund id", |s: &str| RefundId::parse(s)
    .ok());
stored_as!(ProviderRefundId, S, "a provider refund id", |s: &str| {
    ProviderRefundId::parse(s).ok()
});
stored_as!(DisputeId, S, "a dispute id", |s: &str| DisputeId::parse(s)
    .ok());
stored_as!(CancellationId, S, "a cancellation id", |s: &str| {
    CancellationId::parse(s).ok()
});
stored_as!(FulfilmentId, S, "a fulfilment id", |s: &str| {
    FulfilmentId::parse(s).ok()
});
stored_as!(FulfilmentStatus, S, "a fulfilment status", |s: &str| s
    .parse()
    .ok());
stored_as!(ReturnId, S, "a return id", |s: &str| ReturnId::parse(s)
    .ok());
stored_as!(ReturnStatus, S, "a return status", |s: &str| s.parse().ok());
stored_as!(Sku, S, "a SKU", |s: &str| Sku::parse(s).ok());
stored_as!(ProductId, S, "a product id", |s: &str| ProductId::parse(s)
    .ok());
stored_as!(CategoryId, S, "a category id", |s: &str| {
    CategoryId::parse(s).ok()
});
stored_as!(MediaId, S, "a media id", |s: &str| MediaId::parse(s).ok());
stored_as!(ShippingOptionId, S, "a shipping option id", |s: &str| {
    ShippingOptionId::parse(s).ok()
});
stored_as!(Country, S, "a country code", |s: &str| Country::parse(s)
    .ok());
stored_as!(MediaType, S, "a picture's content type", |s: &str| s
    .parse()
    .ok());
stored_as!(ProductStatus, S, "a product status", |s: &str| s
    .parse()
    .ok());
stored_as!(PromotionId, S, "a promotion id", |s: &str| {
    PromotionId::parse(s).ok()
});
stored_as!(PromotionCode, S, "a promotion code", |s: &str| {
    PromotionCode::parse(s).ok()
});
stored_as!(PromotionType, S, "a promotion type", |s: &str| s
    .parse()
    .ok());
stored_as!(
    ShardCount,
    N,
    "a count of stock shards, 1 to 32",
    ShardCount::parse
);
stored_as!(Money, N, "a decimal number", Money::parse_number);
stored_as!(u32, N, "a whole number", money::whole_number);
stored_as!(u64, N, "a whole number", money::whole_number);
stored_as!(i64, N, "a whole number", |s: &str| s.parse().ok());

impl Stored for bool {
    const EXPECTED: &'static str = "a boolean";
    fn to_attribute(&self) -> AttributeValue {
        AttributeValue::Bool(*self)
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        match value {
            AttributeValue::Bool(flag) => Some(flag),
            _ => None,
        }
    }
}

/// A map of attributes (`M`): a key stored as it is, a scan's position say.
impl Stored for Item {
    const EXPECTED: &'static str = "a map";
    fn to_attribute(&self) -> AttributeValue {
        AttributeValue::M(self.clone())
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        match value {
            AttributeValue::M(map) => Some(map),
            _ => None,
        }
    }
}

impl Stored for Decimal {
    const EXPECTED: &'static str = "a decimal number";
    fn to_attribute(&self) -> AttributeValue {
        AttributeValue::N(self.normalize().to_string())
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        Money::from_attribute(value).map(Money::amount)
    }
}

/// One attribute of an entity: its name, and through `T` its DynamoDB type.
pub struct Attr<T> {
    /// The attribute's name in the item.
    pub name: &'static str,
    stored: PhantomData<fn() -> T>,
}

impl<T: Stored> Attr<T> {
    /// The attribute `name`, of type `T`.
    pub const fn new(name: &'static str) -> Self {
        Self {
            name,
            stored: PhantomData,
        }
    }

    /// The attribute value of `value`, for an item or an expression.
    pub fn value(&self, value: &T) -> AttributeValue {
        value.to_attribute()
    }

    /// Writes `value` into `item` under this attribute.
    pub fn put(&self, item: &mut Item, value: &T) {
        item.insert(self.name.to_owned(), value.to_attribute());
    }

    /// Writes `value` into `item` under this attribute when there is one; an item without it
    /// is how an absent value is stored.
    pub fn put_optional(&self, item: &mut Item, value: Option<&T>) {
        if let Some(value) = value {
            self.put(item, value);
        }
    }

    /// The attribute, taken out of `item`; `None` when absent, an error when of another type.
    pub fn take_optional(&self, item: &mut Item) -> Result<Option<T>, BadItem> {
        item.remove(self.name)
            .map(|value| T::from_attribute(value).ok_or(self.bad()))
            .transpose()
    }

    /// The attribute, taken out of `item`; it must be there.
    pub fn take(&self, item: &mut Item) -> Result<T, BadItem> {
        self.take_optional(item)?.ok_or(self.bad())
    }

    /// The attribute, read in place.
    pub fn get(&self, item: &Item) -> Option<T> {
        item.get(self.name)
            .and_then(|value| T::from_attribute(value.clone()))
    }

    fn bad(&self) -> BadItem {
        BadItem::Attribute {
            name: self.name,
            expected: T::EXPECTED,
        }
    }
}

/// An item's table key, as a report names it: `PK / SK` (or what of it there is).
pub fn key_text(item: &Item) -> String {
    let text = |attr: &Attr<String>| attr.get(item).unwrap_or_else(|| "?".to_owned());
    format!("{} / {}", text(&PK), text(&SK))
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

/// The table's key attributes, as every entity writes them.
pub const PK: Attr<String> = Attr::new(keys::PK);
/// The table's sort key attribute.
pub const SK: Attr<String> = Attr::new(keys::SK);

/// An item holding just a primary key.
pub fn primary_key(pk: String, sk: impl Into<String>) -> Item {
    let mut item = Item::with_capacity(2);
    PK.put(&mut item, &pk);
    SK.put(&mut item, &sk.into());
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_has_one_dynamodb_type_and_reads_back_what_it_wrote() {
        let total: Attr<Money> = Attr::new("total");
        let status: Attr<OrderStatus> = Attr::new("status");
        let mut item = Item::new();
        let amount = Money::parse_number("39.9").expect("money");
        total.put(&mut item, &amount);
        status.put(&mut item, &OrderStatus::Shipped);
        assert_eq!(item["total"], AttributeValue::N("39.90".into()));
        assert_eq!(item["status"], AttributeValue::S("SHIPPED".into()));
        assert_eq!(total.take(&mut item).expect("reads"), amount);
        assert_eq!(status.take(&mut item).expect("reads"), OrderStatus::Shipped);
        assert!(item.is_empty(), "taking removes the attribute");
    }

    #[test]
    fn an_attribute_stored_as_another_type_is_refused_by_name() {
        let total: Attr<Money> = Attr::new("total");
        let mut item = Item::from([("total".to_owned(), AttributeValue::S("39.90".into()))]);
        assert_eq!(
            total.take(&mut item).expect_err("refused").to_string(),
            "attribute total is missing or is not a decimal number"
        );
        let count: Attr<u64> = Attr::new("orderCount");
        let mut item = Item::from([("orderCount".to_owned(), AttributeValue::N("2.5".into()))]);
        assert!(count.take(&mut item).is_err());
        assert_eq!(count.take_optional(&mut Item::new()).expect("absent"), None);
    }
}
