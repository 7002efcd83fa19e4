//! What an order lets staff cancel before it ships, and what that gives back.

use crate::AppError;
use crate::domain::cancellation::{Cancellation, MAX_CANCELLATIONS_PER_ORDER};
use crate::domain::currency::Currency;
use crate::domain::ids::CancellationId;
use crate::domain::ledger::{PlannedLine, RefundPlan};
use crate::domain::order::{LineQuantity, OrderDetails};
use crate::domain::status::OrderStatus;

impl OrderDetails {
    /// The cancellation `id` of this order.
    pub fn cancellation(&self, id: &CancellationId) -> Option<&Cancellation> {
        self.cancellations.iter().find(|c| c.cancellation_id == *id)
    }

    /// What cancelling `asked` of this order gives back, as read: each line's units cancelled,
    /// back into stock, and (paid) refunded at the price ordered, the refund's amount at most
    /// what may still go back. A 409 when the order is not PLACED or PARTIALLY_SHIPPED or a
    /// line would cancel more than is left to ship; a 400 for a line the order does not have.
    pub fn plan_cancellation(
        &self,
        asked: &[LineQuantity],
        currency: &Currency,
    ) -> Result<RefundPlan, AppError> {
        let status = self.order.status;
        if !matches!(status, OrderStatus::Placed | OrderStatus::PartiallyShipped) {
            return Err(status.refused_move(OrderStatus::Cancelled));
        }
        if self.cancellations.len() >= MAX_CANCELLATIONS_PER_ORDER {
            return Err(AppError::CapReached(format!(
                "order {} has {MAX_CANCELLATIONS_PER_ORDER} cancellations, the most one order may have",
                self.order.order_id
            )));
        }
        let paid = self.money.balance.paid.is_some();
        let mut amount = 0i64;
        let mut lines = Vec::with_capacity(asked.len());
        for ask in asked {
            let line = self.line(&ask.sku)?;
            let left = self.shippable(line);
            if ask.quantity > left {
                return Err(AppError::LinesRefused(format!(
                    "{} of {} asked to cancel, and only {left} of the line's {} are left to ship",
                    ask.quantity, ask.sku, line.quantity
                )));
            }
            let back = self.money.back(&ask.sku);
            let refunded = self.refundable_units(line, ask.quantity, paid);
            amount = self.plus_units(amount, currency, line, (back.refunded, refunded))?;
            lines.push(PlannedLine {
                line: line.clone(),
                quantity: refunded,
                restock: ask
                    .quantity
                    .min(line.quantity.saturating_sub(back.restocked)),
                restocked: back.restocked,
                cancelled: ask.quantity,
                returned: 0,
            });
        }
        let shipping = if paid && self.cancels_everything(asked) {
            // Nothing of it ships: the shipping goes back too.
            self.paid_for_shipping(currency)?
        } else {
            0
        };
        // What may still go back of it, at most: staff may have given some back already.
        let refundable = self.money.balance.refundable.max(0);
        let amount = (amount + shipping).min(refundable);
        Ok(RefundPlan {
            shipping: shipping.min(amount),
            amount,
            lines,
            restock: true,
        })
    }
}

impl OrderDetails {
    /// Whether cancelling `asked` leaves nothing of the order to ship, and nothing of it
    /// shipped: every unit of every line cancelled.
    fn cancels_everything(&self, asked: &[LineQuantity]) -> bool {
        self.fulfilments.is_empty()
            && self.items.iter().all(|line| {
                let now: u32 = asked
                    .iter()
                    .filter(|a| a.sku == line.sku)
                    .map(|a| a.quantity)
                    .sum();
                self.money.back(&line.sku).cancelled + now >= line.quantity
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::test_support;

    use crate::domain::fulfilment::{Fulfilment, Tracking};
    use crate::domain::ids::{FulfilmentId, Sku};

    use crate::domain::order::Balance;
    use crate::domain::time::Timestamp;

    fn paid_order(lines: &[(&str, u32, &str)], paid: i64) -> OrderDetails {
        test_support::paid(test_support::order(OrderStatus::Placed, lines), paid)
    }

    fn asked(sku: &str, quantity: u32) -> Vec<LineQuantity> {
        vec![LineQuantity {
            sku: Sku::parse(sku).expect("sku"),
            quantity,
        }]
    }

    #[test]
    fn unshipped_units_are_cancelled_restocked_and_refunded_at_the_ordered_price() {
        let mut details = paid_order(&[("a", 3, "19.95"), ("b", 1, "5.00")], 6485);
        details.order.status = OrderStatus::PartiallyShipped;
        details.fulfilments.push(Fulfilment::shipped(
            FulfilmentId::parse("f1").expect("id"),
            asked("a", 1),
            Tracking::default(),
            Timestamp::parse("2026-12-02T10:00:00Z").expect("time"),
        ));
        let plan = details
            .plan_cancellation(&asked("a", 2), &Currency::default())
            .expect("two are left to ship");
        assert_eq!(plan.amount, 3990);
        assert_eq!(plan.lines[0].cancelled, 2);
        assert_eq!(plan.lines[0].restock, 2);
        assert_eq!(plan.withdrawn().to_string(), "39.90");
        let refused = details
            .plan_cancellation(&asked("a", 3), &Currency::default())
            .expect_err("one shipped");
        assert_eq!(
            refused.to_string(),
            "3 of a asked to cancel, and only 2 of the line's 3 are left to ship"
        );
    }

    #[test]
    fn what_staff_gave_back_already_bounds_the_refund_and_an_unpaid_order_has_none() {
        let mut details = paid_order(&[("a", 2, "10.00")], 2000);
        details.money.balance.refundable = 500;
        let plan = details
            .plan_cancellation(&asked("a", 2), &Currency::default())
            .expect("plan");
        assert_eq!(plan.amount, 500, "only what may still go back");
        details.money.balance = Balance::default();
        let plan = details
            .plan_cancellation(&asked("a", 1), &Currency::default())
            .expect("plan");
        assert_eq!((plan.amount, plan.lines[0].quantity), (0, 0));
        details.order.status = OrderStatus::Shipped;
        assert!(matches!(
            details.plan_cancellation(&asked("a", 1), &Currency::default()),
            Err(AppError::StatusConflict { .. })
        ));
    }
}
