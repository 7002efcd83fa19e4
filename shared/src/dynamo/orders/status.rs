//! An order's status change: the header and the listing moved together in one transaction,
//! each only if its status is still the one read, with a cancellation's stock given back and the
//! customer's place under the cap released when the order leaves PLACED.

use crate::domain::ids::{OrderId, Sku};
use crate::domain::order::{LineItem, Order};
use crate::domain::status::OrderStatus;
use crate::domain::time::Timestamp;
use crate::dynamo::entities::{order_header, order_listing, product};
use crate::dynamo::transaction::{Outcome, Transaction};
use crate::dynamo::update::Change;
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

/// What each action of a status change is for.
enum StatusAction<'a> {
    Header,
    Listing,
    Restock(&'a LineItem),
    /// The order leaves PLACED: its place under the cap is given back.
    ReleasePlace,
}

impl Store {
    /// Moves the order from `current.status` to `next` in ONE TransactWriteItems: the header and
    /// the listing item (whose GSI1PK follows the status), each only if its status is still the
    /// one read, so of two racing changes only one can win. A cancellation, or a hold's end,
    /// gives each line's quantity back to its product's stock in the same transaction (a product
    /// that no longer exists is left out, and logged). A hold ends (EXPIRED) only once its
    /// `holdUntil` has passed ([`Store::status_updates`]).
    pub async fn change_status(
        &self,
        current: &Order,
        next: OrderStatus,
        lines: &[LineItem],
    ) -> Result<(), StatusChangeError> {
        let mut restock: Vec<&LineItem> = if next.gives_stock_back() {
            lines.iter().collect()
        } else {
            Vec::new()
        };
        // Leaving the open statuses gives the customer's place under the cap back.
        let mut release =
            current.status.holds_place() && !next.holds_place() && self.max_open_orders.is_some();
        loop {
            let transaction = self.status_transaction(current, next, &restock, release)?;
            let cancelled = match self.send(transaction).await? {
                Outcome::Committed => return Ok(()),
                Outcome::Cancelled(cancelled) => cancelled,
            };
            if let Some((_, stored)) = cancelled
                .failed_conditions()
                .find(|(action, _)| matches!(action, StatusAction::Header))
            {
                return Err(StatusChangeError::Stale {
                    order: current.order_id.clone(),
                    now: stored.and_then(|item| order_listing::STATUS.get(item)),
                    next,
                });
            }
            if cancelled.conflicted() {
                return Err(StatusChangeError::Contended);
            }
            if cancelled.condition_failed(|action| matches!(action, StatusAction::Listing)) {
                return Err(AppError::internal(format!(
                    "order {} has a header but its listing item is missing or out of step",
                    current.order_id
                ))
                .into());
            }
            // Products that no longer exist: give their stock back to nobody, and send again.
            let gone: Vec<&Sku> = cancelled
                .failed_conditions()
                .filter_map(|(action, _)| match action {
                    StatusAction::Restock(line) => Some(&line.sku),
                    _ => None,
                })
                .collect();
            // No place to give back: the order was placed before the cap counted places.
            let nothing_held =
                cancelled.condition_failed(|action| matches!(action, StatusAction::ReleasePlace));
            if gone.is_empty() && !nothing_held {
                return Err(cancelled.unexplained("status").into());
            }
            release &= !nothing_held;
            for sku in &gone {
                tracing::warn!(order = %current.order_id, %sku, "stock not given back: the product no longer exists");
            }
            restock.retain(|line| !gone.contains(&&line.sku));
        }
    }

    /// The header's and the listing's updates moving `current` to `next`, each only if its
    /// status is still the one read (the listing's GSI1PK follows the status, in the order's
    /// shard). A hold's header moves only on its time: paid while it lasts (`holdUntil >= now`),
    /// ended once it has passed (`holdUntil < now`), so of a payment and an expiry racing on
    /// one hold exactly one commits. The header returns what it holds when its condition fails.
    pub(crate) fn status_updates(&self, current: &Order, next: OrderStatus) -> (Change, Change) {
        let still = |change: Change| {
            change
                .set(&order_listing::STATUS, &next)
                .condition("#status = :current")
                .value(":current", &order_listing::STATUS, &current.status)
        };
        let mut header = still(
            order_header::STATUS_CHANGE.on(&self.table, order_header::key(&current.order_id)),
        )
        .returning_old_on_failure();
        if current.status.can_settle_as(next) {
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

    /// The header and the listing moved from `current.status` to `next`
    /// ([`Store::status_updates`]), and `restock`'s quantities given back to their products.
    fn status_transaction<'a>(
        &self,
        current: &Order,
        next: OrderStatus,
        restock: &[&'a LineItem],
        release: bool,
    ) -> Result<Transaction<StatusAction<'a>>, AppError> {
        let (header, listing) = self.status_updates(current, next);
        let mut transaction = Transaction::with_capacity(3 + restock.len());
        transaction.update(StatusAction::Header, header.build()?)?;
        transaction.update(StatusAction::Listing, listing.build()?)?;
        for line in restock {
            let give_back = product::STOCK_UPDATE
                .on(&self.table, product::key(&line.sku))
                .add(&product::STOCK_CHANGE, &i64::from(line.quantity))
                .condition("attribute_exists(PK)");
            transaction.update(StatusAction::Restock(line), give_back.build()?)?;
        }
        if release {
            transaction.update(
                StatusAction::ReleasePlace,
                self.release_place(&current.customer_id)?,
            )?;
        }
        Ok(transaction)
    }
}
