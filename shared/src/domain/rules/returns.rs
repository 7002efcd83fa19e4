//! What an order lets its customer return, and what a receipt of a return gives back.

use crate::AppError;
use crate::domain::currency::Currency;
use crate::domain::fulfilment::FulfilmentStatus;
use crate::domain::ids::ReturnId;
use crate::domain::ledger::{PlannedLine, RefundPlan};
use crate::domain::order::{LineItem, LineQuantity, OrderDetails};
use crate::domain::returns::{MAX_RETURNS_PER_ORDER, OrderReturn, Receipt, Received, ReturnStatus};
use crate::domain::time::Timestamp;

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
            let refunded = self.refundable_units(line, got.received, refunds);
            amount = self.plus_units(amount, currency, line, (back.refunded, refunded))?;
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
            shipping: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::fulfilment::{Fulfilment, Tracking};
    use crate::domain::ids::FulfilmentId;
    use crate::domain::money::Money;
    use crate::domain::order::LineBack;
    use crate::domain::test_support::{self, at, lines as asked, requested, sku};

    use crate::domain::returns::{ReceivedLine, ReturnActor};
    use crate::domain::status::OrderStatus;

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

    /// A paid order of `a` x3 and `b` x1 at 2.50 each, `delivered` delivered on the 2nd of
    /// December and the rest on the 20th.
    fn delivered(early: &[(&str, u32)], late: &[(&str, u32)]) -> OrderDetails {
        let items = [("a", 3, "2.50"), ("b", 1, "2.50")];
        let mut details =
            test_support::paid(test_support::order(OrderStatus::Delivered, &items), 1000);
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
}
