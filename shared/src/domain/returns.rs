//! Returns: the customer sends delivered units back. A return is asked for within the return
//! window of the units' delivery (REQUESTED), approved or declined by staff, or canceled by the
//! customer before it is received; staff then record what arrived (RECEIVED): the units
//! received and not damaged go back into stock, and, when asked, what arrived is refunded at
//! the prices ordered through the money path (REFUNDED). States only move forward.

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::ids::{RefundId, ReturnId, Sku};
use crate::domain::lines::LineQuantity;
use crate::domain::time::Timestamp;

crate::listed! {
    /// Where a return is.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum ReturnStatus as "status" {
        /// Asked for by the customer; staff have not decided.
        Requested = "REQUESTED",
        /// Staff expect the units back.
        Approved = "APPROVED",
        /// The units arrived and were counted; nothing was refunded by it.
        Received = "RECEIVED",
        /// The units arrived and what arrived was refunded (its refund requested).
        Refunded = "REFUNDED",
        /// Staff refused it.
        Declined = "DECLINED",
        /// The customer withdrew it before it was received.
        Canceled = "CANCELED",
    }
}

/// Who moves a return: the order's customer, or staff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnActor {
    /// The order's customer.
    Customer,
    /// Staff.
    Staff,
}

impl ReturnStatus {
    /// Whether its units count against what of a line may still be returned.
    pub fn claims_units(self) -> bool {
        !matches!(self, ReturnStatus::Declined | ReturnStatus::Canceled)
    }

    /// Whether `actor` may move a return from this status to `next` by `PATCH`: staff approve
    /// or decline what was asked for; the customer cancels what was not received yet. Receipt
    /// is its own request (`plan_receipt`).
    pub fn may_become(self, next: ReturnStatus, actor: ReturnActor) -> bool {
        use ReturnStatus::*;
        match actor {
            ReturnActor::Staff => matches!((self, next), (Requested, Approved | Declined)),
            ReturnActor::Customer => matches!((self, next), (Requested | Approved, Canceled)),
        }
    }
}

/// The most days after delivery a return may be asked for, unless the deployment says
/// otherwise (template parameter `ReturnWindowDays`).
pub const DEFAULT_RETURN_WINDOW_DAYS: u32 = 30;

/// The most lines one return may name: its receipt is two actions per line (the line's counts,
/// its product's stock) beside the return, its refund, the header and the listing.
pub const MAX_RETURN_LINES: usize = 47;
const _: () = assert!(2 * MAX_RETURN_LINES + 4 <= 100);

/// The most returns one order may have, whatever became of them (a canceled or declined one
/// still has its record): with the text caps, they keep the order's partition under the 1 MB
/// one Query reads.
pub const MAX_RETURNS_PER_ORDER: usize = 12;

/// What arrived of one line of a return.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReceivedLine {
    /// Which line.
    pub sku: Sku,
    /// How many units arrived.
    pub received: u32,
    /// How many of those arrived damaged: they do not go back into stock.
    #[serde(default)]
    pub damaged: u32,
}

/// A return of an order's delivered units, as its record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderReturn {
    /// Which one.
    pub return_id: ReturnId,
    /// Where it is.
    pub status: ReturnStatus,
    /// The units asked to return, in SKU order.
    pub lines: Vec<LineQuantity>,
    /// Why, in the customer's words.
    pub reason: String,
    /// Staff's note on it (their decision, what arrived), for staff: never shown to the customer ([`crate::domain::text::note`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// When it was asked for.
    pub requested_at: Timestamp,
    /// When its status last changed.
    pub updated_at: Timestamp,
    /// What arrived, in SKU order (once received).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub received: Vec<ReceivedLine>,
    /// The refund its receipt requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund_id: Option<RefundId>,
    /// Where that refund is, read with the order ([`OrderDetails::show_refunds_of_returns`]):
    /// a REFUNDED return whose refund FAILED says so. Never stored on the return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund_status: Option<crate::domain::refund::RefundStatus>,
    /// How many events it has given (its record's counter): each move of it adds one, made
    /// only if the counter is still the one read.
    #[serde(skip)]
    pub event_sequence: u64,
}

impl OrderReturn {
    /// A new return of `lines`, asked for `now`.
    pub fn requested(
        return_id: ReturnId,
        mut lines: Vec<LineQuantity>,
        reason: String,
        now: Timestamp,
    ) -> Self {
        lines.sort_by(|a, b| a.sku.cmp(&b.sku));
        Self {
            return_id,
            status: ReturnStatus::Requested,
            lines,
            reason,
            note: None,
            requested_at: now,
            updated_at: now,
            received: Vec::new(),
            refund_id: None,
            refund_status: None,
            event_sequence: 1,
        }
    }

    /// This return as `caller` is answered it: without staff's note unless they are staff.
    pub fn seen_by(mut self, caller: &crate::domain::access::Caller) -> Self {
        if !caller.is_staff() {
            self.note = None;
        }
        self
    }

    /// This return with staff's `note`, when they gave one (it replaces the return's).
    pub fn noted(mut self, note: &Option<String>) -> Self {
        if note.is_some() {
            self.note.clone_from(note);
        }
        self
    }

    /// How many of `sku` it asks to return.
    pub fn quantity_of(&self, sku: &Sku) -> u32 {
        self.lines
            .iter()
            .filter(|line| line.sku == *sku)
            .map(|line| line.quantity)
            .sum()
    }

    /// This return moved by `actor` to `next` at `now`: a 403 for a move only the other side
    /// may make, a 409 for one its status cannot make.
    pub fn moved(
        &self,
        next: ReturnStatus,
        actor: ReturnActor,
        now: Timestamp,
    ) -> Result<Self, AppError> {
        if !self.status.may_become(next, actor) {
            let other = match actor {
                ReturnActor::Customer => ReturnActor::Staff,
                ReturnActor::Staff => ReturnActor::Customer,
            };
            if self.status.may_become(next, other) {
                return Err(AppError::Forbidden(match actor {
                    ReturnActor::Customer => format!("only staff may set a return {next}"),
                    ReturnActor::Staff => format!("only the customer may set a return {next}"),
                }));
            }
            return Err(AppError::MoveRefused(format!(
                "return {} is {} and cannot become {next}",
                self.return_id, self.status
            )));
        }
        let mut moved = self.clone();
        moved.status = next;
        moved.updated_at = now;
        moved.event_sequence += 1;
        Ok(moved)
    }

    /// This return as received at `now`: what arrived, and the refund requested (if any).
    pub fn receipt(
        &self,
        received: Vec<ReceivedLine>,
        refund_id: Option<RefundId>,
        now: Timestamp,
    ) -> Self {
        let mut after = self.clone();
        after.status = if refund_id.is_some() {
            ReturnStatus::Refunded
        } else {
            ReturnStatus::Received
        };
        after.received = received;
        after.refund_id = refund_id;
        after.updated_at = now;
        after.event_sequence += 1;
        after
    }
}

/// What `POST /orders/{orderId}/returns/{returnId}/receipt` answers: the return as received,
/// and the refund it requested, as it stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Received {
    /// The return.
    #[serde(flatten)]
    pub order_return: OrderReturn,
    /// Its refund (none: not asked, an unpaid order, or nothing of it may still go back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund: Option<crate::domain::refund::Refund>,
}

/// A return as staff's work list shows it (access pattern 11): with its order and customer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedReturn {
    /// Its order.
    pub order_id: crate::domain::ids::OrderId,
    /// The order's customer.
    pub customer_id: crate::domain::ids::CustomerId,
    /// The return.
    #[serde(flatten)]
    pub order_return: OrderReturn,
}

/// What a receipt asks: what arrived, and whether to refund it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    /// What arrived, line by line (a line of the return not named: nothing of it arrived).
    pub lines: Vec<ReceivedLine>,
    /// Whether what arrived is refunded.
    pub refund: bool,
}

/// What arrived, as asked: at least one line, each SKU once, in SKU order (a 400 otherwise).
pub fn received_lines(mut lines: Vec<ReceivedLine>) -> Result<Vec<ReceivedLine>, AppError> {
    if lines.is_empty() {
        return Err(AppError::invalid(
            "lines must name what arrived (received 0 for a line that did not)",
        ));
    }
    lines.sort_by(|a, b| a.sku.cmp(&b.sku));
    if lines.windows(2).any(|pair| pair[0].sku == pair[1].sku) {
        return Err(AppError::invalid("each line may be named once"));
    }
    if lines.len() > MAX_RETURN_LINES {
        return Err(AppError::invalid(format!(
            "a receipt names at most {MAX_RETURN_LINES} lines"
        )));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::test_support::{at, requested};

    #[test]
    fn only_forward_moves_are_allowed_and_each_by_its_side() {
        use ReturnStatus::*;
        let moves = |actor| {
            ReturnStatus::ALL
                .into_iter()
                .flat_map(|from| ReturnStatus::ALL.into_iter().map(move |to| (from, to)))
                .filter(|(from, to)| from.may_become(*to, actor))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            moves(ReturnActor::Staff),
            [(Requested, Approved), (Requested, Declined)]
        );
        assert_eq!(
            moves(ReturnActor::Customer),
            [(Requested, Canceled), (Approved, Canceled)]
        );
        let now = at("2026-11-22T10:00:00Z");
        let ret = requested("rt_1", &[("a", 1)]);
        let refused = ret
            .moved(Approved, ReturnActor::Customer, now)
            .expect_err("a customer approves nothing");
        assert!(matches!(refused, AppError::Forbidden(_)), "{refused:?}");
        let approved = ret.moved(Approved, ReturnActor::Staff, now).expect("staff");
        assert_eq!((approved.status, approved.event_sequence), (Approved, 2));
        let refused = approved
            .moved(Declined, ReturnActor::Staff, now)
            .expect_err("decided already");
        assert!(matches!(refused, AppError::MoveRefused(_)), "{refused:?}");
    }
}
