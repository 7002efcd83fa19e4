//! What an order's lines let its fulfilments do: what may still ship, a shipment checked against it, and the status the lines make the order.

use crate::AppError;
use crate::domain::fulfilment::{Fulfilment, FulfilmentStatus, MAX_FULFILMENTS_PER_ORDER};
use crate::domain::ids::FulfilmentId;
use crate::domain::order::{LineItem, LineQuantity, OrderDetails};
use crate::domain::status::OrderStatus;

impl OrderDetails {
    /// The fulfilment `id` of this order.
    pub fn fulfilment(&self, id: &FulfilmentId) -> Option<&Fulfilment> {
        self.fulfilments.iter().find(|f| f.fulfilment_id == *id)
    }

    /// How many of `sku` its fulfilments carry.
    pub fn shipped(&self, sku: &crate::domain::ids::Sku) -> u32 {
        self.fulfilments.iter().map(|f| f.quantity_of(sku)).sum()
    }

    /// How many of `line` may still ship: what was ordered, less what was cancelled (or refunded
    /// before it shipped) and what is shipped.
    pub fn shippable(&self, line: &LineItem) -> u32 {
        let cancelled = self.money.back(&line.sku).cancelled;
        line.quantity
            .saturating_sub(cancelled)
            .saturating_sub(self.shipped(&line.sku))
    }

    /// A 409 when the order has [`MAX_FULFILMENTS_PER_ORDER`] fulfilments already.
    pub fn check_room_for_fulfilment(&self) -> Result<(), AppError> {
        if self.fulfilments.len() >= MAX_FULFILMENTS_PER_ORDER {
            return Err(AppError::CapReached(format!(
                "order {} has {MAX_FULFILMENTS_PER_ORDER} fulfilments, the most one order may have",
                self.order.order_id
            )));
        }
        Ok(())
    }

    /// Every line that may still ship, all of it: what `PATCH /orders/{orderId}`'s SHIPPED
    /// ships.
    pub fn left_to_ship(&self) -> Vec<LineQuantity> {
        self.items
            .iter()
            .map(|line| LineQuantity {
                sku: line.sku.clone(),
                quantity: self.shippable(line),
            })
            .filter(|line| line.quantity > 0)
            .collect()
    }

    /// `asked` checked against what may still ship: a 409 when the order is not PLACED or
    /// PARTIALLY_SHIPPED or a line would ship more than is left of it; a 400 for a line the
    /// order does not have.
    pub fn check_shipment(&self, asked: &[LineQuantity]) -> Result<(), AppError> {
        let status = self.order.status;
        if !matches!(status, OrderStatus::Placed | OrderStatus::PartiallyShipped) {
            return Err(status.refused_move(OrderStatus::Shipped));
        }
        self.check_room_for_fulfilment()?;
        for ask in asked {
            let line = self.line(&ask.sku)?;
            let left = self.shippable(line);
            if ask.quantity > left {
                return Err(AppError::LinesRefused(format!(
                    "{} of {} asked to ship, and only {left} of the line's {} may still ship",
                    ask.quantity, ask.sku, line.quantity
                )));
            }
        }
        Ok(())
    }

    /// The order's line of `sku`; a 400 when it has none.
    pub fn line(&self, sku: &crate::domain::ids::Sku) -> Result<&LineItem, AppError> {
        self.items
            .iter()
            .find(|line| line.sku == *sku)
            .ok_or_else(|| {
                AppError::invalid(format!("order {} has no line {sku}", self.order.order_id))
            })
    }

    /// The status its lines make it, for an order that is being shipped (PLACED,
    /// PARTIALLY_SHIPPED, SHIPPED or DELIVERED as read): CANCELLED when nothing is left to ship
    /// or shipped, PLACED while nothing is shipped, PARTIALLY_SHIPPED while some of what is
    /// left is not, SHIPPED when all is, DELIVERED when every fulfilment is.
    pub fn status_by_lines(&self) -> OrderStatus {
        let kept: u32 = self
            .items
            .iter()
            .map(|line| {
                line.quantity
                    .saturating_sub(self.money.back(&line.sku).cancelled)
            })
            .sum();
        let shipped: u32 = self.items.iter().map(|line| self.shipped(&line.sku)).sum();
        if kept == 0 {
            OrderStatus::Cancelled
        } else if shipped == 0 {
            OrderStatus::Placed
        } else if shipped < kept {
            OrderStatus::PartiallyShipped
        } else if self
            .fulfilments
            .iter()
            .all(|f| f.status == FulfilmentStatus::Delivered)
        {
            OrderStatus::Delivered
        } else {
            OrderStatus::Shipped
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::test_support::{self, at, lines, sku};

    use crate::domain::fulfilment::Tracking;

    use crate::domain::order::LineBack;

    #[test]
    fn an_order_shipped_in_two_parts_follows_its_lines() {
        let mut details = order(OrderStatus::Placed, &[("a", 2), ("b", 1), ("c", 3)]);
        assert_eq!(details.status_by_lines(), OrderStatus::Placed);
        details
            .check_shipment(&lines(&[("a", 2), ("c", 1)]))
            .expect("may ship");
        ship(&mut details, "f1", &[("a", 2), ("c", 1)]);
        assert_eq!(details.status_by_lines(), OrderStatus::PartiallyShipped);
        assert_eq!(details.left_to_ship(), lines(&[("b", 1), ("c", 2)]));
        let refused = details
            .check_shipment(&lines(&[("c", 3)]))
            .expect_err("only 2 left");
        assert_eq!(
            refused.to_string(),
            "3 of c asked to ship, and only 2 of the line's 3 may still ship"
        );
        assert!(matches!(
            details.check_shipment(&lines(&[("z", 1)])),
            Err(AppError::Invalid(_))
        ));
        ship(&mut details, "f2", &[("b", 1), ("c", 2)]);
        assert_eq!(details.status_by_lines(), OrderStatus::Shipped);
        details.fulfilments[1].status = FulfilmentStatus::Delivered;
        assert_eq!(
            details.status_by_lines(),
            OrderStatus::Shipped,
            "one of two"
        );
        details.fulfilments[0].status = FulfilmentStatus::Delivered;
        assert_eq!(details.status_by_lines(), OrderStatus::Delivered);
    }

    #[test]
    fn cancelled_units_never_ship_and_the_rest_decides_the_status() {
        let mut details = order(OrderStatus::Placed, &[("a", 2), ("b", 1)]);
        details.money.lines.insert(
            sku("b"),
            LineBack {
                cancelled: 1,
                ..LineBack::default()
            },
        );
        assert_eq!(details.left_to_ship(), lines(&[("a", 2)]));
        ship(&mut details, "f1", &[("a", 2)]);
        assert_eq!(details.status_by_lines(), OrderStatus::Shipped);
        let mut all = order(OrderStatus::Placed, &[("a", 1)]);
        all.money.lines.insert(
            sku("a"),
            LineBack {
                cancelled: 1,
                ..LineBack::default()
            },
        );
        assert_eq!(all.status_by_lines(), OrderStatus::Cancelled);
        let shipped = order(OrderStatus::Shipped, &[("a", 1)]);
        assert!(matches!(
            shipped.check_shipment(&lines(&[("a", 1)])),
            Err(AppError::StatusConflict { .. })
        ));
    }

    fn order(status: OrderStatus, ordered: &[(&str, u32)]) -> OrderDetails {
        let items: Vec<(&str, u32, &str)> = ordered.iter().map(|(s, q)| (*s, *q, "1")).collect();
        test_support::order(status, &items)
    }

    fn ship(details: &mut OrderDetails, id: &str, what: &[(&str, u32)]) {
        details.fulfilments.push(Fulfilment::shipped(
            FulfilmentId::parse(id).expect("id"),
            lines(what),
            Tracking::default(),
            at("2026-12-02T10:00:00Z"),
        ));
    }
}
