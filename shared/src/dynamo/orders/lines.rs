//! What of an order's lines is shipped and delivered, changed in ONE transaction with what it
//! does to the order: a fulfilment recorded, or fulfilments moved on (delivered, in transit,
//! their tracking corrected); the header's lines version moved on, on the condition that it is
//! still the one read (so two shipments of the last units, or a shipment and a cancellation,
//! never both count on the same read); and, when the order's status follows (PLACED →
//! PARTIALLY_SHIPPED → SHIPPED → DELIVERED), the header and the listing moved with it and the
//! customer's place released once nothing is left to ship.

use crate::domain::fulfilment::{Fulfilment, FulfilmentStatus};
use crate::domain::order::OrderDetails;
use crate::domain::status::OrderStatus;
use crate::dynamo::entities::{fulfilment, order_header};
use crate::dynamo::transaction::{Outcome, Transaction};
use crate::{AppError, Store};

use super::{Release, Settle};

/// What a change of an order's shipments does.
#[derive(Debug, Clone)]
pub enum Shipping<'a> {
    /// A new fulfilment, checked against the order as read
    /// ([`OrderDetails::check_shipment`]).
    Ship(&'a Fulfilment),
    /// Fulfilments as read, each with what it becomes ([`Fulfilment::updated`]).
    Update(Vec<(&'a Fulfilment, Fulfilment)>),
}

/// What a change of an order's shipments came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shipped {
    /// Written: the order's status is now this.
    Written(OrderStatus),
    /// A fulfilment of this ID was recorded already (a retried request): as it stands.
    Exists,
    /// Another change of the order's lines, status or fulfilments came first: read again.
    Changed,
}

/// What each action of a shipment's transaction is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    NewFulfilment,
    Fulfilment,
    Header,
    Listing,
    ReleasePlace,
}

impl OrderDetails {
    /// The order as `shipping` leaves it: its fulfilments with the new one, or the updated ones
    /// replaced.
    pub fn after(&self, shipping: &Shipping<'_>) -> OrderDetails {
        let mut after = self.clone();
        match shipping {
            Shipping::Ship(new) => after.fulfilments.push((*new).clone()),
            Shipping::Update(updates) => {
                for (read, next) in updates {
                    if let Some(slot) = after
                        .fulfilments
                        .iter_mut()
                        .find(|f| f.fulfilment_id == read.fulfilment_id)
                    {
                        *slot = next.clone();
                    }
                }
            }
        }
        after
    }
}

impl Store {
    /// `shipping` of `details` in ONE TransactWriteItems: the new fulfilment (only where none
    /// is) or each updated one (only if its counter is still the one read); unless it only
    /// moves fulfilments along the way or corrects their tracking, the header's lines version
    /// (only if still the one read) and, when the order's status follows its lines, the header
    /// and the listing moved (each only if its status is still the one read), with the
    /// customer's place under the caps released when the order leaves the open statuses.
    pub async fn ship(
        &self,
        details: &OrderDetails,
        shipping: &Shipping<'_>,
    ) -> Result<Shipped, AppError> {
        let after = details.after(shipping);
        let current = details.order.status;
        let next = after.status_by_lines();
        let counts_lines = match shipping {
            Shipping::Ship(_) => true,
            Shipping::Update(updates) => updates
                .iter()
                .any(|(_, next)| next.status == FulfilmentStatus::Delivered),
        };
        let leaving = current.holds_place() && !next.holds_place();
        let mut release = Release {
            place: leaving && self.max_open_orders.is_some(),
            held: leaving && self.max_held_quantity.is_some() && details.order.hold_until.is_some(),
        };
        loop {
            let transaction =
                self.shipping_transaction(details, shipping, (counts_lines, next), release)?;
            let cancelled = match self.send(transaction).await? {
                Outcome::Committed if counts_lines => return Ok(Shipped::Written(next)),
                Outcome::Committed => return Ok(Shipped::Written(current)),
                Outcome::Cancelled(cancelled) => cancelled,
            };
            if cancelled.condition_failed(|a| *a == Action::NewFulfilment) {
                return Ok(Shipped::Exists);
            }
            if cancelled.conflicted()
                || cancelled.condition_failed(|a| matches!(a, Action::Header | Action::Fulfilment))
            {
                return Ok(Shipped::Changed);
            }
            if cancelled.condition_failed(|a| *a == Action::Listing) {
                return Err(AppError::internal(format!(
                    "order {} has a header but its listing item is missing or out of step",
                    details.order.order_id
                )));
            }
            // The customer's count never counted the order (placed before the caps counted
            // it: units first, the place was counted longer): give back what it did count.
            if cancelled.condition_failed(|a| *a == Action::ReleasePlace) && release.held {
                release.held = false;
            } else if cancelled.condition_failed(|a| *a == Action::ReleasePlace) {
                release.place = false;
            } else {
                return Err(cancelled.unexplained("shipment"));
            }
        }
    }

    /// The actions of `shipping`: see [`Store::ship`].
    fn shipping_transaction(
        &self,
        details: &OrderDetails,
        shipping: &Shipping<'_>,
        (counts_lines, next): (bool, OrderStatus),
        release: Release,
    ) -> Result<Transaction<Action>, AppError> {
        let order = &details.order;
        let mut transaction = Transaction::with_capacity(4 + details.fulfilments.len());
        match shipping {
            Shipping::Ship(new) => {
                let record = fulfilment::PUT
                    .put(
                        &self.table,
                        fulfilment::to_item(&order.order_id, &order.customer_id, new),
                    )
                    .only_new();
                transaction.put(Action::NewFulfilment, record.build()?)?;
            }
            Shipping::Update(updates) => {
                for (read, next) in updates {
                    let update = fulfilment::update(&self.table, &order.order_id, read, next);
                    transaction.update(Action::Fulfilment, update.build()?)?;
                }
            }
        }
        if !counts_lines {
            return Ok(transaction);
        }
        let lines = order_header::lines_changed(
            order_header::LINES_CHANGE.on(&self.table, order_header::key(&order.order_id)),
            details.money.lines_version,
        );
        if next == order.status {
            transaction.update(Action::Header, lines.build()?)?;
            return Ok(transaction);
        }
        let (header, listing) = self.status_updates(order, next, Settle::OnTime);
        transaction.update(Action::Header, header.merge(lines).build()?)?;
        transaction.update(Action::Listing, listing.build()?)?;
        if let Some(count) = self.release_holding(details, release)? {
            transaction.update(Action::ReleasePlace, count)?;
        }
        Ok(transaction)
    }
}
