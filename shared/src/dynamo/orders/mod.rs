//! Orders placed in one transaction (this file), after `inputs`, their first read; `read`
//! reads one by its ID in one Query;
//! `caps` keeps the customer's count of what they hold open, in the order's own transaction;
//! `status` moves an order between statuses with the header and the listing kept in step;
//! `lines` ships its lines in fulfilments, the status following; `give_back` refunds and
//! cancels lines.

mod caps;
mod give_back;
mod inputs;
mod lines;
mod read;
mod returns;
mod status;
mod takes;
mod uses;

use caps::{Release, why_not_counted};

pub use give_back::{GiveBack, GivenBack};
pub use lines::{Shipped, Shipping};
pub use returns::ReturnWritten;
pub(crate) use status::Settle;
pub use status::StatusChangeError;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::builders::DeleteBuilder;

use crate::domain::cart::MAX_CART_LINES;
use crate::domain::idempotency::{IDEMPOTENCY_TTL_SECONDS, IdempotencyRecord};
use crate::domain::ids::{CustomerId, IdempotencyKey, Sku};
use crate::domain::order::{LineItem, MAX_LINES, OrderDetails, RequestedLine, price_lines};
use crate::domain::product::ProductStatus;
use crate::domain::stock_shards::StockLevels;
use crate::domain::variant::Variant;
use crate::dynamo::cart::StoredCartLine;
use crate::dynamo::codec::{Item, item_size};
use crate::dynamo::entities::{
    cart_line, idempotency, line_item, order_header, order_listing, variant,
};
use crate::dynamo::store::epoch_seconds;
use crate::dynamo::transaction::{Cancelled, MAX_ACTIONS, Outcome, Transaction};
use crate::{AppError, Store};

/// DynamoDB's limits, checked before anything is sent.
const MAX_ITEM_BYTES: usize = 400 * 1024;
const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;

// An order's transaction: the listing, the header, the idempotency record, the customer's place
// under the cap, and per line its product's stock and the line item. Its first read: the profile, the record and the products.
const _: () = assert!(2 * MAX_LINES + 4 <= MAX_ACTIONS);
// A checkout's: the same, a cart line deleted per line, and the promotions' counts.
const _: () = assert!(3 * MAX_CART_LINES + 4 + uses::MAX_COUNTS <= MAX_ACTIONS);
const _: () = assert!(MAX_LINES + 3 <= crate::dynamo::products::MAX_BATCH_GET);

/// What placing an order reads before it writes, in ONE BatchGetItem.
#[derive(Debug, Default)]
pub struct OrderInputs {
    /// The record an earlier request with the same Idempotency-Key left (unexpired).
    pub replay: Option<IdempotencyRecord>,
    /// The customer has a named profile (one holding only statistics is no customer yet).
    pub customer_named: bool,
    /// The variants found, by SKU.
    pub products: HashMap<Sku, Variant>,
    /// The customer's count of open orders has its map of held units (read for a checkout).
    pub counts_held: bool,
    /// The shipping address the customer keeps on their profile.
    pub address: Option<crate::domain::address::Address>,
    /// The levels of the stock shards of the variants that have more than one (each such
    /// variant's `stock` is their sum), read as the variants were.
    pub levels: StockLevels,
}

/// What a checkout adds to placing an order.
#[derive(Debug, Clone, Copy)]
pub struct CheckoutParts<'a> {
    /// The cart lines it empties, each only if still as read.
    pub cart: &'a [StoredCartLine],
    /// Whether the customer's count has its map of held units ([`OrderInputs::counts_held`]).
    pub counts_held: bool,
}

/// How an order's first read reads ([`Store::read_order_inputs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputsRead {
    /// Everything strongly consistent, in one BatchGetItem.
    Consistent,
    /// Everything eventually consistent, in one BatchGetItem, at half the read units: for a
    /// caller that reads again consistently before it refuses (the order's transaction checks
    /// prices and stock itself, and a profile, once named, is never removed).
    Eventual,
    /// The customer's own items (profile, idempotency record, count) strongly consistent, and
    /// the variants eventually: two BatchGetItems, one after the other on the process's first
    /// order (at once, a cold start would open a second connection for the second, and pay its
    /// TLS handshake), at once after that (one round trip; the second connection is opened
    /// once, on a warm process, and kept; a checkout sends its cart's Query beside the first,
    /// [`Store::read_checkout_inputs`]). A variant
    /// that every buyer reads at once (a flash sale) costs half a read unit a buyer: 6,000 a
    /// second before its partition throttles, where consistent reads stop at 3,000. A replay is
    /// still found before anything is refused; the transaction checks the variants' prices and
    /// stock itself, so a stale variant can only refuse (a unit given back in the last moment
    /// read as not there yet), never sell what is not there.
    VariantsEventual,
}

/// What an order's first read allows.
#[derive(Debug)]
pub enum Checked {
    /// An earlier request with the same Idempotency-Key was answered: answer the same.
    Replay(IdempotencyRecord),
    /// The lines, priced, and their SKUs' stock shards' levels, for the takes.
    Lines(Vec<LineItem>, StockLevels),
}

impl OrderInputs {
    /// The inputs checked: a replay, or the priced lines; else why not (no customer, or a
    /// refusal of [`price_lines`]).
    pub fn checked(
        self,
        customer: &CustomerId,
        requested: &[RequestedLine],
    ) -> Result<Checked, AppError> {
        if let Some(record) = self.replay {
            return Ok(Checked::Replay(record));
        }
        if !self.customer_named {
            return Err(AppError::not_found(format!(
                "customer {customer} does not exist"
            )));
        }
        let lines = price_lines(requested, &self.products)?;
        Ok(Checked::Lines(lines, self.levels))
    }
}

/// Why an order was not placed.
#[derive(Debug)]
pub enum PlaceOrderError {
    /// Another request holds the Idempotency-Key: read its record.
    KeyTaken,
    /// A concurrent transaction touched the same items; worth another try.
    Contended,
    /// A concurrent transaction was taking from the same stock shards, or their partitions
    /// were out of capacity, and nothing else collided: the next attempt starts on other
    /// shards ([`crate::domain::stock_shards::buyer_seed`]), at once.
    ShardTaken,
    /// A product's price changed between the read and the transaction: read again and retry
    /// (not the client's [`AppError::PriceChanged`], which a retry cannot mend).
    Repriced,
    /// These products have less stock than the order asks for.
    OutOfStock(Vec<Sku>),
    /// These products do not exist.
    UnknownProducts(Vec<Sku>),
    /// These variants' products are not published (any more).
    NotForSale(Vec<Sku>),
    /// The customer holds this many open orders (PLACED, or holds waiting for payment)
    /// already: the most they may.
    TooManyOpen(u32),
    /// The customer's open checked-out orders would hold more than this many units of these
    /// products.
    TooMuchHeld(Vec<Sku>, u32),
    /// A cart line changed (or went) between the checkout's read and its transaction: read the
    /// cart again.
    CartChanged,
    /// A promotion's last use was taken between the checkout's read and its transaction: read
    /// the counts again (the promotion then no longer applies, or its code is used up).
    UsedUp,
    /// A refusal decided on variants read eventually ([`InputsRead::VariantsEventual`]): read
    /// them again consistently before the client is refused.
    ReadAgain,
    /// Anything else: what the client is told.
    Failed(AppError),
}

impl PlaceOrderError {
    /// Worth another attempt: a transaction that collided with a concurrent one, a key that
    /// another request took meanwhile (the next attempt reads its record and replays it), a
    /// price that changed between the read and the write, or a cart edited meanwhile (the next
    /// attempt reads them again).
    pub fn worth_retrying(&self) -> bool {
        matches!(
            self,
            PlaceOrderError::Contended
                | PlaceOrderError::ShardTaken
                | PlaceOrderError::KeyTaken
                | PlaceOrderError::Repriced
                | PlaceOrderError::CartChanged
                | PlaceOrderError::UsedUp
                | PlaceOrderError::ReadAgain
        )
    }

    /// A collision with another buyer's transaction (on stock shards or elsewhere): what the
    /// attempt read was not wrong.
    pub fn collided(&self) -> bool {
        matches!(
            self,
            PlaceOrderError::Contended | PlaceOrderError::ShardTaken
        )
    }

    /// Whether and when to try again: at once after a collision (or a throttle) on stock
    /// shards alone (the next attempt takes from others), after the backoff's wait for
    /// anything else worth it.
    pub fn again(&self) -> crate::retry::Again {
        use crate::retry::Again;
        match self {
            PlaceOrderError::ShardTaken => Again::AtOnce,
            other if other.worth_retrying() => Again::AfterWait,
            _ => Again::Never,
        }
    }
}

impl From<AppError> for PlaceOrderError {
    fn from(err: AppError) -> Self {
        PlaceOrderError::Failed(err)
    }
}

/// What a client is told once retrying is over.
impl From<PlaceOrderError> for AppError {
    fn from(err: PlaceOrderError) -> Self {
        match err {
            // Every retry collided with another transaction: nothing was written.
            PlaceOrderError::Contended | PlaceOrderError::ShardTaken => AppError::unavailable(
                "order transaction kept colliding with concurrent transactions",
            ),
            PlaceOrderError::KeyTaken
            | PlaceOrderError::Repriced
            | PlaceOrderError::CartChanged
            | PlaceOrderError::UsedUp
            | PlaceOrderError::ReadAgain => {
                AppError::concurrent_change("the order collided with concurrent requests; retry it")
            }
            PlaceOrderError::OutOfStock(skus) => AppError::OutOfStock(skus),
            PlaceOrderError::UnknownProducts(skus) => AppError::UnknownProducts(skus),
            PlaceOrderError::NotForSale(skus) => AppError::NotForSale(skus),
            PlaceOrderError::TooManyOpen(limit) => AppError::TooManyOpenOrders(limit),
            PlaceOrderError::TooMuchHeld(skus, max) => AppError::TooMuchHeld { skus, max },
            PlaceOrderError::Failed(err) => err,
        }
    }
}

/// What each action of an order's transaction is for.
enum OrderAction<'a> {
    /// The line's product's stock taken from its variant's item, on its price and stock (a
    /// sharded SKU's: a short item is not the SKU sold out).
    TakeStock(&'a LineItem, bool),
    /// Units of the line taken from one of its SKU's stock shards, on its copies of the price
    /// and status.
    TakeShard(&'a LineItem),
    /// The listing, the header or a line item, put where nothing is yet.
    Write,
    /// The idempotency record, put where none is (or an expired one).
    ClaimKey,
    /// One more of the customer's places for an open order, under the cap, and (a checkout's)
    /// its units counted, under theirs.
    TakePlace,
    /// A cart line checked out, deleted if it is still as read.
    EmptyCart,
    /// A promotion's use counted, under its limit.
    CountUse,
}

/// DynamoDB's item and transaction size limits, checked before anything is sent.
fn check_sizes<'a>(items: impl Iterator<Item = &'a Item>) -> Result<(), AppError> {
    let sizes: Vec<usize> = items.map(item_size).collect();
    if sizes.iter().any(|size| *size > MAX_ITEM_BYTES)
        || sizes.iter().sum::<usize>() > MAX_TRANSACTION_BYTES
    {
        return Err(AppError::PayloadTooLarge(
            "the order exceeds DynamoDB's item or transaction size limit".into(),
        ));
    }
    Ok(())
}

/// Why a cancelled order transaction was cancelled, from what its products hold now: an
/// unknown product first, then one no longer for sale, then a changed price, then a stock
/// shard short or gone (read the levels again), then short stock, then the Idempotency-Key,
/// then a cart changed meanwhile, then the caps: on open orders, then on units held.
fn why_not_placed(
    cancelled: &Cancelled<OrderAction<'_>>,
    lines: &[LineItem],
    (max_open, max_held): (Option<u32>, Option<u32>),
) -> PlaceOrderError {
    let (mut unknown, mut short, mut repriced, mut key_taken) =
        (Vec::new(), Vec::new(), false, false);
    let mut not_for_sale = Vec::new();
    let (mut count, mut cart_changed, mut used_up) = (None, false, false);
    let mut read_again = false;
    for (action, stored) in cancelled.failed_conditions() {
        match (action, stored) {
            (OrderAction::TakeStock(line, _), None) => unknown.push(line.sku.clone()),
            // A shard dropped since the read: its count was lowered.
            (OrderAction::TakeShard(_), None) => read_again = true,
            (OrderAction::TakeStock(line, _) | OrderAction::TakeShard(line), Some(now))
                if variant::STATUS.get(now).unwrap_or_default() != ProductStatus::Published =>
            {
                not_for_sale.push(line.sku.clone());
            }
            (OrderAction::TakeStock(line, _) | OrderAction::TakeShard(line), Some(now))
                if variant::PRICE.get(now) != Some(line.price) =>
            {
                repriced = true;
            }
            // One shard short, read as it was: the others may hold the units.
            (OrderAction::TakeStock(_, true) | OrderAction::TakeShard(_), Some(_)) => {
                read_again = true;
            }
            (OrderAction::TakeStock(line, false), Some(_)) => short.push(line.sku.clone()),
            (OrderAction::ClaimKey, _) => key_taken = true,
            (OrderAction::TakePlace, stored) => count = Some(stored.cloned().unwrap_or_default()),
            (OrderAction::EmptyCart, _) => cart_changed = true,
            (OrderAction::CountUse, _) => used_up = true,
            (OrderAction::Write, _) => {}
        }
    }
    if !unknown.is_empty() {
        PlaceOrderError::UnknownProducts(unknown)
    } else if !not_for_sale.is_empty() {
        PlaceOrderError::NotForSale(not_for_sale)
    } else if repriced {
        PlaceOrderError::Repriced
    } else if read_again {
        PlaceOrderError::ReadAgain
    } else if !short.is_empty() {
        PlaceOrderError::OutOfStock(short)
    } else if key_taken {
        PlaceOrderError::KeyTaken
    } else if cart_changed {
        PlaceOrderError::CartChanged
    } else if used_up {
        PlaceOrderError::UsedUp
    } else if let Some(count) = count {
        why_not_counted(&count, lines, (max_open, max_held))
    } else if cancelled.collided_only_at(|a| matches!(a, OrderAction::TakeShard(_))) {
        PlaceOrderError::ShardTaken
    } else if cancelled.conflicted() {
        PlaceOrderError::Contended
    } else {
        PlaceOrderError::Failed(cancelled.unexplained("order"))
    }
}

impl Store {
    /// Places `placed` in ONE TransactWriteItems: each line's product's stock taken on the
    /// condition that its price is still the line's (the price read from the catalog) and that
    /// enough remains, the listing item, the header, the line items, and (with a key) the
    /// idempotency record, each put only where nothing is yet. The customer was read to exist
    /// first ([`Store::read_order_inputs`]): profiles are never deleted, so no ConditionCheck
    /// (two write units) is spent on it again.
    ///
    /// A checkout (a PENDING_PAYMENT order, its stock held rather than taken: the same
    /// decrement, given back if the hold ends unpaid) also deletes the cart lines it was made
    /// of, each only if it is still as read, so an edit racing the checkout fails it whole, and
    /// counts its units against the customer's cap on what they may hold
    /// ([`Store::take_holding`]).
    pub async fn place_order(
        &self,
        placed: &OrderDetails,
        idempotency: Option<(&IdempotencyKey, &IdempotencyRecord)>,
        checkout: Option<CheckoutParts<'_>>,
        levels: &StockLevels,
    ) -> Result<(), PlaceOrderError> {
        let (order, lines) = (&placed.order, &placed.items);
        let cart = checkout.map_or(&[][..], |parts| parts.cart);
        let mut transaction = Transaction::with_capacity(2 * lines.len() + 4 + cart.len());
        // Each buyer starts on the shard their read did.
        self.take_lines(&mut transaction, lines, levels)?;
        // A checkout's order is a hold, with what a hold writes besides.
        let (listing, header) = match checkout {
            Some(_) => (&order_listing::PUT_HOLD, &order_header::PUT_HOLD),
            None => (&order_listing::PUT, &order_header::PUT),
        };
        let mut new_items = vec![
            (listing, order_listing::to_item(order, self.status_shards)),
            (
                header,
                order_header::hold_item(order, placed.charged.as_deref()),
            ),
        ];
        new_items.extend((lines.iter()).map(|line| {
            let shards = levels.count(&line.sku);
            (&line_item::PUT, line_item::to_item(order, line, shards))
        }));
        let now = epoch_seconds();
        let record_item = idempotency.map(|(key, record)| {
            idempotency::to_item(
                &order.customer_id,
                key,
                record,
                now + IDEMPOTENCY_TTL_SECONDS,
            )
        });
        check_sizes((new_items.iter().map(|(_, item)| item)).chain(&record_item))?;
        for (spec, item) in new_items {
            let put = spec.put(&self.table, item).only_new();
            transaction.put(OrderAction::Write, put.build()?)?;
        }
        if let Some(count) = self.take_holding(placed, checkout.map(|parts| parts.counts_held))? {
            transaction.update(OrderAction::TakePlace, count.build()?)?;
        }
        if let Some(item) = record_item {
            // An expired record that TTL has not yet removed may be taken over.
            let put = (idempotency::PUT.put(&self.table, item))
                .new_or_expired(&idempotency::EXPIRES_AT, now);
            transaction.put(OrderAction::ClaimKey, put.build()?)?;
        }
        for line in cart {
            transaction.delete(
                OrderAction::EmptyCart,
                self.take_cart_line(&order.customer_id, line)?,
            )?;
        }
        for count in self.count_uses(placed)? {
            transaction.update(OrderAction::CountUse, count)?;
        }
        // A line no one stock shard holds enough of takes from several: one action each.
        if transaction.len() > MAX_ACTIONS {
            return Err(AppError::PayloadTooLarge(
                "the order's lines take their stock from more shards than one transaction holds; order fewer lines at once".into(),
            )
            .into());
        }
        match self.send(transaction).await? {
            Outcome::Committed => Ok(()),
            Outcome::Cancelled(cancelled) => Err(why_not_placed(
                &cancelled,
                lines,
                (self.max_open_orders, self.max_held_quantity),
            )),
        }
    }

    /// A cart line deleted, only if it is still as the checkout read it: its quantity and its
    /// expiry (which every edit moves).
    fn take_cart_line(
        &self,
        customer: &CustomerId,
        line: &StoredCartLine,
    ) -> Result<DeleteBuilder, AppError> {
        (cart_line::TAKE.delete(&self.table, cart_line::key(customer, &line.line.sku)))
            .condition("#quantity = :quantity AND #expiresAt = :expires")
            .value(":quantity", &cart_line::QUANTITY, &line.line.quantity)
            .value(":expires", &cart_line::EXPIRES_AT, &line.expires_at)
            .build()
    }
}
