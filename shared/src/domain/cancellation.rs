//! Cancelled lines: unshipped units of a PLACED or PARTIALLY_SHIPPED order that will never
//! ship. Their stock goes back and (a paid order's) their refund is requested at the prices they
//! were ordered at, in the same transaction as the cancellation's record; the order's status
//! follows what is left (SHIPPED when the rest has shipped, CANCELLED when nothing shipped and
//! nothing is left).

use serde::{Deserialize, Serialize};

use crate::domain::ids::{CancellationId, RefundId};
use crate::domain::lines::LineQuantity;
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;

/// The most lines one cancellation may name: each is two actions of its transaction (the
/// line's counts, its product's stock), beside the cancellation, its refund, the header, the
/// listing and the customer's count, within DynamoDB's 100.
pub const MAX_CANCELLED_LINES: usize = 47;
/// The most cancellations one order may have: with the text caps, they keep the order's
/// partition under the 1 MB one Query reads.
pub const MAX_CANCELLATIONS_PER_ORDER: usize = 12;
const _: () = assert!(2 * MAX_CANCELLED_LINES + 5 <= 100);

/// Unshipped lines of an order cancelled at once, as its record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cancellation {
    /// Which one.
    pub cancellation_id: CancellationId,
    /// The units cancelled, in SKU order.
    pub lines: Vec<LineQuantity>,
    /// Why, in staff's words (the customer reads them).
    pub reason: String,
    /// Staff's note, for staff: never shown to the customer ([`crate::domain::text::note`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The refund it requested (a paid order's; none when nothing may go back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund_id: Option<RefundId>,
    /// When.
    pub cancelled_at: Timestamp,
}

/// What `POST /orders/{orderId}/cancellations` answers: the cancellation, the order's status
/// after it, and the refund it requested.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cancelled {
    /// The cancellation.
    #[serde(flatten)]
    pub cancellation: Cancellation,
    /// The order's status after it (SHIPPED when the rest has shipped; CANCELLED when nothing
    /// shipped and nothing is left).
    pub order_status: OrderStatus,
    /// The refund it requested, as it stands (a paid order's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund: Option<crate::domain::refund::Refund>,
}
