//! Lines given back, in ONE transaction with all they change: a staff refund (by lines or an
//! amount), a cancellation of unshipped lines, or a return's receipt (the return moved on only
//! if its counter is still the one read, so a return is received once). The refund's record and the header's balance
//! drawn on (only if no other refund drew on it since it was read, and only if it covers the
//! refund); each line's counts (refunded, back in stock on the condition that no one put units
//! back since the read, never to ship) and its stock back; the cancellation's record; what of
//! the total the customer no longer keeps (`withdrawn`, on the header and the listing); and,
//! when units that were to ship no longer will, the header's lines version (only if still the
//! one read: a shipment racing a cancellation of the same units cannot both count) and the
//! status as the lines now make it, with the listing and the customer's place.

use crate::domain::cancellation::Cancellation;
use crate::domain::ids::Sku;
use crate::domain::ledger::RefundPlan;
use crate::domain::money::Decimal;
use crate::domain::order::OrderDetails;
use crate::domain::refund::Refund;
use crate::domain::returns::OrderReturn;
use crate::domain::status::OrderStatus;
use crate::dynamo::entities::{
    cancellation, line_item, order_header, order_listing, order_return, refund, variant,
};
use crate::dynamo::transaction::{Outcome, Transaction};
use crate::dynamo::update::Change;
use crate::{AppError, Store};

use super::{Release, Settle};

/// What is given back: the plan (its lines and amount), the refund it requests, the
/// cancellation that asked for it.
#[derive(Debug, Clone, Copy)]
pub struct GiveBack<'a> {
    /// The lines' counts and stock, and the refund's amount (as the order was read).
    pub plan: &'a RefundPlan,
    /// The refund requested (none: an unpaid order's cancellation, or nothing may go back).
    pub refund: Option<&'a Refund>,
    /// The cancellation recorded (a cancellation of lines).
    pub cancellation: Option<&'a Cancellation>,
    /// The return received: as read, and as its receipt leaves it.
    pub order_return: Option<(&'a OrderReturn, &'a OrderReturn)>,
}

/// What giving back came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GivenBack {
    /// Written: the order's status is now this.
    Written(OrderStatus),
    /// The refund or the cancellation of this ID was recorded already (a retried request).
    Exists,
    /// Another refund, cancellation, shipment or status change came first: read again.
    Changed,
}

/// What each action of the transaction is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action<'a> {
    Header,
    Listing,
    Line,
    Restock(&'a Sku),
    Refund,
    Cancellation,
    Return,
    ReleasePlace,
}

impl OrderDetails {
    /// The order as `plan` leaves its lines: their units cancelled counted.
    fn with_cancelled(&self, plan: &RefundPlan) -> OrderDetails {
        let mut after = self.clone();
        for planned in plan.lines.iter().filter(|p| p.cancelled > 0) {
            let back = after
                .money
                .lines
                .entry(planned.line.sku.clone())
                .or_default();
            back.cancelled += planned.cancelled;
        }
        after
    }
}

impl Store {
    /// Gives back what `back` says of `details`, in ONE TransactWriteItems (the module's
    /// documentation says what it holds).
    pub async fn give_back(
        &self,
        details: &OrderDetails,
        back: GiveBack<'_>,
    ) -> Result<GivenBack, AppError> {
        let current = details.order.status;
        let withdraws = back.plan.lines.iter().any(|p| p.cancelled > 0);
        let next = if withdraws {
            details.with_cancelled(back.plan).status_by_lines()
        } else {
            current
        };
        let leaving = current.holds_place() && !next.holds_place();
        let mut release = Release {
            place: leaving && self.max_open_orders.is_some(),
            held: leaving && self.max_held_quantity.is_some() && details.order.hold_until.is_some(),
        };
        loop {
            let transaction = self.give_back_transaction(details, back, next, release)?;
            let cancelled = match self.send(transaction).await? {
                Outcome::Committed => {
                    // Units back in stock: this process reads the variant again.
                    for planned in back.plan.lines.iter().filter(|p| p.restock > 0) {
                        self.recent.forget_variant(&planned.line.sku);
                    }
                    return Ok(GivenBack::Written(next));
                }
                Outcome::Cancelled(cancelled) => cancelled,
            };
            if cancelled.condition_failed(|a| matches!(a, Action::Refund | Action::Cancellation)) {
                return Ok(GivenBack::Exists);
            }
            if cancelled.conflicted()
                || cancelled.condition_failed(|a| {
                    matches!(a, Action::Header | Action::Line | Action::Return)
                })
            {
                return Ok(GivenBack::Changed);
            }
            if let Some((Action::Restock(sku), _)) = cancelled
                .failed_conditions()
                .find(|(a, _)| matches!(a, Action::Restock(_)))
            {
                return Err(AppError::LinesRefused(format!(
                    "product {sku} no longer exists, so its stock cannot go back: refund it without restock"
                )));
            }
            if cancelled.condition_failed(|a| *a == Action::Listing) {
                return Err(AppError::internal(format!(
                    "order {} has a header but its listing item is missing or out of step",
                    details.order.order_id
                )));
            }
            // The customer's count never counted the order (placed before the caps counted
            // it): give back what it did count.
            if cancelled.condition_failed(|a| *a == Action::ReleasePlace) && release.held {
                release.held = false;
            } else if cancelled.condition_failed(|a| *a == Action::ReleasePlace) {
                release.place = false;
            } else {
                return Err(cancelled.unexplained("give-back"));
            }
        }
    }

    /// The actions of `back` moving `details` to `next`.
    fn give_back_transaction<'a>(
        &self,
        details: &OrderDetails,
        back: GiveBack<'a>,
        next: OrderStatus,
        release: Release,
    ) -> Result<Transaction<Action<'a>>, AppError> {
        let order = &details.order;
        let plan = back.plan;
        let mut transaction = Transaction::with_capacity(6 + 2 * plan.lines.len());
        let (header, listing) = self.header_and_listing(details, back, next);
        if let Some(header) = header {
            transaction.update(Action::Header, header.build()?)?;
        }
        if let Some(listing) = listing {
            transaction.update(Action::Listing, listing.build()?)?;
        }
        for planned in &plan.lines {
            let sku = &planned.line.sku;
            let mut counts = line_item::BACK.on(&self.table, line_item::key(&order.order_id, sku));
            if planned.quantity > 0 {
                counts = counts.add(&line_item::REFUNDED_QUANTITY, &planned.quantity);
            }
            if planned.cancelled > 0 {
                counts = counts.add(&line_item::CANCELLED_QUANTITY, &planned.cancelled);
            }
            if planned.returned > 0 {
                counts = counts.add(&line_item::RETURNED_QUANTITY, &planned.returned);
            }
            if planned.restock > 0 {
                counts = line_item::restocked(counts, planned.restock, planned.restocked);
            }
            transaction.update(Action::Line, counts.build()?)?;
            if planned.restock > 0 {
                let give_back = variant::STOCK_UPDATE
                    .on(&self.table, variant::key(sku))
                    .add(&variant::STOCK_CHANGE, &i64::from(planned.restock))
                    .condition("attribute_exists(PK)");
                transaction.update(Action::Restock(&planned.line.sku), give_back.build()?)?;
            }
        }
        if let Some(refund) = back.refund {
            let record = refund::PUT
                .put(&self.table, refund::to_item(refund))
                .only_new();
            transaction.put(Action::Refund, record.build()?)?;
        }
        if let Some(cancelled) = back.cancellation {
            let record = cancellation::PUT
                .put(
                    &self.table,
                    cancellation::to_item(&order.order_id, &order.customer_id, cancelled),
                )
                .only_new();
            transaction.put(Action::Cancellation, record.build()?)?;
        }
        if let Some((read, next)) = back.order_return {
            let moved = order_return::moved(&self.table, &order.order_id, read, next);
            transaction.update(Action::Return, moved.build()?)?;
        }
        if let Some(count) = self.release_holding(details, release)? {
            transaction.update(Action::ReleasePlace, count)?;
        }
        Ok(transaction)
    }

    /// The header's update (its balance drawn on, its lines version, its status, what it no
    /// longer keeps) and the listing's (its status, what it no longer keeps), each only where
    /// there is something to change.
    fn header_and_listing(
        &self,
        details: &OrderDetails,
        back: GiveBack<'_>,
        next: OrderStatus,
    ) -> (Option<Change>, Option<Change>) {
        let order = &details.order;
        let withdrawn = back.plan.withdrawn();
        let withdraws = back.plan.lines.iter().any(|p| p.cancelled > 0);
        let mut header: Option<Change> = None;
        let mut listing: Option<Change> = None;
        let merge = |into: Option<Change>, change: Change| match into {
            Some(into) => Some(into.merge(change)),
            None => Some(change),
        };
        if back.refund.is_some() {
            header = merge(header, self.draw_on_balance(details, back.plan.amount));
        }
        if withdraws {
            let lines = order_header::lines_changed(
                order_header::LINES_CHANGE.on(&self.table, order_header::key(&order.order_id)),
                details.money.lines_version,
            );
            header = merge(header, lines);
        }
        if next != order.status {
            let (status, moved) = self.status_updates(order, next, Settle::OnTime);
            header = merge(header, status);
            listing = merge(listing, moved);
        }
        if withdrawn.amount() > Decimal::ZERO {
            let add = |change: Change, attr| change.add(attr, &withdrawn);
            header = merge(
                header,
                add(
                    order_header::WITHDRAW.on(&self.table, order_header::key(&order.order_id)),
                    &order_header::WITHDRAWN,
                ),
            );
            listing = merge(
                listing,
                add(
                    order_listing::WITHDRAW.on(&self.table, order_listing::key(order)),
                    &order_listing::WITHDRAWN,
                ),
            );
        }
        (header, listing)
    }
}
