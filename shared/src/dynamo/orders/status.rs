//! An order's status change: the header and the listing moved together in one transaction,
//! each only if its status is still the one read, with a cancellation's stock given back and the
//! customer's place under the cap released when the order leaves PLACED.

use crate::domain::ids::{OrderId, PaymentId, RefundId, Sku};
use crate::domain::order::{LineItem, Order, OrderDetails};
use crate::domain::refund::{CANCELLED_REASON, Refund, RefundKind};
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;
use crate::dynamo::entities::{line_item, order_header, order_listing, refund, variant};
use crate::dynamo::transaction::{Cancelled, Outcome, Transaction};
use crate::dynamo::update::Change;

use super::Release;
use crate::{AppError, Store};

/// Why a status change did not happen.
#[derive(Debug)]
pub enum StatusChangeError {
    /// The order's status is no longer the one read: what it is now (`None`: the order is
    /// gone), and the status asked for.
    Stale {
        /// Which order.
        order: OrderId,
        /// Its status now (`None`: the order is gone).
        now: Option<OrderStatus>,
        /// The status asked for.
        next: OrderStatus,
    },
    /// A concurrent transaction touched the same items; worth another try.
    Contended,
    /// Anything else: what the client is told.
    Failed(AppError),
}

/// What a client is told once retrying is over.
impl From<StatusChangeError> for AppError {
    fn from(err: StatusChangeError) -> Self {
        match err {
            StatusChangeError::Stale {
                now: Some(now),
                next,
                ..
            } => now.refused_move(next),
            StatusChangeError::Stale {
                order, now: None, ..
            } => AppError::not_found(format!("order {order} does not exist")),
            // Every retry collided with another transaction: nothing was written.
            StatusChangeError::Contended => AppError::unavailable(
                "status transaction kept colliding with concurrent transactions",
            ),
            StatusChangeError::Failed(err) => err,
        }
    }
}

impl From<AppError> for StatusChangeError {
    fn from(err: AppError) -> Self {
        StatusChangeError::Failed(err)
    }
}

/// What decides a hold's end, or its payment.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Settle<'a> {
    /// Its time: paid while it lasts, ended once it has passed.
    OnTime,
    /// The provider canceled its PaymentIntent, this one: it ends now.
    IntentCanceled(&'a PaymentId),
}

/// What each action of a status change is for.
enum StatusAction<'a> {
    Header,
    Listing,
    Restock(&'a LineItem),
    /// The order leaves PLACED: its place under the cap is given back.
    ReleasePlace,
    /// A paid order cancelled: its refund.
    Refund,
    /// A paid order's stock back: counted on its line, if no one put it back since it was read.
    Counted,
    /// A hold ended unpaid: a use of a promotion it counted, given back.
    GiveBackUse,
}

impl Store {
    /// Moves the order from `current.status` to `next` in ONE TransactWriteItems: the header and
    /// the listing item (whose GSI1PK follows the status), each only if its status is still the
    /// one read, so of two racing changes only one can win. A cancellation, or a hold's end,
    /// gives each line's quantity back to its product's stock in the same transaction (a product
    /// that no longer exists is left out, and logged). A hold ends (EXPIRED) only once its
    /// `holdUntil` has passed ([`Store::status_updates`]).
    ///
    /// A paid order cancelled requests the refund of all that may still go back of it, in the
    /// same transaction (on the condition that no other refund drew on its balance since it
    /// was read), and gives back only the stock no refund gave back already.
    pub async fn change_status(
        &self,
        details: &OrderDetails,
        next: OrderStatus,
    ) -> Result<(), StatusChangeError> {
        self.change_status_as(details, next, Settle::OnTime).await
    }

    /// [`Store::change_status`], a hold's end decided as `settle` says.
    pub(crate) async fn change_status_as(
        &self,
        details: &OrderDetails,
        next: OrderStatus,
        settle: Settle<'_>,
    ) -> Result<(), StatusChangeError> {
        let current = &details.order;
        let mut restock = if next.gives_stock_back() {
            details.left_to_restock()
        } else {
            Vec::new()
        };
        let refund = self.cancellation_refund(details, next);
        // Leaving the open statuses gives the customer's place under the cap back, and a
        // checkout's units.
        let leaving = current.status.holds_place() && !next.holds_place();
        let mut release = Release {
            place: leaving && self.max_open_orders.is_some(),
            held: leaving && self.max_held_quantity.is_some() && current.hold_until.is_some(),
        };
        loop {
            let transaction = self.status_transaction(
                details,
                (next, settle),
                &restock,
                release,
                refund.as_ref(),
            )?;
            let cancelled = match self.send(transaction).await? {
                Outcome::Committed => {
                    // Units back in stock: this process reads the variant again.
                    for (line, _) in &restock {
                        self.recent.forget_variant(&line.sku);
                    }
                    return Ok(());
                }
                Outcome::Cancelled(cancelled) => cancelled,
            };
            if let Some((_, stored)) = cancelled
                .failed_conditions()
                .find(|(action, _)| matches!(action, StatusAction::Header))
            {
                let now = stored.and_then(|item| order_listing::STATUS.get(item));
                if refund.is_some() && now == Some(current.status) {
                    // Its status stands, and a refund drew on its balance meanwhile: read again.
                    return Err(StatusChangeError::Contended);
                }
                return Err(StatusChangeError::Stale {
                    order: current.order_id.clone(),
                    now,
                    next,
                });
            }
            if cancelled.conflicted()
                || cancelled.condition_failed(|action| matches!(action, StatusAction::Counted))
            {
                // Another transaction, or a refund that put the lines back into stock since
                // they were read: read again.
                return Err(StatusChangeError::Contended);
            }
            if cancelled.condition_failed(|action| matches!(action, StatusAction::Listing)) {
                return Err(AppError::internal(format!(
                    "order {} has a header but its listing item is missing or out of step",
                    current.order_id
                ))
                .into());
            }
            narrow(&cancelled, current, &mut restock, &mut release)?;
        }
    }

    /// The header's and the listing's updates moving `current` to `next`, each only if its
    /// status is still the one read (the listing's GSI1PK follows the status, in the order's
    /// shard). A hold's header moves only on its time: paid while it lasts (`holdUntil >= now`),
    /// ended once it has passed (`holdUntil < now`), so of a payment and an expiry racing on
    /// one hold exactly one commits. The header returns what it holds when its condition fails.
    ///
    /// A hold whose PaymentIntent the provider canceled ends at once instead
    /// ([`Settle::IntentCanceled`]): on the condition that it is still that PaymentIntent's.
    pub(crate) fn status_updates(
        &self,
        current: &Order,
        next: OrderStatus,
        settle: Settle<'_>,
    ) -> (Change, Change) {
        let still = |change: Change| {
            change
                .set(&order_listing::STATUS, &next)
                .condition("#status = :current")
                .value(":current", &order_listing::STATUS, &current.status)
        };
        let mut header = still(order_header::counting_event(
            order_header::STATUS_CHANGE.on(&self.table, order_header::key(&current.order_id)),
        ))
        .returning_old_on_failure();
        if let Settle::IntentCanceled(intent) = settle {
            header = header
                .and(&order_header::INTENT_CANCELED)
                .condition("#paymentIntentId = :intent")
                .value(":intent", &order_header::PAYMENT_INTENT_ID, intent);
        } else if current.status.can_settle_as(next) {
            let on_time = if next == OrderStatus::Placed {
                "#holdUntil >= :now"
            } else {
                "#holdUntil < :now"
            };
            header = header.and(&order_header::ON_TIME).condition(on_time).value(
                ":now",
                &order_header::HOLD_UNTIL,
                &Timestamp::now(),
            );
        }
        let gsi1pk = order_listing::gsi1pk(next, self.status_shards.of(&current.order_id));
        let listing =
            still(order_listing::STATUS_CHANGE.on(&self.table, order_listing::key(current)))
                .set(&order_listing::GSI1PK, &gsi1pk);
        (header, listing)
    }

    /// The refund a move of `details` to `next` requests: all that may still go back of a paid
    /// order cancelled.
    fn cancellation_refund(&self, details: &OrderDetails, next: OrderStatus) -> Option<Refund> {
        let order = &details.order;
        let balance = details.money.balance;
        let payment = order.payment_id.clone()?;
        if next != OrderStatus::Cancelled || balance.refundable <= 0 {
            return None;
        }
        Some(Refund::requested(
            RefundId::of_cancellation(&order.order_id),
            Some(order.order_id.clone()),
            payment,
            balance.refundable,
            self.currency.as_str(),
            RefundKind::Cancellation,
            CANCELLED_REASON.to_owned(),
        ))
    }

    /// The header and the listing moved from `current.status` to `next`
    /// ([`Store::status_updates`]), `restock`'s quantities given back to their products (and
    /// counted on their lines), and a cancellation's `refund` requested.
    fn status_transaction<'a>(
        &self,
        details: &OrderDetails,
        (next, settle): (OrderStatus, Settle<'_>),
        restock: &[(&'a LineItem, u32)],
        release: Release,
        refund: Option<&Refund>,
    ) -> Result<Transaction<StatusAction<'a>>, AppError> {
        let current = &details.order;
        let (mut header, listing) = self.status_updates(current, next, settle);
        if let Some(refund) = refund {
            // The header's own update draws on its balance: one action per item.
            header = header.merge(self.draw_on_balance(details, refund.amount));
        }
        let mut transaction = Transaction::with_capacity(4 + 2 * restock.len() + 6);
        transaction.update(StatusAction::Header, header.build()?)?;
        transaction.update(StatusAction::Listing, listing.build()?)?;
        for (line, quantity) in restock {
            let give_back = variant::STOCK_UPDATE
                .on(&self.table, variant::key(&line.sku))
                .add(&variant::STOCK_CHANGE, &i64::from(*quantity))
                .condition("attribute_exists(PK)");
            transaction.update(StatusAction::Restock(line), give_back.build()?)?;
            if details.money.balance.paid.is_some() {
                // A paid order's lines count what went back (whether or not the cancellation
                // has a refund to request), on the condition that nothing else put them back
                // since the order was read: a later refund, or one racing this, cannot restock
                // them again.
                let counted = line_item::restocked(
                    line_item::BACK.on(&self.table, line_item::key(&current.order_id, &line.sku)),
                    *quantity,
                    details.money.back(&line.sku).restocked,
                );
                transaction.update(StatusAction::Counted, counted.build()?)?;
            }
        }
        if let Some(refund) = refund {
            let record = refund::PUT
                .put(&self.table, refund::to_item(refund))
                .only_new();
            transaction.put(StatusAction::Refund, record.build()?)?;
        }
        if let Some(count) = self.release_holding(details, release)? {
            transaction.update(StatusAction::ReleasePlace, count)?;
        }
        if current.status == OrderStatus::PendingPayment && next != OrderStatus::Placed {
            // A hold ending unpaid gives its promotions' uses back.
            for give_back in self.give_back_uses(details)? {
                transaction.update(StatusAction::GiveBackUse, give_back)?;
            }
        }
        Ok(transaction)
    }
}

/// What a status change's cancellation leaves to send again, narrowed in place: products that
/// no longer exist get no stock back, and a count that never counted the order (placed before
/// the caps counted it: units first, the place was counted longer) gives nothing back. An
/// error when nothing explains the cancellation.
fn narrow(
    cancelled: &Cancelled<StatusAction<'_>>,
    current: &Order,
    restock: &mut Vec<(&LineItem, u32)>,
    release: &mut Release,
) -> Result<(), AppError> {
    let gone: Vec<&Sku> = cancelled
        .failed_conditions()
        .filter_map(|(action, _)| match action {
            StatusAction::Restock(line) => Some(&line.sku),
            _ => None,
        })
        .collect();
    let uncounted =
        cancelled.condition_failed(|action| matches!(action, StatusAction::ReleasePlace));
    if gone.is_empty() && !uncounted {
        return Err(cancelled.unexplained("status"));
    }
    if uncounted && release.held {
        release.held = false;
    } else if uncounted {
        release.place = false;
    }
    for sku in &gone {
        tracing::warn!(order = %current.order_id, %sku, "stock not given back: the product no longer exists");
    }
    restock.retain(|(line, _)| !gone.contains(&&line.sku));
    Ok(())
}
