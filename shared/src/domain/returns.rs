//! Returns: the customer sends delivered units back. A return is asked for within the return
//! window of the units' delivery (REQUESTED), approved or declined by staff, or canceled by the
//! customer before it is received; staff then record what arrived (RECEIVED): the units
//! received and not damaged go back into stock, and, when asked, what arrived is refunded at
//! the prices ordered through the money path (REFUNDED). States only move forward.

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::checkout::Currency;
use crate::domain::fulfilment::FulfilmentStatus;
use crate::domain::ids::{RefundId, ReturnId, Sku};
use crate::domain::ledger::{PlannedLine, RefundPlan};
use crate::domain::order::{LineItem, LineQuantity, OrderDetails};
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

impl OrderDetails {
    /// Each return with its refund's status as the order's refunds say, for whoever reads the
    /// order (the status a return's record cannot follow: a refund settles after its receipt).
    pub fn show_refunds_of_returns(&mut self) {
        for ret in &mut self.returns {
            ret.refund_status = ret.refund_id.as_ref().and_then(|id| {
                (self.money.refunds.iter())
                    .find(|refund| refund.refund_id == *id)
                    .map(|refund| refund.status)
            });
        }
    }

    /// The return `id` of this order.
    pub fn order_return(&self, id: &ReturnId) -> Option<&OrderReturn> {
        self.returns.iter().find(|r| r.return_id == *id)
    }

    /// How many of `line` may still be returned at `now`: its units delivered within `window`
    /// days (any time: `None`, staff recording a return past the window), less every unit of it
    /// already in a return that was not declined or canceled (counted against the latest
    /// deliveries first: never more than arrived within the window). An order DELIVERED before
    /// fulfilments existed has no delivery date to count a window from: staff may record a
    /// return of its units (all it kept: ordered, less cancelled); its customer asks staff.
    pub fn returnable(&self, line: &LineItem, now: Timestamp, window: Option<u32>) -> u32 {
        let since = window.map(|days| now.minus_days(days));
        let delivered_undated = self.fulfilments.is_empty()
            && self.order.status == crate::domain::status::OrderStatus::Delivered
            && window.is_none();
        let in_window: u32 = if delivered_undated {
            line.quantity
                .saturating_sub(self.money.back(&line.sku).cancelled)
        } else {
            self.fulfilments
                .iter()
                .filter(|f| f.status == FulfilmentStatus::Delivered)
                .filter(|f| {
                    f.delivered_at
                        .as_ref()
                        .is_some_and(|at| since.as_ref().is_none_or(|since| at >= since))
                })
                .map(|f| f.quantity_of(&line.sku))
                .sum()
        };
        let claimed: u32 = self
            .returns
            .iter()
            .filter(|r| r.status.claims_units())
            .map(|r| r.quantity_of(&line.sku))
            .sum();
        in_window.saturating_sub(claimed)
    }

    /// Checks that `asked` may be returned at `now` within `window` days of delivery (`None`:
    /// whenever delivered): a 400 for a line the order does not have, a 409 for more of a line
    /// than may be returned (naming what may).
    pub fn check_return(
        &self,
        asked: &[LineQuantity],
        now: Timestamp,
        window: Option<u32>,
    ) -> Result<(), AppError> {
        if self.returns.len() >= MAX_RETURNS_PER_ORDER {
            return Err(AppError::CapReached(format!(
                "order {} has {MAX_RETURNS_PER_ORDER} returns (canceled and declined ones too), the most one order may have",
                self.order.order_id
            )));
        }
        for ask in asked {
            let line = self.line(&ask.sku)?;
            let left = self.returnable(line, now, window);
            if ask.quantity > left {
                let delivered = match window {
                    Some(days) => format!("units delivered in the last {days} days"),
                    None => "units delivered".to_owned(),
                };
                return Err(AppError::LinesRefused(format!(
                    "{} of {} asked to return, and {left} may be: {delivered}, less those already in returns",
                    ask.quantity, ask.sku
                )));
            }
        }
        Ok(())
    }

    /// `ret` as `receipt` received it already, with its refund as it stands now: what a retry
    /// of that receipt answers. `None` unless `ret` was received with exactly these lines, and
    /// refunded or not as asked (any other receipt of a received return is refused by
    /// [`OrderDetails::plan_receipt`]).
    pub fn receipt_replayed(&self, ret: &OrderReturn, receipt: &Receipt) -> Option<Received> {
        let received = matches!(ret.status, ReturnStatus::Received | ReturnStatus::Refunded);
        let refund = ret.refund_id.as_ref().and_then(|id| {
            self.money
                .refunds
                .iter()
                .find(|refund| refund.refund_id == *id)
        });
        // Asked to refund, nothing may have been refunded (an unpaid order, nothing left): the
        // return is RECEIVED then too.
        let refund_as_asked = receipt.refund || refund.is_none();
        (received && ret.received == receipt.lines && refund_as_asked).then(|| Received {
            order_return: ret.clone(),
            refund: refund.cloned(),
        })
    }

    /// What receiving `receipt` of `ret` gives back, as read: each line's units returned,
    /// those received and not damaged back into stock, and (asked, paid) what arrived refunded
    /// at the price ordered, at most what of the line and the balance may still go back. A 409
    /// unless the return is APPROVED; a 400 for a line the return does not name, more received
    /// than it asked, or more damaged than received.
    pub fn plan_receipt(
        &self,
        ret: &OrderReturn,
        receipt: &Receipt,
        currency: &Currency,
    ) -> Result<RefundPlan, AppError> {
        if ret.status != ReturnStatus::Approved {
            return Err(AppError::MoveRefused(format!(
                "return {} is {}: only an APPROVED return is received",
                ret.return_id, ret.status
            )));
        }
        let refunds = receipt.refund && self.money.balance.paid.is_some();
        let mut amount = 0i64;
        let mut lines = Vec::with_capacity(receipt.lines.len());
        for got in &receipt.lines {
            let asked = ret.quantity_of(&got.sku);
            if asked == 0 {
                return Err(AppError::invalid(format!(
                    "return {} has no line {}",
                    ret.return_id, got.sku
                )));
            }
            if got.received > asked || got.damaged > got.received {
                return Err(AppError::invalid(format!(
                    "{}: {} received of {asked} asked, {} damaged: received may be at most what was asked, damaged at most what was received",
                    got.sku, got.received, got.damaged
                )));
            }
            let line = self.line(&got.sku)?;
            let back = self.money.back(&got.sku);
            let refunded = if refunds {
                got.received
                    .min(line.quantity.saturating_sub(back.refunded))
            } else {
                0
            };
            amount = currency
                .minor_units(line.price)?
                .checked_mul(i64::from(refunded))
                .and_then(|line_amount| amount.checked_add(line_amount))
                .ok_or_else(|| AppError::invalid("the refund's amount is out of range"))?;
            lines.push(PlannedLine {
                line: line.clone(),
                quantity: refunded,
                // Each undamaged unit that arrived is back on the shelf; a damaged one is not.
                restock: got.received - got.damaged,
                restocked: back.restocked,
                cancelled: 0,
                returned: got.received,
            });
        }
        let restock = lines.iter().any(|planned| planned.restock > 0);
        Ok(RefundPlan {
            amount: amount.min(self.money.balance.refundable.max(0)),
            lines,
            restock,
        })
    }
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
    use crate::domain::fulfilment::{Fulfilment, Tracking};
    use crate::domain::ids::{CustomerId, FulfilmentId, OrderId};
    use crate::domain::money::Money;
    use crate::domain::order::{Balance, LineBack, Order};
    use crate::domain::status::OrderStatus;

    fn at(raw: &str) -> Timestamp {
        Timestamp::parse(raw).expect("time")
    }

    fn sku(raw: &str) -> Sku {
        Sku::parse(raw).expect("sku")
    }

    fn asked(what: &[(&str, u32)]) -> Vec<LineQuantity> {
        what.iter()
            .map(|(s, quantity)| LineQuantity {
                sku: sku(s),
                quantity: *quantity,
            })
            .collect()
    }

    /// A paid order of `a` x3 and `b` x1 at 2.50 each, `delivered` delivered on the 2nd of
    /// December and the rest on the 20th.
    fn delivered(early: &[(&str, u32)], late: &[(&str, u32)]) -> OrderDetails {
        let mut details = OrderDetails {
            order: Order {
                order_id: OrderId::parse("o1").expect("id"),
                customer_id: CustomerId::parse("c1").expect("id"),
                placed_at: at("2026-11-01T10:00:00Z"),
                status: OrderStatus::Delivered,
                total: Money::parse_number("10").expect("money"),
                hold_until: None,
                payment_intent_id: None,
                payment_id: None,
                payment_error: None,
                dispute: None,
                withdrawn: None,
            },
            items: [("a", 3), ("b", 1)]
                .into_iter()
                .map(|(s, quantity)| LineItem {
                    sku: sku(s),
                    quantity,
                    price: Money::parse_number("2.50").expect("money"),
                })
                .collect(),
            fulfilments: Vec::new(),
            cancellations: Vec::new(),
            returns: Vec::new(),
            money: Box::default(),
        };
        details.money.balance = Balance {
            paid: Some(1000),
            refundable: 1000,
            refunded: 0,
            refund_count: 0,
        };
        for (id, what, when) in [
            ("ff_1", early, "2026-11-02T10:00:00Z"),
            ("ff_2", late, "2026-11-20T10:00:00Z"),
        ] {
            if what.is_empty() {
                continue;
            }
            let mut shipment = Fulfilment::shipped(
                FulfilmentId::parse(id).expect("id"),
                asked(what),
                Tracking::default(),
                at(when),
            );
            shipment.status = FulfilmentStatus::Delivered;
            shipment.delivered_at = Some(at(when));
            details.fulfilments.push(shipment);
        }
        details
    }

    fn requested(id: &str, what: &[(&str, u32)]) -> OrderReturn {
        OrderReturn::requested(
            ReturnId::parse(id).expect("id"),
            asked(what),
            "too small".into(),
            at("2026-11-21T10:00:00Z"),
        )
    }

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

    #[test]
    fn what_may_be_returned_is_what_was_delivered_within_the_window_less_what_is_in_returns() {
        let mut details = delivered(&[("a", 2)], &[("a", 1), ("b", 1)]);
        let a = details.items[0].clone();
        let now = at("2026-12-05T10:00:00Z");
        // The first delivery is 33 days old: outside 30 days, inside 40.
        assert_eq!(details.returnable(&a, now, Some(30)), 1);
        assert_eq!(details.returnable(&a, now, Some(40)), 3);
        details.returns.push(requested("rt_1", &[("a", 1)]));
        assert_eq!(
            details.returnable(&a, now, Some(30)),
            0,
            "the later units first"
        );
        assert_eq!(details.returnable(&a, now, Some(40)), 2);
        assert_eq!(
            details.returnable(&a, now, None),
            2,
            "staff: whenever delivered"
        );
        let err = details
            .check_return(&asked(&[("a", 3)]), now, Some(40))
            .expect_err("more than may be");
        assert!(matches!(err, AppError::LinesRefused(_)), "{err:?}");
        // A declined return's units may be asked for again.
        details.returns[0].status = ReturnStatus::Declined;
        assert!(
            details
                .check_return(&asked(&[("a", 3)]), now, Some(40))
                .is_ok()
        );
        let err = details
            .check_return(&asked(&[("zz", 1)]), now, Some(40))
            .expect_err("no such line");
        assert!(matches!(err, AppError::Invalid(_)), "{err:?}");
        // Nothing delivered, nothing to return.
        let mut undelivered = delivered(&[], &[]);
        undelivered.order.status = OrderStatus::Placed;
        assert_eq!(undelivered.returnable(&a, now, None), 0);
        // Round five: DELIVERED before fulfilments existed: no date to count a window from, so
        // staff may record a return of what it kept; its customer may not (they ask staff).
        let mut undated = delivered(&[], &[]);
        undated.money.lines.entry(sku("a")).or_default().cancelled = 1;
        assert_eq!(
            undated.returnable(&a, now, None),
            2,
            "ordered, less cancelled"
        );
        assert_eq!(undated.returnable(&a, now, Some(30)), 0);
    }

    #[test]
    fn a_receipt_restocks_the_undamaged_refunds_what_arrived_and_takes_it_from_what_was_kept() {
        let mut details = delivered(&[], &[("a", 3), ("b", 1)]);
        let now = at("2026-11-22T10:00:00Z");
        let ret = requested("rt_1", &[("a", 3)]);
        let receipt = Receipt {
            lines: vec![ReceivedLine {
                sku: sku("a"),
                received: 3,
                damaged: 1,
            }],
            refund: true,
        };
        let err = details
            .plan_receipt(&ret, &receipt, &Currency::default())
            .expect_err("not approved");
        assert!(matches!(err, AppError::MoveRefused(_)), "{err:?}");
        let approved = ret
            .moved(ReturnStatus::Approved, ReturnActor::Staff, now)
            .expect("staff");
        let plan = details
            .plan_receipt(&approved, &receipt, &Currency::default())
            .expect("a plan");
        assert_eq!(plan.amount, 750);
        let line = &plan.lines[0];
        assert_eq!(
            (line.quantity, line.restock, line.returned, line.cancelled),
            (3, 2, 3, 0)
        );
        assert_eq!(
            plan.withdrawn(),
            Money::parse_number("7.50").expect("money")
        );

        // One unit refunded by staff before: the receipt refunds the other two only.
        details.money.lines.insert(
            sku("a"),
            LineBack {
                refunded: 1,
                ..LineBack::default()
            },
        );
        let plan = details
            .plan_receipt(&approved, &receipt, &Currency::default())
            .expect("a plan");
        assert_eq!((plan.amount, plan.lines[0].quantity), (500, 2));

        // Without a refund: the units still come back, and nothing is paid.
        let kept = Receipt {
            refund: false,
            ..receipt.clone()
        };
        let plan = details
            .plan_receipt(&approved, &kept, &Currency::default())
            .expect("a plan");
        assert_eq!((plan.amount, plan.lines[0].returned), (0, 3));

        for (received, damaged, what) in [(4, 0, "more than asked"), (1, 2, "damaged > received")] {
            let bad = Receipt {
                lines: vec![ReceivedLine {
                    sku: sku("a"),
                    received,
                    damaged,
                }],
                refund: true,
            };
            let err = details
                .plan_receipt(&approved, &bad, &Currency::default())
                .expect_err(what);
            assert!(matches!(err, AppError::Invalid(_)), "{what}: {err:?}");
        }
        let other = Receipt {
            lines: vec![ReceivedLine {
                sku: sku("b"),
                received: 1,
                damaged: 0,
            }],
            refund: true,
        };
        assert!(
            details
                .plan_receipt(&approved, &other, &Currency::default())
                .is_err(),
            "b is not in the return"
        );
    }
}
