//! What an event is about (its subject, whose sequence it counts in) and its ID, which every
//! delivery of one change repeats.

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::ids::{
    CancellationId, FulfilmentId, OrderId, ProductId, RefundId, ReturnId, Sku,
};

/// What an event is about, and so whose sequence it counts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// An order (`order.*`), numbered by its header's counter.
    Order(OrderId),
    /// A refund (`refund.*`), numbered by its record's counter.
    Refund(RefundId),
    /// A fulfilment (`fulfilment.*`), numbered by its record's counter.
    Fulfilment(FulfilmentId),
    /// A cancellation of lines (`cancellation.*`): one event, its recording.
    Cancellation(CancellationId),
    /// A return (`return.*`), numbered by its record's counter.
    Return(ReturnId),
    /// A SKU's stock (`product.stock-low`): no counter.
    Product {
        /// Which SKU.
        sku: Sku,
        /// The stream record's sequence number, which a redelivery repeats.
        at: String,
    },
    /// A product of the catalog (`product.published`, `product.unpublished`): no counter.
    Catalog {
        /// Which product.
        product: ProductId,
        /// The stream record's sequence number, which a redelivery repeats.
        at: String,
    },
    /// A variant (`variant.*`): no counter.
    Variant {
        /// Which SKU.
        sku: Sku,
        /// The stream record's sequence number, which a redelivery repeats.
        at: String,
    },
}

impl Subject {
    /// Whether its events are numbered by a counter of its own (an order's, a refund's...),
    /// not by the stream record that gave them (the catalog's).
    pub(crate) fn counted(&self) -> bool {
        !matches!(
            self,
            Subject::Product { .. } | Subject::Catalog { .. } | Subject::Variant { .. }
        )
    }
}

impl Subject {
    /// The ID of the subject's event at `sequence` (a product's: at its record): the same on
    /// every delivery of the change, and never another event's.
    pub fn event_id(&self, sequence: u64) -> EventId {
        EventId(match self {
            Subject::Order(order) => format!("order/{order}/{sequence}"),
            Subject::Refund(refund) => format!("refund/{refund}/{sequence}"),
            Subject::Fulfilment(fulfilment) => format!("fulfilment/{fulfilment}/{sequence}"),
            Subject::Cancellation(cancellation) => {
                format!("cancellation/{cancellation}/{sequence}")
            }
            Subject::Return(order_return) => format!("return/{order_return}/{sequence}"),
            Subject::Product { sku, at } => format!("product/{sku}/{at}"),
            Subject::Catalog { product, at } => format!("product/{product}/{at}"),
            Subject::Variant { sku, at } => format!("variant/{sku}/{at}"),
        })
    }
}

/// An event's ID: `order/<orderId>/<sequence>`, `refund/<refundId>/<sequence>`,
/// `fulfilment/<fulfilmentId>/<sequence>` or `product/<sku>/<stream sequence number>`, made from what the event is about, so that every
/// delivery of one change carries the same. Parsed back by a subscriber, which keys its work on
/// it: each part is an ID's characters, so `#` can never reach a key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct EventId(String);

impl EventId {
    /// The ID, if `raw` has one of the three shapes.
    pub fn parse(raw: &str) -> Result<Self, AppError> {
        let invalid = || {
            AppError::invalid(format!(
                "an event ID is order/<orderId>/<n>, refund/<refundId>/<n>, \
                 fulfilment/<fulfilmentId>/<n>, cancellation/<cancellationId>/<n>, \
                 return/<returnId>/<n>, product/<id>/<n> or variant/<sku>/<n>, not {raw:?}"
            ))
        };
        let mut parts = raw.splitn(3, '/');
        let (Some(kind), Some(id), Some(place)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(invalid());
        };
        let id_ok = match kind {
            "order" => OrderId::parse(id).is_ok(),
            "refund" => RefundId::parse(id).is_ok(),
            "fulfilment" => FulfilmentId::parse(id).is_ok(),
            "cancellation" => CancellationId::parse(id).is_ok(),
            "return" => ReturnId::parse(id).is_ok(),
            "product" | "variant" => Sku::parse(id).is_ok(),
            _ => false,
        };
        let place_ok = (1..=40).contains(&place.len()) && place.bytes().all(|b| b.is_ascii_digit());
        if id_ok && place_ok {
            Ok(Self(raw.to_owned()))
        } else {
            Err(invalid())
        }
    }

    /// The ID's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for EventId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for EventId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Self::parse(&raw).map_err(serde::de::Error::custom)
    }
}
