//! What the store tells the world: one event per committed change of an order, a refund or a
//! product's stock, published to the store's EventBridge bus (docs/events.md, the contract in
//! `api/events.yaml`). Each is derived from one stream record, so it exists only for a change
//! that committed, and carries the same `eventId` on every redelivery of that record.
//!
//! An event counts in its subject's sequence: an order's `order.*` events are numbered 1, 2,
//! 3… by a counter the order's header keeps (the write that makes the change moves it on), a
//! refund's `refund.*` events by its own record's counter. A consumer that has seen 1 and 3 of
//! an order knows that 2 is still on its way. The catalog's events (`product.*`, `variant.*`)
//! have no counter (a variant's stock moves with every order; counting there would cost every
//! checkout a write): they carry no `sequence`, and their ID is their stream record's.

use serde::{Deserialize, Serialize};

pub use crate::domain::catalog_change::{ProductChange, StockLevel, VariantChange};
pub use crate::domain::event_id::{EventId, Subject};

use crate::domain::cancellation::Cancellation;
use crate::domain::fulfilment::{Fulfilment, FulfilmentStatus};
use crate::domain::ids::{CustomerId, OrderId};
use crate::domain::order::{LineItem, Order};
use crate::domain::refund::Refund;
use crate::domain::returns::{OrderReturn, ReturnStatus};
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;

/// The version of every event's `detail` this build sends: within a version fields are only
/// ever added; anything else is a new version.
pub const DETAIL_VERSION: u32 = 1;

/// EventBridge's `source` of every event the store sends: what a rule matches to hear from it.
pub const SOURCE: &str = "rust-store";

crate::listed! {
    /// What happened: EventBridge's `detail-type`, and the `type` in the detail.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum EventType {
        /// A checkout holds the order's stock until it is paid or the hold ends.
        HoldStarted,
        /// The order is placed: its hold paid, or placed directly by staff.
        Placed,
        /// On its way.
        Shipped,
        /// Arrived.
        Delivered,
        /// Cancelled after it was placed: its stock back (and its refund requested, if paid).
        Cancelled,
        /// Its hold ended unpaid: expired, or its PaymentIntent canceled.
        HoldEnded,
        /// An attempt to pay the hold failed (it may still be paid until the hold ends).
        PaymentFailed,
        /// The payment that placed the order is disputed.
        Disputed,
        /// A refund is recorded, to be paid through the provider.
        RefundRequested,
        /// The provider paid a refund back.
        RefundSucceeded,
        /// The provider refused a refund, or reported one it paid as failed after all.
        RefundFailed,
        /// A product's stock fell below the store's threshold.
        StockLow,
        /// Some of the order's lines shipped, the rest still to ship.
        PartiallyShipped,
        /// Some of an order's lines left with a carrier: a fulfilment.
        FulfilmentShipped,
        /// The carrier reports a fulfilment on its way.
        FulfilmentInTransit,
        /// A fulfilment arrived.
        FulfilmentDelivered,
        /// The carrier could not deliver a fulfilment (it may still).
        FulfilmentDeliveryFailed,
        /// A fulfilment's tracking was corrected (the previous in its history).
        TrackingUpdated,
        /// Unshipped lines of an order were cancelled: their stock back, a paid order's refund
        /// requested.
        CancellationRecorded,
        /// A customer asked to return delivered units.
        ReturnRequested,
        /// Staff approved a return: the units are expected back.
        ReturnApproved,
        /// Staff declined a return.
        ReturnDeclined,
        /// The customer withdrew a return before it was received.
        ReturnCanceled,
        /// A return's units arrived and were counted back; nothing refunded by it.
        ReturnReceived,
        /// A return's units arrived and what arrived was refunded (its refund requested).
        ReturnRefunded,
        /// A product became PUBLISHED: customers see it, its variants are sold.
        ProductPublished,
        /// A published product became a DRAFT or ARCHIVED: customers no longer see it.
        ProductUnpublished,
        /// A variant's price changed.
        VariantPriceChanged,
        /// A variant's stock reached 0.
        VariantSoldOut,
        /// A variant's stock rose from 0.
        VariantBackInStock,
    }
}

impl EventType {
    /// Whether its detail carries the order's lines as bought ([`StoreEvent::lines`]): an
    /// order placed, and what tells of some of its lines by SKU.
    pub fn tells_lines(self) -> bool {
        self == EventType::Placed
            || self.as_str().starts_with("fulfilment.")
            || self.as_str().starts_with("cancellation.")
            || self.as_str().starts_with("return.")
    }
}

impl EventType {
    /// As sent: `order.placed`, `refund.succeeded`, `product.stock-low`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::HoldStarted => "order.hold-started",
            EventType::Placed => "order.placed",
            EventType::Shipped => "order.shipped",
            EventType::Delivered => "order.delivered",
            EventType::Cancelled => "order.cancelled",
            EventType::HoldEnded => "order.hold-ended",
            EventType::PaymentFailed => "order.payment-failed",
            EventType::Disputed => "order.disputed",
            EventType::RefundRequested => "refund.requested",
            EventType::RefundSucceeded => "refund.succeeded",
            EventType::RefundFailed => "refund.failed",
            EventType::StockLow => "product.stock-low",
            EventType::PartiallyShipped => "order.partially-shipped",
            EventType::FulfilmentShipped => "fulfilment.shipped",
            EventType::FulfilmentInTransit => "fulfilment.in-transit",
            EventType::FulfilmentDelivered => "fulfilment.delivered",
            EventType::FulfilmentDeliveryFailed => "fulfilment.delivery-failed",
            EventType::TrackingUpdated => "fulfilment.tracking-updated",
            EventType::CancellationRecorded => "cancellation.recorded",
            EventType::ReturnRequested => "return.requested",
            EventType::ReturnApproved => "return.approved",
            EventType::ReturnDeclined => "return.declined",
            EventType::ReturnCanceled => "return.canceled",
            EventType::ReturnReceived => "return.received",
            EventType::ReturnRefunded => "return.refunded",
            EventType::ProductPublished => "product.published",
            EventType::ProductUnpublished => "product.unpublished",
            EventType::VariantPriceChanged => "variant.price-changed",
            EventType::VariantSoldOut => "variant.sold-out",
            EventType::VariantBackInStock => "variant.back-in-stock",
        }
    }

    /// The event an order's entering `status` is: every status but waiting for payment, which
    /// only a new order enters ([`EventType::of_new_order`]).
    pub fn of_status_change(status: OrderStatus) -> Option<Self> {
        match status {
            OrderStatus::Placed => Some(EventType::Placed),
            OrderStatus::PartiallyShipped => Some(EventType::PartiallyShipped),
            OrderStatus::Shipped => Some(EventType::Shipped),
            OrderStatus::Delivered => Some(EventType::Delivered),
            OrderStatus::Cancelled => Some(EventType::Cancelled),
            OrderStatus::Expired => Some(EventType::HoldEnded),
            OrderStatus::PendingPayment => None,
        }
    }

    /// The event a fulfilment's entering `status` is: every status but SHIPPED, which only a
    /// new fulfilment enters ([`EventType::FulfilmentShipped`]).
    pub fn of_fulfilment_status(status: FulfilmentStatus) -> Option<Self> {
        match status {
            FulfilmentStatus::Shipped => None,
            FulfilmentStatus::InTransit => Some(EventType::FulfilmentInTransit),
            FulfilmentStatus::Delivered => Some(EventType::FulfilmentDelivered),
            FulfilmentStatus::FailedDelivery => Some(EventType::FulfilmentDeliveryFailed),
        }
    }

    /// The event a return's entering `status` is.
    pub fn of_return_status(status: ReturnStatus) -> Self {
        match status {
            ReturnStatus::Requested => EventType::ReturnRequested,
            ReturnStatus::Approved => EventType::ReturnApproved,
            ReturnStatus::Declined => EventType::ReturnDeclined,
            ReturnStatus::Canceled => EventType::ReturnCanceled,
            ReturnStatus::Received => EventType::ReturnReceived,
            ReturnStatus::Refunded => EventType::ReturnRefunded,
        }
    }

    /// The event a new order in `status` is: a checkout's hold, or an order placed at once.
    pub fn of_new_order(status: OrderStatus) -> Option<Self> {
        match status {
            OrderStatus::PendingPayment => Some(EventType::HoldStarted),
            OrderStatus::Placed => Some(EventType::Placed),
            _ => None,
        }
    }
}

impl std::fmt::Display for EventType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for EventType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        EventType::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| format!("{s:?} is no event type of the store's"))
    }
}

impl Serialize for EventType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EventType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One event's `detail`: who and what it is about, and what a consumer needs without reading
/// the store back, in the forms the API answers (an order's `total` as `Money`, a refund's
/// `amount` in `MinorUnits`: docs/responses.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreEvent {
    /// The same on every delivery of the same change: a consumer drops what it has seen.
    pub event_id: EventId,
    /// What happened.
    #[serde(rename = "type")]
    pub kind: EventType,
    /// [`DETAIL_VERSION`].
    pub version: u32,
    /// When the change committed (the stream's time for it, to the second).
    pub occurred_at: Timestamp,
    /// Its place among its subject's events, from 1, without gaps (none for a product's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence: Option<u64>,
    /// The order it is about (an order's event, and a refund's of an order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<OrderId>,
    /// The order's customer (an order's event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer_id: Option<CustomerId>,
    /// The order as it is after the change, as `GET /orders/{orderId}` shows its header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Order>,
    /// The order's status before the change (a status change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_status: Option<OrderStatus>,
    /// What the order was charged besides its lines' prices (a checked-out order's event): its
    /// subtotal, discount, shipping and tax, as `GET /orders/{orderId}` shows them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charged: Option<crate::domain::pricing::quote::Charged>,
    /// What was ordered, as bought: each line's SKU, quantity, price, title and options
    /// (`order.placed`, and the events about some of an order's lines: its fulfilments',
    /// cancellations' and returns', whose own lines name SKUs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<LineItem>>,
    /// The refund as it is after the change, as `GET /orders/{orderId}/payments` lists it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund: Option<Refund>,
    /// The product's stock (`product.stock-low`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product: Option<StockLevel>,
    /// The product published or unpublished (`product.published`, `product.unpublished`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<ProductChange>,
    /// The variant whose price or stock changed (`variant.*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<VariantChange>,
    /// The fulfilment as it is after the change, as `GET /orders/{orderId}` shows it (a
    /// fulfilment's event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fulfilment: Option<Fulfilment>,
    /// The cancellation of lines (`cancellation.recorded`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancellation: Option<Cancellation>,
    /// The return as it is after the change (a return's event), as `GET /orders/{orderId}`
    /// shows it.
    #[serde(default, rename = "return", skip_serializing_if = "Option::is_none")]
    pub order_return: Option<OrderReturn>,
}

impl StoreEvent {
    /// An event of `kind` about `subject`, at `sequence` of it, committed `occurred_at`; about
    /// nothing else yet.
    pub fn new(kind: EventType, subject: &Subject, sequence: u64, occurred_at: Timestamp) -> Self {
        let counted = subject.counted();
        StoreEvent {
            event_id: subject.event_id(sequence),
            kind,
            version: DETAIL_VERSION,
            occurred_at,
            sequence: counted.then_some(sequence),
            order_id: None,
            customer_id: None,
            order: None,
            previous_status: None,
            charged: None,
            lines: None,
            refund: None,
            product: None,
            catalog: None,
            variant: None,
            fulfilment: None,
            cancellation: None,
            order_return: None,
        }
    }

    /// The order's event: about the order as it is after the change.
    pub fn about_order(self, order: &Order) -> Self {
        StoreEvent {
            order_id: Some(order.order_id.clone()),
            customer_id: Some(order.customer_id.clone()),
            order: Some(order.clone()),
            ..self
        }
    }

    /// The fulfilment's event: about the fulfilment as it is after the change, its order's and
    /// its customer's.
    pub fn about_fulfilment(
        self,
        order: &OrderId,
        customer: &CustomerId,
        fulfilment: &Fulfilment,
    ) -> Self {
        StoreEvent {
            order_id: Some(order.clone()),
            customer_id: Some(customer.clone()),
            fulfilment: Some(fulfilment.clone()),
            ..self
        }
    }

    /// The cancellation's event: about the cancellation, its order's and its customer's.
    pub fn about_cancellation(
        self,
        order: &OrderId,
        customer: &CustomerId,
        cancellation: &Cancellation,
    ) -> Self {
        StoreEvent {
            order_id: Some(order.clone()),
            customer_id: Some(customer.clone()),
            cancellation: Some(cancellation.clone()),
            ..self
        }
    }

    /// The return's event: about the return as it is after the change, its order's and its
    /// customer's.
    pub fn about_return(
        self,
        order: &OrderId,
        customer: &CustomerId,
        order_return: &OrderReturn,
    ) -> Self {
        StoreEvent {
            order_id: Some(order.clone()),
            customer_id: Some(customer.clone()),
            order_return: Some(order_return.clone()),
            ..self
        }
    }

    /// The refund's event: about the refund as it is after the change, and its order's.
    pub fn about_refund(self, refund: &Refund) -> Self {
        StoreEvent {
            order_id: refund.order_id.clone(),
            refund: Some(refund.clone()),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::{RefundId, Sku};

    #[test]
    fn every_type_has_its_own_name_under_its_subject_and_reads_back() {
        let names: std::collections::HashSet<_> =
            EventType::ALL.iter().map(|kind| kind.as_str()).collect();
        assert_eq!(names.len(), EventType::ALL.len());
        for kind in EventType::ALL {
            let name = kind.as_str();
            assert!(
                name.starts_with("order.")
                    || name.starts_with("refund.")
                    || name.starts_with("fulfilment.")
                    || name.starts_with("cancellation.")
                    || name.starts_with("return.")
                    || name.starts_with("product.")
                    || name.starts_with("variant."),
                "{name}"
            );
            assert_eq!(name.parse::<EventType>(), Ok(kind));
        }
        assert!("order.updated".parse::<EventType>().is_err());
    }

    #[test]
    fn event_ids_name_the_subject_and_its_place() {
        let order = Subject::Order(OrderId::parse("o1").expect("id"));
        assert_eq!(order.event_id(2).as_str(), "order/o1/2");
        let refund = Subject::Refund(RefundId::parse("r1").expect("id"));
        assert_eq!(refund.event_id(1).as_str(), "refund/r1/1");
        let product = Subject::Product {
            sku: Sku::parse("sku-1").expect("sku"),
            at: "4200".into(),
        };
        assert_eq!(product.event_id(0).as_str(), "product/sku-1/4200");
        for made in [order.event_id(2), refund.event_id(1), product.event_id(0)] {
            assert_eq!(EventId::parse(made.as_str()).expect("parses"), made);
        }
        for bad in [
            "",
            "order/o1",
            "order/o#1/2",
            "order/o1/x",
            "cart/c1/1",
            "order//1",
        ] {
            assert!(EventId::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_event_carries_only_what_it_is_about() {
        let at = Timestamp::parse("2026-12-04T10:00:00Z").expect("time");
        let order = Subject::Order(OrderId::parse("o1").expect("id"));
        let placed = StoreEvent::new(EventType::Placed, &order, 2, at);
        assert_eq!(
            serde_json::to_value(&placed).expect("json"),
            serde_json::json!({
                "eventId": "order/o1/2",
                "type": "order.placed",
                "version": 1,
                "occurredAt": "2026-12-04T10:00:00Z",
                "sequence": 2,
            })
        );
        let low = StoreEvent::new(
            EventType::StockLow,
            &Subject::Product {
                sku: Sku::parse("sku-1").expect("sku"),
                at: "77".into(),
            },
            0,
            at,
        );
        let json = serde_json::to_value(&low).expect("json");
        assert!(json.get("sequence").is_none(), "{json}");
        let back: StoreEvent = serde_json::from_value(json).expect("reads back");
        assert_eq!(back, low);
    }
}
