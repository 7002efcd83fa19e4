//! Customer order statistics: what an order adds to them and how changes combine.

use crate::domain::money::Decimal;
use crate::domain::order::Order;
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;

/// How one event changes a customer's statistics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsDelta {
    pub orders: i64,
    pub spent: Decimal,
    pub last_order_at: Option<Timestamp>,
}

impl StatsDelta {
    pub const NONE: StatsDelta = StatsDelta {
        orders: 0,
        spent: Decimal::ZERO,
        last_order_at: None,
    };

    /// A new order: counted, its total spent unless it is CANCELLED, lastOrderAt moved.
    pub fn placed(order: &Order) -> Self {
        StatsDelta {
            orders: 1,
            spent: contribution(order),
            last_order_at: Some(order.placed_at),
        }
    }

    /// An order that changed: the change in what it contributes to totalSpent (entering
    /// CANCELLED subtracts its total, leaving it adds it back). `None` when nothing moves.
    pub fn changed(old: &Order, new: &Order) -> Option<Self> {
        let spent = contribution(new) - contribution(old);
        (!spent.is_zero()).then_some(StatsDelta {
            orders: 0,
            spent,
            last_order_at: None,
        })
    }

    pub fn merge(&mut self, other: &StatsDelta) {
        self.orders += other.orders;
        self.spent += other.spent;
        self.last_order_at = self.last_order_at.max(other.last_order_at);
    }
}

/// What an order contributes to `totalSpent`.
fn contribution(order: &Order) -> Decimal {
    if order.status == OrderStatus::Cancelled {
        Decimal::ZERO
    } else {
        order.total.amount()
    }
}
