//! Refunds: money going back to a customer through the provider. Each refund is one record that
//! moves REQUESTED → PENDING → SUCCEEDED or FAILED, only forward, and from SUCCEEDED to REVERSED
//! when the provider reports that a refund it paid failed after all; an order's balance (what
//! was paid, what went back, what may still go back) is kept on its header, and changes in the
//! same transaction as the refund that changes it.

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::ids::{
    CancellationId, OrderId, PaymentEventId, PaymentId, ProviderRefundId, RefundId,
};
use crate::domain::lines::LineQuantity;
use crate::domain::time::Timestamp;

crate::listed! {
    /// Where a refund is.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum RefundStatus {
        /// Recorded, not yet sent to the provider.
        Requested,
        /// Sent (or being sent): the provider's answer is awaited, or says it is under way.
        Pending,
        /// The provider paid it back.
        Succeeded,
        /// The provider refused it, with its reason: the money stays with the store, and an
        /// order's balance (and the lines it gave back) are given back to it.
        Failed,
        /// The provider paid it, then reported that it failed after all (the customer's bank
        /// sent it back: a closed account, a lost card): the money is back with the store, and
        /// the order's balance and lines are given back, as for FAILED. Nothing moves it.
        Reversed,
    }
}

impl RefundStatus {
    /// As stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            RefundStatus::Requested => "REQUESTED",
            RefundStatus::Pending => "PENDING",
            RefundStatus::Succeeded => "SUCCEEDED",
            RefundStatus::Failed => "FAILED",
            RefundStatus::Reversed => "REVERSED",
        }
    }

    /// Whether the provider has said how it ended (SUCCEEDED, FAILED, REVERSED).
    pub fn is_settled(self) -> bool {
        matches!(
            self,
            RefundStatus::Succeeded | RefundStatus::Failed | RefundStatus::Reversed
        )
    }

    /// Whether its money is with the store (FAILED, REVERSED): none of it went back.
    pub fn gave_nothing_back(self) -> bool {
        matches!(self, RefundStatus::Failed | RefundStatus::Reversed)
    }
}

impl std::fmt::Display for RefundStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for RefundStatus {
    type Err = AppError;

    fn from_str(s: &str) -> Result<Self, AppError> {
        RefundStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| {
                AppError::invalid(format!(
                    "status must be one of REQUESTED, PENDING, SUCCEEDED, FAILED, REVERSED, not {s:?}"
                ))
            })
    }
}

crate::listed! {
    /// What a refund gives back.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum RefundKind {
        /// A signed payment that placed nothing ([`RefundReason`]): all of what it collected.
        Payment,
        /// A paid order cancelled: all of what may still go back.
        Cancellation,
        /// Staff gave back lines or an amount of a paid order.
        Staff,
        /// A return's receipt: what arrived, at the prices ordered.
        Return,
    }
}

impl RefundKind {
    /// As stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            RefundKind::Payment => "payment",
            RefundKind::Cancellation => "cancellation",
            RefundKind::Staff => "staff",
            RefundKind::Return => "return",
        }
    }

    /// Whether it comes out of its order's balance (a payment that placed nothing was never
    /// the order's).
    pub fn draws_on_balance(self) -> bool {
        !matches!(self, RefundKind::Payment)
    }
}

impl std::fmt::Display for RefundKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for RefundKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        RefundKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| format!("{s:?} is no refund kind"))
    }
}

crate::listed! {
    /// Why a signed payment placed nothing and is recorded to be given back.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum RefundReason {
        /// It names no order the store has.
        UnknownOrder,
        /// It is not of the PaymentIntent the store made for the order it names.
        UnknownPayment,
        /// Its amount is not the order's total.
        WrongAmount,
        /// Its currency is not the store's.
        WrongCurrency,
        /// The order's hold had ended (or was ending) when it arrived.
        HoldEnded,
        /// The order was not waiting for payment: paid already, or never a hold.
        NotPending,
    }
}

impl RefundReason {
    /// As stored and shown: `unknown-order`, `wrong-amount`, ….
    pub fn as_str(self) -> &'static str {
        match self {
            RefundReason::UnknownOrder => "unknown-order",
            RefundReason::UnknownPayment => "unknown-payment",
            RefundReason::WrongAmount => "wrong-amount",
            RefundReason::WrongCurrency => "wrong-currency",
            RefundReason::HoldEnded => "hold-ended",
            RefundReason::NotPending => "not-pending",
        }
    }

    /// A payment that arrived too late for its hold, rather than one that matches no hold.
    pub fn is_late(self) -> bool {
        matches!(self, RefundReason::HoldEnded | RefundReason::NotPending)
    }
}

impl std::fmt::Display for RefundReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for RefundReason {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        RefundReason::ALL
            .into_iter()
            .find(|reason| reason.as_str() == s)
            .ok_or_else(|| format!("{s:?} is no refund reason"))
    }
}

/// The metadata the store puts on each refund it sends: where its record is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct RefundMetadata {
    /// The store's refund.
    #[serde(rename = "refundId")]
    pub refund_id: Option<String>,
    /// Its order, for an order's refund.
    #[serde(rename = "orderId")]
    pub order_id: Option<String>,
    /// Its payment.
    #[serde(rename = "paymentId")]
    pub payment_id: Option<String>,
}

/// The reason a cancellation's refund gives.
pub const CANCELLED_REASON: &str = "order-cancelled";
/// The longest reason staff may give.
pub const MAX_REASON_CHARS: usize = 200;
/// Staff's reason from what a client sent: 1 to [`MAX_REASON_CHARS`] characters once trimmed,
/// none of them control characters.
pub fn staff_reason(raw: &str) -> Result<String, AppError> {
    let reason = raw.trim();
    if reason.is_empty()
        || reason.chars().count() > MAX_REASON_CHARS
        || reason.chars().any(char::is_control)
    {
        return Err(AppError::invalid(format!(
            "reason must be 1-{MAX_REASON_CHARS} characters, none of them control characters"
        )));
    }
    Ok(reason.to_owned())
}

/// The most refunds staff may give of one order (every refund drawing on its balance counts,
/// a cancellation's and a receipt's too, so those caps bound the rest): with the text caps,
/// its ledger stays far below the 1 MB one Query reads.
pub const MAX_REFUNDS_PER_ORDER: u32 = 20;

/// The most characters of why a refund failed, as its record keeps it (the provider's reasons
/// are short codes such as `expired_or_canceled_card`).
pub const MAX_FAILURE_CHARS: usize = 200;

/// Why a refund failed, as its record keeps it: the provider's words, at most
/// [`MAX_FAILURE_CHARS`] of them (the provider's text is not ours to bound).
pub fn kept_failure(failure: &str) -> String {
    failure.chars().take(MAX_FAILURE_CHARS).collect()
}

/// One refund, as its record holds it (and as a refund's event carries it, which a subscriber
/// reads back).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Refund {
    /// Its ID: the provider's `Idempotency-Key` and `metadata[refundId]`.
    pub refund_id: RefundId,
    /// The order whose partition keeps it (`None`: a payment that names no order the store
    /// has, kept under `REFUND#<paymentId>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<OrderId>,
    /// The payment it gives back from.
    pub payment_id: PaymentId,
    /// In the smallest unit of `currency`.
    pub amount: i64,
    /// Lowercase ISO 4217.
    pub currency: String,
    /// What it gives back.
    pub kind: RefundKind,
    /// Why: a [`RefundReason`] for a payment, `order-cancelled`, or staff's words (the customer
    /// reads them).
    pub reason: String,
    /// Staff's note, for staff: never shown to the customer ([`crate::domain::text::note`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Where it is.
    pub status: RefundStatus,
    /// The provider's refund, once it made one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_refund_id: Option<ProviderRefundId>,
    /// Why the provider refused it (FAILED only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// When it was recorded.
    pub requested_at: Timestamp,
    /// The event that reported the payment (a payment's refund only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_id: Option<PaymentEventId>,
    /// The lines it gives back (a staff refund by lines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<LineQuantity>,
    /// Whether its lines went back into stock.
    pub restock: bool,
    /// Of `amount`, what gives back the shipping (and its tax): a cancellation of everything
    /// before it shipped; 0 otherwise, and then not shown.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shipping: i64,
    /// The cancellation of lines that requested it (a cancellation's refund of some lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancellation_id: Option<CancellationId>,
    /// The return whose receipt requested it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_id: Option<crate::domain::ids::ReturnId>,
    /// How many times it was claimed for sending: each send is claimed first, so of two
    /// senders only one sends.
    #[serde(skip)]
    pub attempts: u32,
    /// When it was last claimed for sending.
    #[serde(skip)]
    pub sent_at: Option<Timestamp>,
}

fn is_zero(amount: &i64) -> bool {
    *amount == 0
}

impl Refund {
    /// A new REQUESTED refund.
    pub fn requested(
        refund_id: RefundId,
        order_id: Option<OrderId>,
        payment_id: PaymentId,
        amount: i64,
        currency: &str,
        kind: RefundKind,
        reason: String,
    ) -> Self {
        Refund {
            refund_id,
            order_id,
            payment_id,
            amount,
            currency: currency.to_owned(),
            kind,
            reason,
            note: None,
            status: RefundStatus::Requested,
            provider_refund_id: None,
            failure: None,
            requested_at: Timestamp::now(),
            event_id: None,
            lines: Vec::new(),
            restock: false,
            shipping: 0,
            cancellation_id: None,
            return_id: None,
            attempts: 0,
            sent_at: None,
        }
    }

    /// Why a payment's refund was recorded (`None` for the other kinds).
    pub fn payment_reason(&self) -> Option<RefundReason> {
        match self.kind {
            RefundKind::Payment => self.reason.parse().ok(),
            _ => None,
        }
    }
}

/// What staff ask to give back of a paid order: an amount, or lines (and whether they go back
/// into stock).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefundAsk {
    /// An amount in the smallest unit.
    Amount(i64),
    /// Lines and quantities: what was paid for those units (their price less their share of
    /// the discounts, plus their tax).
    Lines {
        /// The lines.
        lines: Vec<LineQuantity>,
        /// Whether their quantities go back into stock.
        restock: bool,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_and_kinds_read_as_they_are_written() {
        for status in RefundStatus::ALL {
            assert_eq!(status.as_str().parse::<RefundStatus>().ok(), Some(status));
        }
        for kind in RefundKind::ALL {
            assert_eq!(kind.as_str().parse::<RefundKind>().ok(), Some(kind));
        }
        assert!("requested".parse::<RefundStatus>().is_err());
    }

    #[test]
    fn a_refunds_id_follows_what_it_gives_back() {
        let order = OrderId::parse("o1").expect("id");
        let key = crate::domain::ids::IdempotencyKey::parse("k-1").expect("key");
        let other = crate::domain::ids::IdempotencyKey::parse("k-2").expect("key");
        assert_eq!(
            RefundId::of_payment(&PaymentId::parse("pi_1").expect("id")).as_str(),
            "pay_pi_1"
        );
        assert_eq!(RefundId::of_cancellation(&order).as_str(), "cancel_o1");
        let first = RefundId::of_request(&order, &key);
        assert_eq!(first, RefundId::of_request(&order, &key));
        assert_ne!(first, RefundId::of_request(&order, &other));
        assert!(first.as_str().starts_with("rf_") && first.as_str().len() == 35);
    }

    #[test]
    fn refund_reasons_round_trip() {
        for reason in RefundReason::ALL {
            assert_eq!(reason.as_str().parse::<RefundReason>(), Ok(reason));
        }
        assert!(RefundReason::HoldEnded.is_late() && !RefundReason::WrongAmount.is_late());
    }
}
