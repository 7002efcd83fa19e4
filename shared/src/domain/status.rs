//! Where an order is in its life, and the moves between statuses that the store allows.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::AppError;

crate::listed! {
    /// Where an order is in its life.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum OrderStatus {
        /// Checked out and waiting for its payment: its stock held until the hold ends.
        PendingPayment,
        /// Placed: its stock taken, waiting to ship.
        Placed,
        /// Some of its lines shipped, the rest waiting to.
        PartiallyShipped,
        /// On its way.
        Shipped,
        /// Arrived: the end of its life.
        Delivered,
        /// Cancelled while PLACED: its stock given back.
        Cancelled,
        /// Its hold ended unpaid: its stock given back.
        Expired,
    }
}

impl OrderStatus {
    /// The status as stored and sent: `PENDING_PAYMENT`, `PLACED`, `PARTIALLY_SHIPPED`,
    /// `SHIPPED`, `DELIVERED`, `CANCELLED`, `EXPIRED`.
    pub fn as_str(self) -> &'static str {
        match self {
            OrderStatus::PendingPayment => "PENDING_PAYMENT",
            OrderStatus::Placed => "PLACED",
            OrderStatus::PartiallyShipped => "PARTIALLY_SHIPPED",
            OrderStatus::Shipped => "SHIPPED",
            OrderStatus::Delivered => "DELIVERED",
            OrderStatus::Cancelled => "CANCELLED",
            OrderStatus::Expired => "EXPIRED",
        }
    }

    /// An order in this status keeps one of its customer's places under the cap on open
    /// orders (`MaxOpenOrders`): a hold waiting for payment, or a placed order not yet (all)
    /// shipped.
    pub fn holds_place(self) -> bool {
        matches!(
            self,
            OrderStatus::PendingPayment | OrderStatus::Placed | OrderStatus::PartiallyShipped
        )
    }

    /// Entering this status gives the order's stock back to the catalog.
    pub fn gives_stock_back(self) -> bool {
        matches!(self, OrderStatus::Cancelled | OrderStatus::Expired)
    }
}

impl OrderStatus {
    /// The moves `PATCH /orders/{orderId}` may make: PLACED→SHIPPED→DELIVERED (SHIPPED: one
    /// fulfilment of everything left, from PARTIALLY_SHIPPED too), and PLACED→CANCELLED. A hold
    /// leaves PENDING_PAYMENT only by its payment (PLACED) or its end (EXPIRED), never by a
    /// request: see [`OrderStatus::can_settle_as`]. PARTIALLY_SHIPPED is entered and left by
    /// fulfilments (and cancellations of lines), never asked for.
    pub fn can_become(self, next: OrderStatus) -> bool {
        matches!(
            (self, next),
            (
                OrderStatus::Placed | OrderStatus::PartiallyShipped,
                OrderStatus::Shipped
            ) | (OrderStatus::Shipped, OrderStatus::Delivered)
                | (OrderStatus::Placed, OrderStatus::Cancelled)
        )
    }

    /// The two ends of a hold: paid (PLACED) or ended unpaid (EXPIRED), from PENDING_PAYMENT.
    pub fn can_settle_as(self, next: OrderStatus) -> bool {
        self == OrderStatus::PendingPayment
            && matches!(next, OrderStatus::Placed | OrderStatus::Expired)
    }

    /// `next` from this status, if the move is allowed; the conflict naming both if not.
    pub fn check_move(self, next: OrderStatus) -> Result<(), AppError> {
        if self.can_become(next) {
            Ok(())
        } else {
            Err(self.refused_move(next))
        }
    }

    /// The conflict of an order in this status that cannot become `next` (now, or any more).
    pub fn refused_move(self, next: OrderStatus) -> AppError {
        AppError::StatusConflict {
            current: self,
            next,
        }
    }
}

impl FromStr for OrderStatus {
    type Err = AppError;

    fn from_str(s: &str) -> Result<Self, AppError> {
        OrderStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| {
                AppError::invalid(
                    "status must be one of PENDING_PAYMENT, PLACED, PARTIALLY_SHIPPED, SHIPPED, DELIVERED, CANCELLED, EXPIRED",
                )
            })
    }
}

impl fmt::Display for OrderStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_round_trips_through_its_wire_name() {
        for status in OrderStatus::ALL {
            assert_eq!(
                status.as_str().parse::<OrderStatus>().expect("parses"),
                status
            );
        }
        assert!("placed".parse::<OrderStatus>().is_err());
        assert!("".parse::<OrderStatus>().is_err());
    }

    #[test]
    fn only_the_documented_transitions_are_allowed() {
        use OrderStatus::*;
        let allowed: Vec<_> = OrderStatus::ALL
            .into_iter()
            .flat_map(|from| OrderStatus::ALL.into_iter().map(move |to| (from, to)))
            .filter(|(from, to)| from.can_become(*to))
            .collect();
        assert_eq!(
            allowed,
            [
                (Placed, Shipped),
                (Placed, Cancelled),
                (PartiallyShipped, Shipped),
                (Shipped, Delivered)
            ]
        );
        let settled: Vec<_> = OrderStatus::ALL
            .into_iter()
            .flat_map(|from| OrderStatus::ALL.into_iter().map(move |to| (from, to)))
            .filter(|(from, to)| from.can_settle_as(*to))
            .collect();
        assert_eq!(
            settled,
            [(PendingPayment, Placed), (PendingPayment, Expired)]
        );
        let places: Vec<_> = OrderStatus::ALL
            .into_iter()
            .filter(|s| s.holds_place())
            .collect();
        assert_eq!(places, [PendingPayment, Placed, PartiallyShipped]);
        let restocking: Vec<_> = OrderStatus::ALL
            .into_iter()
            .filter(|s| s.gives_stock_back())
            .collect();
        assert_eq!(restocking, [Cancelled, Expired]);
    }
}
