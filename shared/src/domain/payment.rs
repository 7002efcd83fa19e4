//! Payments, as the provider reports them: the event a signed webhook carries, what it means
//! for a hold, and the payments the store must give back.

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::ids::{OrderId, PaymentEventId, PaymentId};
use crate::domain::provider_refund::ProviderRefund;

crate::listed! {
    /// The provider event types the store acts on; an event of any other type is acknowledged
    /// and ignored ([`EventOutcome::Ignored`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum EventType {
        /// `payment_intent.succeeded`: a payment collected, which pays for its hold.
        PaymentSucceeded,
        /// `payment_intent.payment_failed`: an attempt to pay declined; the hold stays, and the
        /// provider's reason is shown on the order.
        PaymentFailed,
        /// `payment_intent.canceled`: the provider canceled a PaymentIntent; its hold ends now.
        PaymentCanceled,
        /// `refund.updated`: a refund's outcome (succeeded, failed or canceled).
        RefundUpdated,
        /// `refund.failed`: a refund failed, possibly one reported as succeeded before.
        RefundFailed,
        /// `charge.refunded`: a charge refunded, with its refunds.
        ChargeRefunded,
        /// `charge.dispute.created`: the payer's bank contests a payment; its order is flagged.
        DisputeCreated,
    }
}

impl EventType {
    /// As the provider spells it in the event's `type`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::PaymentSucceeded => "payment_intent.succeeded",
            EventType::PaymentFailed => "payment_intent.payment_failed",
            EventType::PaymentCanceled => "payment_intent.canceled",
            EventType::RefundUpdated => "refund.updated",
            EventType::RefundFailed => "refund.failed",
            EventType::ChargeRefunded => "charge.refunded",
            EventType::DisputeCreated => "charge.dispute.created",
        }
    }

    /// The type the provider spelled `raw`, if the store acts on it.
    pub fn of(raw: &str) -> Option<Self> {
        EventType::ALL.into_iter().find(|kind| kind.as_str() == raw)
    }
}

impl std::fmt::Display for EventType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

crate::listed! {
    /// What a signed provider event came to: the webhook's answer, and (for the two that change
    /// the table) what the event's record keeps.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum EventOutcome {
        /// The payment placed the order it paid for.
        Placed,
        /// The payment placed nothing and is recorded to be given back.
        RefundDue,
        /// An attempt to pay a hold failed: the provider's reason is on the order, which still
        /// waits for payment.
        PaymentFailed,
        /// The event was applied already: nothing changed.
        Replayed,
        /// A refund's outcome recorded (forward only).
        RefundSettled,
        /// The provider canceled the PaymentIntent of a hold: the hold ended, its stock back.
        HoldEnded,
        /// A payment is disputed: the order it placed is flagged (or, when the store knows no
        /// order of it, the dispute is logged and counted all the same).
        Disputed,
        /// The store does not act on the event's type, or the event moves nothing forward.
        Ignored,
        /// The event is signed but the store could not read it: kept as signed for a person to
        /// look at, so that it is not lost.
        Unreadable,
    }
}

impl EventOutcome {
    /// As answered and stored: `placed`, `refund-due`, `replayed`, `ignored`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventOutcome::Placed => "placed",
            EventOutcome::RefundDue => "refund-due",
            EventOutcome::PaymentFailed => "payment-failed",
            EventOutcome::RefundSettled => "refund-settled",
            EventOutcome::HoldEnded => "hold-ended",
            EventOutcome::Disputed => "disputed",
            EventOutcome::Replayed => "replayed",
            EventOutcome::Ignored => "ignored",
            EventOutcome::Unreadable => "unreadable",
        }
    }
}

impl std::fmt::Display for EventOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How long an event's ID is remembered, so that a redelivery changes nothing: a week, longer
/// than the provider's three days of retries.
pub const EVENT_TTL_SECONDS: u64 = 7 * 24 * 60 * 60;

/// A provider event, as its webhook body carries it (only what the store reads).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ProviderEvent {
    /// The event's ID: applied at most once.
    pub id: PaymentEventId,
    /// What happened, as the provider spells it: one of the [`EventType`]s, or another type the
    /// store ignores ([`ProviderEvent::event_type`]).
    #[serde(rename = "type")]
    pub kind: String,
    /// The object the event is about.
    pub data: EventData,
}

/// The event's `data`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct EventData {
    /// For a payment event, the payment; anything else is read only as far as the type.
    pub object: serde_json::Value,
}

/// A succeeded payment, as `data.object` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Payment {
    /// The payment's ID.
    pub id: PaymentId,
    /// In the currency's smallest unit.
    pub amount: i64,
    /// Lowercase ISO 4217.
    pub currency: String,
    /// What it collected, in the smallest unit, as the provider's API versions since 2019 say
    /// it ([`Payment::received`]).
    #[serde(default)]
    pub amount_received: Option<i64>,
    /// Its charges, as older API versions (localstripe's 2017-08-15) list them instead.
    #[serde(default)]
    pub charges: Option<Charges>,
    /// What the store put on the payment when it asked for it.
    #[serde(default)]
    pub metadata: PaymentMetadata,
    /// Why the last attempt to pay failed, when one did.
    #[serde(default)]
    pub last_payment_error: Option<PaymentError>,
}

/// Why an attempt to pay failed, in the provider's words.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PaymentError {
    /// The provider's message for the customer (`Your card was declined.`).
    #[serde(default)]
    pub message: Option<String>,
}

/// What an event the store acts on reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reported {
    /// A payment collected.
    Succeeded(Payment),
    /// An attempt to pay failed.
    Failed(Payment),
    /// The provider canceled a PaymentIntent.
    Canceled(Payment),
    /// Refunds' outcomes (a `refund.updated`'s one, a `charge.refunded`'s list).
    Refunds(Vec<ProviderRefund>),
    /// A payment disputed.
    Disputed(Dispute),
}

/// A dispute, as a `charge.dispute.created` event's object describes it: the payer's bank
/// contests a payment, and its amount is held from the store until the dispute is decided.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Dispute {
    /// The provider's dispute.
    pub id: crate::domain::ids::DisputeId,
    /// What is contested, in the smallest unit.
    pub amount: i64,
    /// Lowercase ISO 4217.
    pub currency: String,
    /// The PaymentIntent whose charge is contested (absent for a charge made without one).
    #[serde(default)]
    pub payment_intent: Option<PaymentId>,
    /// The bank's reason, as the provider names it (`fraudulent`, `product_not_received`...).
    pub reason: String,
}

/// A charge, as a `charge.refunded` event's object describes it: its PaymentIntent, and its
/// refunds.
#[derive(Debug, Clone, Deserialize)]
struct RefundedCharge {
    #[serde(default)]
    payment_intent: Option<PaymentId>,
    #[serde(default)]
    refunds: Option<RefundList>,
}

#[derive(Debug, Clone, Deserialize)]
struct RefundList {
    #[serde(default)]
    data: Vec<ProviderRefund>,
}

impl RefundedCharge {
    /// Its refunds, each of the charge's PaymentIntent where it names none itself.
    fn refunds(self) -> Vec<ProviderRefund> {
        let intent = self.payment_intent;
        let mut refunds = self.refunds.map(|list| list.data).unwrap_or_default();
        for refund in &mut refunds {
            if refund.payment_intent.is_none() {
                refund.payment_intent.clone_from(&intent);
            }
        }
        refunds
    }
}

/// A PaymentIntent's charges, in the older API versions' list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Charges {
    /// The charges.
    #[serde(default)]
    pub data: Vec<Charge>,
}

/// One charge of a PaymentIntent, as far as what it collected.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Charge {
    /// In the smallest unit.
    pub amount: i64,
    /// Whether the money was taken (not only authorized).
    #[serde(default)]
    pub captured: bool,
    /// `succeeded`, `pending` or `failed`.
    pub status: String,
}

/// The metadata the store puts on a payment: which order it pays for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct PaymentMetadata {
    /// The order the payment is for (a text that is no valid order ID names no order).
    #[serde(rename = "orderId")]
    pub order_id: Option<String>,
}

impl ProviderEvent {
    /// The event of a webhook body; a 400 when it is not one.
    pub fn parse(body: &[u8]) -> Result<Self, AppError> {
        serde_json::from_slice(body)
            .map_err(|err| AppError::invalid(format!("the body is not a provider event: {err}")))
    }

    /// The event's type, if the store acts on it.
    pub fn event_type(&self) -> Option<EventType> {
        EventType::of(&self.kind)
    }

    /// What the event reports, when the store acts on its type (`None`: acknowledged and
    /// ignored); an error when its object is not a payment.
    pub fn reported(&self) -> Result<Option<Reported>, AppError> {
        let Some(kind) = self.event_type() else {
            return Ok(None);
        };
        let object = || self.data.object.clone();
        let unread = |what: &str, err: serde_json::Error| {
            AppError::invalid(format!("data.object is not {what}: {err}"))
        };
        let payment = || -> Result<Payment, AppError> {
            serde_json::from_value(object()).map_err(|err| unread("a payment", err))
        };
        Ok(Some(match kind {
            EventType::PaymentSucceeded => Reported::Succeeded(payment()?),
            EventType::PaymentFailed => Reported::Failed(payment()?),
            EventType::PaymentCanceled => Reported::Canceled(payment()?),
            EventType::RefundUpdated | EventType::RefundFailed => Reported::Refunds(vec![
                serde_json::from_value(object()).map_err(|err| unread("a refund", err))?,
            ]),
            EventType::ChargeRefunded => {
                let charge: RefundedCharge =
                    serde_json::from_value(object()).map_err(|err| unread("a charge", err))?;
                Reported::Refunds(charge.refunds())
            }
            EventType::DisputeCreated => Reported::Disputed(
                serde_json::from_value(object()).map_err(|err| unread("a dispute", err))?,
            ),
        }))
    }

    /// The payment, when the event is a succeeded one; an error when its object is not a
    /// payment.
    pub fn succeeded_payment(&self) -> Result<Option<Payment>, AppError> {
        Ok(match self.reported()? {
            Some(Reported::Succeeded(payment)) => Some(payment),
            _ => None,
        })
    }
}

/// The body the provider sends when `payment` of `amount` (smallest unit) in `currency`
/// succeeds for `order`: what `store-pay`, the tests and the load run sign and send.
pub fn succeeded_event_body(
    event: &str,
    payment: &str,
    amount: i64,
    currency: &str,
    order: &str,
) -> String {
    serde_json::json!({
        "id": event,
        "object": "event",
        "type": EventType::PaymentSucceeded.as_str(),
        "data": {"object": {
            "id": payment,
            "object": "payment_intent",
            "amount": amount,
            "amount_received": amount,
            "currency": currency,
            "status": "succeeded",
            "metadata": {"orderId": order},
        }},
    })
    .to_string()
}

/// The longest reason of a failed payment kept on an order.
pub const MAX_PAYMENT_ERROR_CHARS: usize = 500;

impl Payment {
    /// Why its last attempt failed, as the order shows it: the provider's message (at most
    /// [`MAX_PAYMENT_ERROR_CHARS`]), or that it was declined.
    pub fn failure(&self) -> String {
        self.last_payment_error
            .as_ref()
            .and_then(|error| error.message.as_deref())
            .unwrap_or("the payment was declined")
            .chars()
            .take(MAX_PAYMENT_ERROR_CHARS)
            .collect()
    }

    /// What the payment collected: `amount_received`, or where the provider's API version has
    /// none, the sum of its captured, succeeded charges. `None` when the event says neither: no
    /// collection is proven, and nothing is placed on it.
    pub fn received(&self) -> Option<i64> {
        if let Some(received) = self.amount_received {
            return Some(received);
        }
        self.charges.as_ref().map(|charges| {
            charges
                .data
                .iter()
                .filter(|charge| charge.captured && charge.status == "succeeded")
                .map(|charge| charge.amount)
                .sum()
        })
    }

    /// The order the payment names, if it names a valid order ID.
    pub fn order_id(&self) -> Option<OrderId> {
        self.metadata
            .order_id
            .as_deref()
            .and_then(|raw| OrderId::parse(raw).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_succeeded_payment_is_read_from_the_providers_event() {
        let body = br#"{"id":"evt_1","object":"event","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1","object":"payment_intent","amount":1995,"currency":"usd","metadata":{"orderId":"o1"}}}}"#;
        let event = ProviderEvent::parse(body).expect("event");
        assert_eq!(event.id.as_str(), "evt_1");
        let payment = event
            .succeeded_payment()
            .expect("reads")
            .expect("a payment");
        assert_eq!((payment.amount, payment.currency.as_str()), (1995, "usd"));
        assert_eq!(
            payment.order_id().map(|o| o.to_string()).as_deref(),
            Some("o1")
        );
    }

    #[test]
    fn other_events_are_not_payments_and_bad_ones_are_refused() {
        let other = br#"{"id":"evt_2","type":"charge.refunded","data":{"object":{"id":"ch_1"}}}"#;
        let event = ProviderEvent::parse(other).expect("event");
        assert_eq!(event.succeeded_payment().expect("reads"), None);
        let no_order = br#"{"id":"evt_3","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1","amount":5,"currency":"usd"}}}"#;
        let payment = ProviderEvent::parse(no_order)
            .expect("event")
            .succeeded_payment()
            .expect("reads")
            .expect("payment");
        assert_eq!(payment.order_id(), None);
        let bad_order = br#"{"id":"evt_3","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1","amount":5,"currency":"usd","metadata":{"orderId":"a#b"}}}}"#;
        let payment = ProviderEvent::parse(bad_order)
            .expect("event")
            .succeeded_payment()
            .expect("reads")
            .expect("payment");
        assert_eq!(payment.order_id(), None);
        for bad in [
            &b"not json"[..],
            br#"{"type":"x","data":{"object":{}}}"#,
            br#"{"id":"evt#1","type":"x","data":{"object":{}}}"#,
        ] {
            assert!(ProviderEvent::parse(bad).is_err());
        }
        let not_a_payment = br#"{"id":"evt_4","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1","amount":"5"}}}"#;
        assert!(
            ProviderEvent::parse(not_a_payment)
                .expect("event")
                .succeeded_payment()
                .is_err()
        );
    }

    #[test]
    fn what_a_payment_collected_is_its_amount_received_or_its_captured_charges() {
        let read = |object: &str| {
            let body = format!(
                r#"{{"id":"evt_1","type":"payment_intent.succeeded","data":{{"object":{object}}}}}"#
            );
            ProviderEvent::parse(body.as_bytes())
                .expect("event")
                .succeeded_payment()
                .expect("reads")
                .expect("a payment")
                .received()
        };
        let current = r#"{"id":"pi_1","amount":25000,"amount_received":1,"currency":"usd"}"#;
        assert_eq!(read(current), Some(1));
        let older = r#"{"id":"pi_1","amount":4395,"currency":"usd","charges":{"data":[
            {"amount":4395,"captured":true,"status":"succeeded"},
            {"amount":4395,"captured":false,"status":"succeeded"},
            {"amount":4395,"captured":true,"status":"failed"}]}}"#;
        assert_eq!(read(older), Some(4395));
        assert_eq!(read(r#"{"id":"pi_1","amount":5,"currency":"usd"}"#), None);
    }

    #[test]
    fn event_types_are_read_as_the_provider_spells_them_and_outcomes_as_answered() {
        for kind in EventType::ALL {
            assert_eq!(EventType::of(kind.as_str()), Some(kind));
        }
        assert_eq!(
            EventType::of("charge.dispute.created"),
            Some(EventType::DisputeCreated)
        );
        assert_eq!(EventType::of("charge.dispute.closed"), None);
        for outcome in EventOutcome::ALL {
            assert_eq!(
                serde_json::to_value(outcome).expect("serializes"),
                serde_json::Value::from(outcome.as_str())
            );
        }
    }
}
