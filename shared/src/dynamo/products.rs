//! The catalog: a product by SKU (one GetItem), the listing (one Query per page over the
//! catalog's shards), replacing a product (its item and its catalog entry in one transaction),
//! changing stock (one conditional UpdateItem), and the BatchGetItem an order's inputs are
//! read with (`orders.rs`).

use std::sync::{Mutex, PoisonError};

use aws_sdk_dynamodb::types::builders::UpdateBuilder;
use aws_sdk_dynamodb::types::{
    AttributeValue, ConsumedCapacity, KeysAndAttributes, ReturnConsumedCapacity,
};

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::Sku;
use crate::domain::money::Money;
use crate::domain::page::{Page, PageRequest};
use crate::domain::product::{CatalogEntry, Product};
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::{self, text};
use crate::dynamo::entities::{catalog_entry, product};
use crate::dynamo::keys::{PK, SK};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::{Store, built};
use crate::dynamo::transaction::{Outcome, Transaction};
use crate::retry::{Backoff, retry};

/// BatchGetItem takes at most 100 keys.
pub(crate) const MAX_BATCH_GET: usize = 100;

/// What each action of a catalog transaction is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProductAction {
    Product,
    CatalogEntry,
}

impl ProductAction {
    fn is_product(&self) -> bool {
        *self == ProductAction::Product
    }
}

/// Why a catalog write did not happen on this attempt.
enum Retry {
    /// Another replacement got there between the read and the write.
    Changed,
    /// Another transaction held the item.
    Contended,
    Failed(AppError),
}

impl Retry {
    /// What the client is told once retrying is over.
    fn into_error(self, what: &str) -> AppError {
        match self {
            Retry::Changed => AppError::concurrent_change(format!(
                "the {what} is being changed by concurrent requests; retry"
            )),
            Retry::Contended => AppError::unavailable(format!(
                "{what} transaction kept colliding with concurrent transactions"
            )),
            Retry::Failed(err) => err,
        }
    }
}

/// Why a BatchGetItem round did not read everything.
enum Batch {
    /// DynamoDB left keys unprocessed (it does under load): asked for again.
    Unprocessed,
    Failed(AppError),
}

impl From<AppError> for Batch {
    fn from(err: AppError) -> Self {
        Batch::Failed(err)
    }
}

impl From<AppError> for Retry {
    fn from(err: AppError) -> Self {
        Retry::Failed(err)
    }
}

/// The catalog shard a cursor's key names: `CATALOG#<k>` with `k` below the shard count.
fn shard_of(key: &Item) -> Option<u32> {
    let pk = text(key, PK)?;
    pk.strip_prefix("CATALOG#")?
        .parse::<u32>()
        .ok()
        .filter(|k| *k < catalog_entry::SHARDS && pk == catalog_entry::pk(*k))
}

impl Store {
    /// A product, by GetItem.
    pub async fn get_product(&self, sku: &Sku) -> Result<Option<Product>, AppError> {
        Ok(self
            .read_product(sku, false)
            .await?
            .map(|(product, _)| product))
    }

    /// A product and its version, by GetItem (`consistent`: strongly consistent).
    pub(crate) async fn read_product(
        &self,
        sku: &Sku,
        consistent: bool,
    ) -> Result<Option<(Product, u64)>, AppError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(product::key(sku)))
            .consistent_read(consistent)
            .send()
            .await?;
        Ok(out.item.map(product::from_item).transpose()?)
    }

    /// Creates (stock 0) or replaces a product's name and price, and its catalog entry, in one
    /// TransactWriteItems conditioned on the version read just before; a concurrent replacement
    /// makes it read and try again. The product as it now is, and whether it is new.
    pub async fn put_product(
        &self,
        sku: &Sku,
        name: &str,
        price: Money,
    ) -> Result<(Product, bool), AppError> {
        let replaced = retry(
            &Backoff::TRANSACTION,
            |err| matches!(err, Retry::Changed | Retry::Contended),
            |_| async move {
                let current = self.read_product(sku, true).await?;
                let (stock, version) = current
                    .as_ref()
                    .map_or((0, 0), |(product, version)| (product.stock, *version));
                let replacement = Product {
                    sku: sku.clone(),
                    name: name.to_owned(),
                    price,
                    stock,
                };
                let entry = catalog_entry::to_item(&CatalogEntry {
                    sku: sku.clone(),
                    name: replacement.name.clone(),
                    price,
                });
                let mut transaction = Transaction::with_capacity(2);
                transaction.update(
                    ProductAction::Product,
                    self.replace_product(&replacement, current.is_some().then_some(version))?,
                )?;
                transaction.put(
                    ProductAction::CatalogEntry,
                    catalog_entry::PUT.put(&self.table, entry).build()?,
                )?;
                match self.send(transaction).await? {
                    Outcome::Committed => Ok((replacement, current.is_none())),
                    Outcome::Cancelled(c) if c.conflicted() => Err(Retry::Contended),
                    Outcome::Cancelled(c) if c.condition_failed(ProductAction::is_product) => {
                        Err(Retry::Changed)
                    }
                    Outcome::Cancelled(c) => Err(Retry::Failed(c.unexplained("product"))),
                }
            },
        )
        .await;
        replaced.map_err(|err| err.into_error("product"))
    }

    /// `replacement`'s name and price written over the product at `version` (`None`: over no
    /// product), its version moved on and its stock kept (0 for a new product).
    fn replace_product(
        &self,
        replacement: &Product,
        version: Option<u64>,
    ) -> Result<UpdateBuilder, AppError> {
        let next = version.map_or(1, |version| version + 1);
        let update = product::REPLACE
            .on(&self.table, product::key(&replacement.sku))
            .set(&product::NAME, &replacement.name)
            .set(&product::PRICE, &replacement.price)
            .set(&product::VERSION, &next)
            .set_if_absent(&product::STOCK, &0);
        match version {
            Some(version) => update.condition("#version = :current").value(
                ":current",
                &product::VERSION,
                &version,
            ),
            None => update.condition("attribute_not_exists(PK)"),
        }
        .build()
    }

    /// Adds `delta` (negative: takes) to a product's stock, atomically, so racing changes are
    /// never lost, and only while the stock stays at 0 or above: 409 otherwise, 404 for an
    /// unknown product. The ADD is sent as a one-action TransactWriteItems, not an UpdateItem:
    /// an ADD is not idempotent, and when an answer is lost the SDK sends the request again —
    /// a transaction's retry carries its ClientRequestToken, so DynamoDB applies it once. The
    /// product is then read back (strongly consistent) for the answer.
    pub async fn adjust_stock(&self, sku: &Sku, delta: i64) -> Result<Product, AppError> {
        let needed = delta.min(0).unsigned_abs();
        let update = product::STOCK_UPDATE
            .on(&self.table, product::key(sku))
            .add(&product::STOCK_CHANGE, &delta)
            .condition("attribute_exists(PK) AND #stock >= :needed")
            .value(":needed", &product::STOCK, &needed)
            .returning_old_on_failure()
            .build()?;
        let mut transaction = Transaction::with_capacity(1);
        transaction.update(ProductAction::Product, update)?;
        let sent = retry(
            &Backoff::TRANSACTION,
            |err| matches!(err, Retry::Contended),
            |_| {
                let transaction = transaction.clone();
                async move {
                    let cancelled = match self.send(transaction).await? {
                        Outcome::Committed => return Ok(()),
                        Outcome::Cancelled(cancelled) if cancelled.conflicted() => {
                            return Err(Retry::Contended);
                        }
                        Outcome::Cancelled(cancelled) => cancelled,
                    };
                    let refused = match cancelled.failed_conditions().next() {
                        None => cancelled.unexplained("stock"),
                        Some((_, None)) => {
                            AppError::not_found(format!("product {sku} does not exist"))
                        }
                        Some((_, Some(stored))) => {
                            let stock = product::STOCK.get(stored).unwrap_or(0);
                            tracing::info!(%sku, stock, "a stock change would take it below 0");
                            AppError::OutOfStock(vec![sku.clone()])
                        }
                    };
                    Err(Retry::Failed(refused))
                }
            },
        )
        .await;
        sent.map_err(|err| err.into_error("stock"))?;
        self.read_product(sku, true)
            .await?
            .map(|(product, _)| product)
            .ok_or_else(|| {
                AppError::internal(format!("product {sku} vanished after its stock changed"))
            })
    }

    /// The items of `keys` (at most 100, no two alike) by one BatchGetItem, strongly or
    /// eventually consistent; keys DynamoDB leaves unprocessed are asked for again with
    /// backoff. Absent items are simply not returned.
    pub(crate) async fn batch_get(
        &self,
        keys: Vec<Item>,
        consistent: bool,
    ) -> Result<Vec<Item>, AppError> {
        Ok(self.batch_get_reporting(keys, consistent, None).await?.0)
    }

    /// [`Store::batch_get`], and the capacity each request consumed when `report` asks for it
    /// (an operator's paced job does; an order's first read does not).
    pub(crate) async fn batch_get_reporting(
        &self,
        keys: Vec<Item>,
        consistent: bool,
        report: Option<ReturnConsumedCapacity>,
    ) -> Result<(Vec<Item>, Vec<ConsumedCapacity>), AppError> {
        if keys.len() > MAX_BATCH_GET {
            return Err(AppError::internal("more keys than one BatchGetItem reads"));
        }
        // Keys still to read, items found and capacity consumed; locked only between requests.
        let state = Mutex::new((keys, Vec::new(), Vec::new()));
        let lock = || state.lock().unwrap_or_else(PoisonError::into_inner);
        let read = retry(
            &Backoff::TRANSACTION,
            |err| matches!(err, Batch::Unprocessed),
            |_| async {
                let keys = std::mem::take(&mut lock().0);
                let request = built(
                    KeysAndAttributes::builder()
                        .set_keys(Some(keys))
                        .consistent_read(consistent)
                        .build(),
                )?;
                let out = self
                    .client
                    .batch_get_item()
                    .request_items(&self.table, request)
                    .set_return_consumed_capacity(report.clone())
                    .send()
                    .await
                    .map_err(AppError::from)?;
                let mut state = lock();
                state.2.extend(out.consumed_capacity.into_iter().flatten());
                state.1.extend(
                    out.responses
                        .into_iter()
                        .flatten()
                        .flat_map(|(_, items)| items),
                );
                state.0 = out
                    .unprocessed_keys
                    .and_then(|mut left| left.remove(&self.table))
                    .map(|left| left.keys)
                    .unwrap_or_default();
                if state.0.is_empty() {
                    Ok(())
                } else {
                    Err(Batch::Unprocessed)
                }
            },
        )
        .await;
        match read {
            Ok(()) => {
                let mut state = lock();
                Ok((std::mem::take(&mut state.1), std::mem::take(&mut state.2)))
            }
            Err(Batch::Unprocessed) => Err(AppError::Unavailable(
                "DynamoDB kept leaving keys unprocessed".into(),
            )),
            Err(Batch::Failed(err)) => Err(err),
        }
    }

    /// The catalog, one page per Query: its shards in turn (`CATALOG#0`, `CATALOG#1`, ...),
    /// each in SKU order. A page that reaches the end of a shard stops there, so it may hold
    /// fewer than `limit` products; its cursor continues with the next shard.
    pub async fn list_products(
        &self,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Page<CatalogEntry>, AppError> {
        // A cursor names a shard's next product (PK, SK), or a shard to start (PK alone).
        let after = cursor::open(caller, page.cursor.as_deref(), |key| {
            shard_of(key).is_some()
                && match key.len() {
                    1 => true,
                    2 => text(key, PK)
                        .zip(text(key, SK))
                        .is_some_and(|(pk, sk)| catalog_entry::is_canonical_key(pk, sk)),
                    _ => false,
                }
        })?;
        let shard = after.as_ref().and_then(shard_of).unwrap_or(0);
        let start = after.filter(|key| key.len() == 2);
        let query = KeyQuery::on(Index::Table, catalog_entry::pk(shard));
        let out = query
            .request(self)
            // One more than the page: a page that fills is known not to be the shard's last.
            .limit(cursor::query_limit(page.limit + 1))
            .set_exclusive_start_key(start)
            .send()
            .await?;
        // A shard read to its end continues with the next shard.
        let next_shard = || {
            (shard + 1 < catalog_entry::SHARDS).then(|| {
                Item::from([(
                    PK.to_owned(),
                    AttributeValue::S(catalog_entry::pk(shard + 1)),
                )])
            })
        };
        query.page(
            caller,
            out.items.unwrap_or_default(),
            page.limit,
            || {
                out.last_evaluated_key
                    .filter(|key| !key.is_empty())
                    .or_else(next_shard)
            },
            catalog_entry::from_item,
        )
    }
}
