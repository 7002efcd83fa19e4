//! Orders: placed in one transaction and read by order ID in one Query; `status` moves them
//! between statuses with the header and the listing kept in step.

mod status;

pub(crate) use status::Settle;
pub use status::StatusChangeError;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::builders::{DeleteBuilder, UpdateBuilder};
use aws_sdk_dynamodb::types::{Delete, Put};

use crate::domain::access::Caller;
use crate::domain::idempotency::{IDEMPOTENCY_TTL_SECONDS, IdempotencyRecord};
use crate::domain::ids::{CustomerId, IdempotencyKey, OrderId, Sku};
use crate::domain::order::{
    LineBack, LineItem, MAX_LINES, Order, OrderDetails, OrderMoney, RequestedLine, price_lines,
};
use crate::domain::product::Product;
use crate::dynamo::cart::StoredCartLine;
use crate::dynamo::codec::{self, Item, item_size};
use crate::dynamo::entities::{
    cart_line, customer, idempotency, line_item, open_order_count, order_header, order_listing,
    product, refund,
};
use crate::dynamo::keys::{Entity, ORDER_PARTITION, PK, SK};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::epoch_seconds;
use crate::dynamo::transaction::{Cancelled, MAX_ACTIONS, Outcome, Transaction};
use crate::dynamo::update::Change;
use crate::{AppError, Store};

/// DynamoDB's limits, checked before anything is sent.
const MAX_ITEM_BYTES: usize = 400 * 1024;
const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;

// An order's transaction: the listing, the header, the idempotency record, the customer's place
// under the cap, and per line its product's stock and the line item. Its first read: the profile, the record and the products.
const _: () = assert!(2 * MAX_LINES + 4 <= MAX_ACTIONS);
const _: () = assert!(MAX_LINES + 3 <= crate::dynamo::products::MAX_BATCH_GET);

/// What placing an order reads before it writes, in ONE BatchGetItem.
#[derive(Debug, Default)]
pub struct OrderInputs {
    /// The record an earlier request with the same Idempotency-Key left (unexpired).
    pub replay: Option<IdempotencyRecord>,
    /// The customer has a named profile (one holding only statistics is no customer yet).
    pub customer_named: bool,
    /// The products found, by SKU.
    pub products: HashMap<Sku, Product>,
    /// The customer's count of open orders has its map of held units (read for a checkout).
    pub counts_held: bool,
}

/// What a checkout adds to placing an order.
#[derive(Debug, Clone, Copy)]
pub struct CheckoutParts<'a> {
    /// The cart lines it empties, each only if still as read.
    pub cart: &'a [StoredCartLine],
    /// Whether the customer's count has its map of held units ([`OrderInputs::counts_held`]).
    pub counts_held: bool,
}

/// What an order's first read allows.
#[derive(Debug)]
pub enum Checked {
    /// An earlier request with the same Idempotency-Key was answered: answer the same.
    Replay(IdempotencyRecord),
    /// The lines, priced.
    Lines(Vec<LineItem>),
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
        price_lines(requested, &self.products).map(Checked::Lines)
    }
}

/// Why an order was not placed.
#[derive(Debug)]
pub enum PlaceOrderError {
    /// Another request holds the Idempotency-Key: read its record.
    KeyTaken,
    /// A concurrent transaction touched the same items; worth another try.
    Contended,
    /// A product's price changed between the read and the transaction: read again and retry
    /// (not the client's [`AppError::PriceChanged`], which a retry cannot mend).
    Repriced,
    /// These products have less stock than the order asks for.
    OutOfStock(Vec<Sku>),
    /// These products do not exist.
    UnknownProducts(Vec<Sku>),
    /// The customer holds this many open orders (PLACED, or holds waiting for payment)
    /// already: the most they may.
    TooManyOpen(u32),
    /// The customer's open checked-out orders would hold more than this many units of these
    /// products.
    TooMuchHeld(Vec<Sku>, u32),
    /// A cart line changed (or went) between the checkout's read and its transaction: read the
    /// cart again.
    CartChanged,
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
                | PlaceOrderError::KeyTaken
                | PlaceOrderError::Repriced
                | PlaceOrderError::CartChanged
        )
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
            PlaceOrderError::Contended => AppError::unavailable(
                "order transaction kept colliding with concurrent transactions",
            ),
            PlaceOrderError::KeyTaken
            | PlaceOrderError::Repriced
            | PlaceOrderError::CartChanged => {
                AppError::concurrent_change("the order collided with concurrent requests; retry it")
            }
            PlaceOrderError::OutOfStock(skus) => AppError::OutOfStock(skus),
            PlaceOrderError::UnknownProducts(skus) => AppError::UnknownProducts(skus),
            PlaceOrderError::TooManyOpen(limit) => AppError::TooManyOpenOrders(limit),
            PlaceOrderError::TooMuchHeld(skus, max) => AppError::TooMuchHeld { skus, max },
            PlaceOrderError::Failed(err) => err,
        }
    }
}

/// What an order leaving the open statuses gives back to its customer's count
/// ([`Store::release_holding`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Release {
    /// Its place under `MAX_OPEN_ORDERS`.
    pub place: bool,
    /// Its lines' units under `MAX_HELD_QUANTITY` (a checkout's).
    pub held: bool,
}

/// What each action of an order's transaction is for.
enum OrderAction<'a> {
    /// The line's product's stock taken, on its price and stock.
    TakeStock(&'a LineItem),
    /// The listing, the header or a line item, put where nothing is yet.
    Write,
    /// The idempotency record, put where none is (or an expired one).
    ClaimKey,
    /// One more of the customer's places for an open order, under the cap, and (a checkout's)
    /// its units counted, under theirs.
    TakePlace,
    /// A cart line checked out, deleted if it is still as read.
    EmptyCart,
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
/// unknown product first, then a changed price, then short stock, then the Idempotency-Key,
/// then a cart changed meanwhile, then the caps: on open orders, then on units held.
fn why_not_placed(
    cancelled: &Cancelled<OrderAction<'_>>,
    lines: &[LineItem],
    (max_open, max_held): (Option<u32>, Option<u32>),
) -> PlaceOrderError {
    let (mut unknown, mut short, mut repriced, mut key_taken) =
        (Vec::new(), Vec::new(), false, false);
    let (mut count, mut cart_changed) = (None, false);
    for (action, stored) in cancelled.failed_conditions() {
        match (action, stored) {
            (OrderAction::TakeStock(line), None) => unknown.push(line.sku.clone()),
            (OrderAction::TakeStock(line), Some(now))
                if product::PRICE.get(now) != Some(line.price) =>
            {
                repriced = true;
            }
            (OrderAction::TakeStock(line), Some(_)) => short.push(line.sku.clone()),
            (OrderAction::ClaimKey, _) => key_taken = true,
            (OrderAction::TakePlace, stored) => count = Some(stored.cloned().unwrap_or_default()),
            (OrderAction::EmptyCart, _) => cart_changed = true,
            (OrderAction::Write, _) => {}
        }
    }
    if !unknown.is_empty() {
        PlaceOrderError::UnknownProducts(unknown)
    } else if repriced {
        PlaceOrderError::Repriced
    } else if !short.is_empty() {
        PlaceOrderError::OutOfStock(short)
    } else if key_taken {
        PlaceOrderError::KeyTaken
    } else if cart_changed {
        PlaceOrderError::CartChanged
    } else if let Some(count) = count {
        why_not_counted(&count, lines, (max_open, max_held))
    } else if cancelled.conflicted() {
        PlaceOrderError::Contended
    } else {
        PlaceOrderError::Failed(cancelled.unexplained("order"))
    }
}

/// Why the customer's count refused an order, from the count as it stands: their places all
/// taken, or too many units of some products held; neither, and its map of held units came
/// (or went) since it was read: worth another try.
fn why_not_counted(
    count: &Item,
    lines: &[LineItem],
    (max_open, max_held): (Option<u32>, Option<u32>),
) -> PlaceOrderError {
    if let Some(max) = max_open
        && open_order_count::COUNT.get(count).unwrap_or(0) >= max
    {
        return PlaceOrderError::TooManyOpen(max);
    }
    if let Some(max) = max_held {
        let over: Vec<Sku> = lines
            .iter()
            .filter(|line| {
                open_order_count::held_units(count, &line.sku) + u64::from(line.quantity)
                    > u64::from(max)
            })
            .map(|line| line.sku.clone())
            .collect();
        if !over.is_empty() {
            return PlaceOrderError::TooMuchHeld(over, max);
        }
    }
    PlaceOrderError::Contended
}

/// `count` with each line's units added to what the customer holds of its product, on the
/// condition that none goes past `max`: the map set whole by the first checkout counted
/// (`counts_held` false, and only if it is still absent), its entries added to after.
fn held_counted(count: Change, lines: &[LineItem], counts_held: bool, max: u32) -> Change {
    use open_order_count::{HELD, UNITS};
    if !counts_held {
        return count
            .set(&HELD, &open_order_count::held_map(lines))
            .condition("attribute_not_exists(#held)")
            .returning_old_on_failure();
    }
    let count = count.condition("attribute_exists(#held)");
    let counted = lines.iter().enumerate().fold(count, |count, (n, line)| {
        let entry = Change::entry(&HELD, n);
        count
            .add_to_entry(&HELD, line.sku.as_str(), i64::from(line.quantity))
            .condition(format!(
                "attribute_not_exists({entry}) OR {entry} <= :room_{n}"
            ))
            .value_named(format!(":room_{n}"), &UNITS, &(max - line.quantity))
    });
    counted.returning_old_on_failure()
}

/// `count` with each line's units taken back from what the customer holds of its product, on
/// the condition that each entry holds them (an order counted before units were: it fails, and
/// the caller gives back the place alone).
fn held_released(count: Change, lines: &[LineItem]) -> Change {
    use open_order_count::{HELD, UNITS};
    lines.iter().enumerate().fold(count, |count, (n, line)| {
        let entry = Change::entry(&HELD, n);
        count
            .add_to_entry(&HELD, line.sku.as_str(), -i64::from(line.quantity))
            .condition(format!("{entry} >= :units_{n}"))
            .value_named(format!(":units_{n}"), &UNITS, &line.quantity)
    })
}

/// `item` has the keys of `key`.
fn has_key(item: &Item, key: &Item) -> bool {
    item.get(PK) == key.get(PK) && item.get(SK) == key.get(SK)
}

impl Store {
    /// The customer's profile, the products of `skus`, (with a key) the idempotency record and
    /// (with `holdings`, for a checkout) the customer's count of open orders, by ONE
    /// BatchGetItem: strongly consistent, or eventually at half the read units when the
    /// caller confirms every refusal with a consistent read (the order's transaction checks
    /// prices and stock itself, and a profile, once named, is never removed).
    pub async fn read_order_inputs(
        &self,
        customer: &CustomerId,
        idempotency_key: Option<&IdempotencyKey>,
        skus: &[Sku],
        (consistent, holdings): (bool, bool),
    ) -> Result<OrderInputs, AppError> {
        let profile_key = customer::key(customer);
        let record_key = idempotency_key.map(|key| idempotency::key(customer, key));
        let count_key = holdings.then(|| open_order_count::key(customer));
        let mut keys = vec![profile_key.clone()];
        keys.extend(record_key.clone());
        keys.extend(count_key.clone());
        keys.extend(skus.iter().map(product::key));
        let mut inputs = OrderInputs::default();
        for item in self.batch_get(keys, consistent).await? {
            if has_key(&item, &profile_key) {
                inputs.customer_named = item.contains_key(customer::NAME.name);
            } else if count_key.as_ref().is_some_and(|key| has_key(&item, key)) {
                inputs.counts_held = open_order_count::counts_held(&item);
            } else if record_key.as_ref().is_some_and(|key| has_key(&item, key)) {
                let (record, expires_at) = idempotency::from_item(item)?;
                // TTL deletes expired records only eventually.
                inputs.replay = (expires_at > epoch_seconds()).then_some(record);
            } else {
                let (product, _) = product::from_item(item)?;
                inputs.products.insert(product.sku.clone(), product);
            }
        }
        Ok(inputs)
    }

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
    ) -> Result<(), PlaceOrderError> {
        let (order, lines) = (&placed.order, &placed.items);
        let cart = checkout.map_or(&[][..], |parts| parts.cart);
        let mut transaction = Transaction::with_capacity(2 * lines.len() + 4 + cart.len());
        for line in lines {
            transaction.update(OrderAction::TakeStock(line), self.take_stock(line)?)?;
        }
        let mut new_items = vec![
            order_listing::to_item(order, self.status_shards),
            order_header::to_item(order),
        ];
        new_items.extend(lines.iter().map(|line| line_item::to_item(order, line)));
        let now = epoch_seconds();
        let record_item = idempotency.map(|(key, record)| {
            idempotency::to_item(
                &order.customer_id,
                key,
                record,
                now + IDEMPOTENCY_TTL_SECONDS,
            )
        });
        check_sizes(new_items.iter().chain(&record_item))?;
        for item in new_items {
            transaction.put(OrderAction::Write, self.put_new(item))?;
        }
        if let Some(count) = self.take_holding(placed, checkout.map(|parts| parts.counts_held))? {
            transaction.update(OrderAction::TakePlace, count.build()?)?;
        }
        if let Some(item) = record_item {
            // An expired record that TTL has not yet removed may be taken over.
            let put = Put::builder()
                .table_name(&self.table)
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(PK) OR #expires < :now")
                .expression_attribute_names("#expires", idempotency::EXPIRES_AT.name)
                .expression_attribute_values(":now", idempotency::EXPIRES_AT.value(&now));
            transaction.put(OrderAction::ClaimKey, put)?;
        }
        for line in cart {
            transaction.delete(
                OrderAction::EmptyCart,
                self.take_cart_line(&order.customer_id, line),
            )?;
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

    /// A line's stock taken, if its product still has the line's price and enough stock; the
    /// product as it is when not.
    fn take_stock(&self, line: &LineItem) -> Result<UpdateBuilder, AppError> {
        product::TAKE_STOCK
            .on(&self.table, product::key(&line.sku))
            .add(&product::STOCK_CHANGE, &-i64::from(line.quantity))
            .condition("#price = :price AND #stock >= :needed")
            .value(":price", &product::PRICE, &line.price)
            .value(":needed", &product::STOCK, &u64::from(line.quantity))
            .returning_old_on_failure()
            .build()
    }

    /// The customer's count of what they hold, taken in the order's transaction (one action on
    /// one item): one more place, only while they hold fewer than `MAX_OPEN_ORDERS`; and, for a
    /// checkout (`counts_held`: whether the count has its map yet), each line's units, only
    /// while that keeps the product's units held within `MAX_HELD_QUANTITY`. Racing checkouts
    /// cannot pass either cap together. None: no cap applies.
    fn take_holding(
        &self,
        placed: &OrderDetails,
        counts_held: Option<bool>,
    ) -> Result<Option<Change>, PlaceOrderError> {
        let customer = &placed.order.customer_id;
        let count = self.max_open_orders.map(|max| {
            self.count_change(customer)
                .add(&open_order_count::COUNT_CHANGE, &1)
                .condition("attribute_not_exists(#placedCount) OR #placedCount < :max")
                .value(":max", &open_order_count::COUNT, &max)
                .returning_old_on_failure()
        });
        let (Some(max), Some(counts_held)) = (self.max_held_quantity, counts_held) else {
            return Ok(count);
        };
        let over: Vec<Sku> = (placed.items.iter())
            .filter(|line| line.quantity > max)
            .map(|line| line.sku.clone())
            .collect();
        if !over.is_empty() {
            return Err(PlaceOrderError::TooMuchHeld(over, max));
        }
        let count = count.unwrap_or_else(|| self.count_change(customer));
        Ok(Some(held_counted(count, &placed.items, counts_held, max)))
    }

    /// An update of `customer`'s count, doing nothing yet.
    fn count_change(&self, customer: &CustomerId) -> Change {
        open_order_count::COUNT_UPDATE.on(&self.table, open_order_count::key(customer))
    }

    /// What `details` leaving the open statuses gives back to its customer's count, each part
    /// only where it was counted (never below zero): its place, and a checkout's units of each
    /// line. None: nothing to give back.
    pub(super) fn release_holding(
        &self,
        details: &OrderDetails,
        release: Release,
    ) -> Result<Option<UpdateBuilder>, AppError> {
        let customer = &details.order.customer_id;
        let mut count = release.place.then(|| {
            self.count_change(customer)
                .add(&open_order_count::COUNT_CHANGE, &-1)
                .condition("#placedCount > :zero")
                .value(":zero", &open_order_count::COUNT, &0)
        });
        if release.held {
            let count_or_new = count.unwrap_or_else(|| self.count_change(customer));
            count = Some(held_released(count_or_new, &details.items));
        }
        count.map(Change::build).transpose()
    }

    /// A cart line deleted, only if it is still as the checkout read it: its quantity and its
    /// expiry (which every edit moves).
    fn take_cart_line(&self, customer: &CustomerId, line: &StoredCartLine) -> DeleteBuilder {
        Delete::builder()
            .table_name(&self.table)
            .set_key(Some(cart_line::key(customer, &line.line.sku)))
            .condition_expression("#quantity = :quantity AND #expires = :expires")
            .expression_attribute_names("#quantity", cart_line::QUANTITY.name)
            .expression_attribute_names("#expires", cart_line::EXPIRES_AT.name)
            .expression_attribute_values(
                ":quantity",
                cart_line::QUANTITY.value(&line.line.quantity),
            )
            .expression_attribute_values(":expires", cart_line::EXPIRES_AT.value(&line.expires_at))
    }

    /// The order's header and line items, for a caller who may see the order (`None`
    /// otherwise, as for a missing order: the route admits its owner and staff,
    /// `Admits::OrderOwner`): ONE Query on the order's partition. The only way to read an order
    /// from outside the store: there is no read that does not take the caller.
    ///
    /// ```compile_fail
    /// # async fn unchecked(store: &shared::Store, id: &shared::domain::ids::OrderId) {
    /// let _ = store.read_order(id).await; // private: an order is read for a caller
    /// # }
    /// ```
    /// ```compile_fail
    /// # async fn unchecked(store: &shared::Store, id: &shared::domain::ids::OrderId) {
    /// let _ = store.read_header(id).await; // private too
    /// # }
    /// ```
    pub async fn get_order(
        &self,
        order: &OrderId,
        caller: &Caller,
    ) -> Result<Option<OrderDetails>, AppError> {
        Ok(self
            .read_order(order)
            .await?
            .filter(|details| caller.may_see_order(Some(&details.order.customer_id))))
    }

    /// The order's header and line items, whoever asks (the store's own work: a hold's end):
    /// ONE strongly consistent Query on the order's partition.
    pub(crate) async fn read_order(
        &self,
        order: &OrderId,
    ) -> Result<Option<OrderDetails>, AppError> {
        let out = KeyQuery::on(Index::Table, order_header::pk(order))
            .request(self)
            .consistent_read(true)
            .send()
            .await?;
        let mut found = None;
        let mut lines = Vec::new();
        let mut money = OrderMoney::default();
        for item in out.items.unwrap_or_default() {
            let sk = codec::SK.get(&item).unwrap_or_default();
            match ORDER_PARTITION.entity_of(&sk) {
                Some(Entity::OrderHeader) => {
                    money.balance = order_header::balance(&item);
                    found = Some(order_header::from_item(item)?);
                }
                Some(Entity::LineItem) => {
                    let back = line_item::back(&item);
                    let line = line_item::from_item(item)?;
                    if back != LineBack::default() {
                        money.lines.insert(line.sku.clone(), back);
                    }
                    lines.push(line);
                }
                Some(Entity::OrderRefund) => money.refunds.push(refund::from_item(item)?),
                _ => {}
            }
        }
        Ok(found.map(|order| OrderDetails {
            order,
            items: lines,
            money: Box::new(money),
        }))
    }

    /// The order's header alone (one strongly consistent GetItem): what a payment is judged
    /// against.
    pub(crate) async fn read_header(&self, order: &OrderId) -> Result<Option<Order>, AppError> {
        let item = self.get_consistent(order_header::key(order)).await?;
        Ok(item.map(order_header::from_item).transpose()?)
    }
}
