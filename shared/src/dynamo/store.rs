//! The store: the table and its client, built once per cold start, and the connection warm-up.
//! Transactions are sent by `transaction.rs`.

use std::time::{SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::Client;

use crate::AppError;
use crate::domain::cart::CartTtl;
use crate::domain::checkout::HoldDuration;
use crate::domain::currency::Currency;
use crate::dynamo::codec::{self, Item};
use crate::dynamo::keys;

/// The table and what every request needs. Built once per cold start.
#[derive(Debug, Clone)]
pub struct Store {
    pub(crate) client: Client,
    pub(crate) table: String,
    /// How many GSI1 partitions each status is spread over (`STATUS_SHARDS`; 1 by default).
    pub(crate) status_shards: keys::StatusShards,
    /// The most PLACED orders a customer may hold at once (`MAX_OPEN_ORDERS`; none: no cap).
    pub(crate) max_open_orders: Option<u32>,
    /// The most units of one product a customer's checked-out open orders may hold at once
    /// (`MAX_HELD_QUANTITY`; none: no cap, and nothing counted).
    pub(crate) max_held_quantity: Option<u32>,
    /// How long a cart line lives after its last change (`CART_TTL_DAYS`).
    pub(crate) cart_ttl: CartTtl,
    /// How long a checkout holds its stock for payment (`HOLD_MINUTES`).
    pub(crate) hold: HoldDuration,
    /// The store's currency (`CURRENCY`): what a payment must be in.
    pub(crate) currency: Currency,
    /// How many days after their delivery units may be returned (`RETURN_WINDOW_DAYS`).
    pub(crate) return_window_days: u32,
    /// The bucket products' pictures live in, for the functions that serve them.
    pub(crate) media: Option<crate::media::MediaBucket>,
    /// Whether the catalog's prices include tax (`PRICES_INCLUDE_TAX`).
    pub(crate) prices_include_tax: bool,
    /// How many stock shards each sharded SKU had when this process last read it: an order's
    /// read asks for the shards beside the variants, in the same BatchGetItem.
    pub(crate) shard_counts: crate::domain::stock_shards::ShardCounts,
    /// Copies of the hot items a flash sale's checkouts read, for a second
    /// ([`crate::dynamo::recent`]).
    pub(crate) recent: crate::dynamo::recent::Recent,
    /// Whether this process has read an order's inputs before: from then on a checkout's first
    /// reads go at once ([`Store::read_checkout_inputs`]).
    pub(crate) has_read: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Whether this process's last checkout asked for a SKU its copy says is sold out: the next
    /// reads its cart first, alone, and is answered from it if it asks for one too
    /// ([`Store::read_checkout_inputs`]).
    pub(crate) cart_first: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// How an order's transaction is tried again after it collided with another
    /// ([`crate::retry::Backoff::TRANSACTION`] but in a test).
    pub(crate) transaction_backoff: crate::retry::Backoff,
}

/// Seconds since the Unix epoch, as the table's TTL attribute counts them.
pub(crate) fn epoch_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A builder's result as ours: a request we build that does not build is our bug.
pub(crate) fn built<T, E: std::error::Error + Send + Sync + 'static>(
    r: Result<T, E>,
) -> Result<T, AppError> {
    r.map_err(AppError::internal)
}

impl Store {
    /// A store on `table`, through `client`: one status shard, no cap on open orders.
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        Self {
            client,
            table: table.into(),
            status_shards: keys::StatusShards::ONE,
            max_open_orders: None,
            max_held_quantity: None,
            cart_ttl: CartTtl::default(),
            hold: HoldDuration::default(),
            currency: Currency::default(),
            return_window_days: crate::domain::returns::DEFAULT_RETURN_WINDOW_DAYS,
            media: None,
            prices_include_tax: false,
            shard_counts: Default::default(),
            recent: Default::default(),
            has_read: Default::default(),
            cart_first: Default::default(),
            transaction_backoff: crate::retry::Backoff::TRANSACTION,
        }
    }

    /// The same store, an order's transaction tried again with `backoff` (a test's, which must
    /// tell a wait from none).
    pub fn with_transaction_backoff(mut self, backoff: crate::retry::Backoff) -> Self {
        self.transaction_backoff = backoff;
        self
    }

    /// How an order's transaction is tried again after it collided with another.
    pub fn transaction_backoff(&self) -> &crate::retry::Backoff {
        &self.transaction_backoff
    }

    /// The same store, its copies of a flash sale's hot items kept for `ttl`
    /// ([`crate::dynamo::recent`]; zero: none, every read reads, as the capacity bench counts).
    pub fn with_copies_kept(mut self, ttl: std::time::Duration) -> Self {
        self.recent = crate::dynamo::recent::Recent::keeping(ttl);
        self
    }

    /// The same store, its prices including tax when `include` says so.
    pub fn with_prices_include_tax(mut self, include: bool) -> Self {
        self.prices_include_tax = include;
        self
    }

    /// Whether the catalog's prices include tax.
    pub fn prices_include_tax(&self) -> bool {
        self.prices_include_tax
    }

    /// With the bucket products' pictures live in.
    pub fn with_media(mut self, bucket: crate::media::MediaBucket) -> Self {
        self.media = Some(bucket);
        self
    }

    /// The same store, taking returns for `days` days after delivery.
    pub fn with_return_window_days(mut self, days: u32) -> Self {
        self.return_window_days = days;
        self
    }

    /// How many days after their delivery units may be returned.
    pub fn return_window_days(&self) -> u32 {
        self.return_window_days
    }

    /// The same store, its checkouts holding stock for `hold`.
    pub fn with_hold(mut self, hold: HoldDuration) -> Self {
        self.hold = hold;
        self
    }

    /// The same store, charging in `currency`.
    pub fn with_currency(mut self, currency: Currency) -> Self {
        self.currency = currency;
        self
    }

    /// How long a checkout holds its stock.
    pub fn hold(&self) -> HoldDuration {
        self.hold
    }

    /// The item at `key`, read strongly consistent (one GetItem).
    pub(crate) async fn get_consistent(&self, key: Item) -> Result<Option<Item>, AppError> {
        let out = (self.client.get_item())
            .table_name(&self.table)
            .set_key(Some(key))
            .consistent_read(true)
            .send()
            .await?;
        Ok(out.item)
    }

    /// The store's currency.
    pub fn currency(&self) -> &Currency {
        &self.currency
    }

    /// The same store, its cart lines living `ttl` after their last change.
    pub fn with_cart_ttl(mut self, ttl: CartTtl) -> Self {
        self.cart_ttl = ttl;
        self
    }

    /// The same store, refusing an order that would give its customer more than `max` PLACED
    /// orders at once (decided inside the order's transaction).
    pub fn with_max_open_orders(mut self, max: Option<u32>) -> Self {
        self.max_open_orders = max;
        self
    }

    /// The same store, refusing a checkout that would leave its customer's open checked-out
    /// orders holding more than `max` units of one product (decided inside the checkout's
    /// transaction, and counted back as each order leaves the open statuses).
    pub fn with_max_held_quantity(mut self, max: Option<u32>) -> Self {
        self.max_held_quantity = max;
        self
    }

    /// The same store, writing and listing orders by status over `shards` GSI1 partitions.
    pub fn with_status_shards(mut self, shards: keys::StatusShards) -> Self {
        self.status_shards = shards;
        self
    }

    /// The SDK client, for what the store itself does not send (tests, tools).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The table's name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// Opens the connection to DynamoDB (TCP, TLS, the first request's one-time setup) by
    /// reading the reserved warm-up key, so that the first invocation does not pay for it: where
    /// init runs ahead of traffic, or on a whole CPU at a small memory size
    /// (`bootstrap::opens_connections_in_init`). Measured on
    /// loopback, the first request over TLS costs ~3 M instructions and ~2-3 ms more than a
    /// warm one (docs/performance.md). Bounded to one second and never fatal: a cold start must
    /// not fail over it.
    pub async fn warm_up(&self) {
        let read = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(codec::primary_key(
                keys::warm_up::PK.to_owned(),
                keys::warm_up::SK,
            )))
            .send();
        match tokio::time::timeout(std::time::Duration::from_secs(1), read).await {
            Ok(Ok(_)) => tracing::debug!("connection warmed up"),
            Ok(Err(err)) => tracing::warn!(error = %AppError::from(err), "warm-up read failed"),
            Err(_) => tracing::warn!("warm-up read took over a second; gave up on it"),
        }
    }
}
