//! The catalog: a variant by SKU (one GetItem), the listing (one Query per page over the
//! catalog's shards), changing stock (one conditional UpdateItem), and the BatchGetItem an
//! order's inputs are read with (`orders.rs`); writing a product with its variants (`write`)
//! and reading it back in one Query (`read`).

mod read;
mod shards;
mod write;

pub use read::ProductSeen;
pub(crate) use shards::{ShardsRead, hinted_keys};
pub use write::ProductWritten;

use std::sync::{Mutex, PoisonError};

use aws_sdk_dynamodb::types::{
    AttributeValue, ConsumedCapacity, KeysAndAttributes, ReturnConsumedCapacity,
};

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::Sku;
use crate::domain::page::{Page, PageRequest};
use crate::domain::product::ListedProduct;
use crate::domain::stock_shards::ShardCount;
use crate::domain::variant::Variant;
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::{self, text};
use crate::dynamo::entities::{catalog_entry, variant};
use crate::dynamo::keys::{PK, SK};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::{Store, built};
use crate::dynamo::transaction::{Outcome, Transaction};
use crate::retry::{Backoff, retry};

/// BatchGetItem takes at most 100 keys.
pub(crate) const MAX_BATCH_GET: usize = 100;

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
    /// A variant, by GetItem (`consistent`: strongly consistent).
    pub async fn get_variant(
        &self,
        sku: &Sku,
        consistent: bool,
    ) -> Result<Option<Variant>, AppError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(variant::key(sku)))
            .consistent_read(consistent)
            .send()
            .await?;
        Ok(out.item.map(variant::from_item).transpose()?)
    }

    /// Adds `delta` (negative: takes) to a product's stock, atomically, so racing changes are
    /// never lost, and only while the stock stays at 0 or above: 409 otherwise, 404 for an
    /// unknown product. The ADD is sent as a one-action TransactWriteItems, not an UpdateItem:
    /// an ADD is not idempotent, and when an answer is lost the SDK sends the request again —
    /// a transaction's retry carries its ClientRequestToken, so DynamoDB applies it once. The
    /// product is then read back (strongly consistent) for the answer.
    ///
    /// A SKU whose stock is split over shards gains what is added in its variant's own item,
    /// and loses it from there too while that item holds it; when it does not, from its fullest
    /// shards ([`Store::take_over_shards`]). A SKU of one shard pays no read for that.
    pub async fn adjust_stock(&self, sku: &Sku, delta: i64) -> Result<Variant, AppError> {
        self.recent.forget_variant(sku);
        let needed = delta.min(0).unsigned_abs();
        let update = variant::STOCK_UPDATE
            .on(&self.table, variant::key(sku))
            .add(&variant::STOCK_CHANGE, &delta)
            .condition("attribute_exists(PK) AND #stock >= :needed")
            .value(":needed", &variant::STOCK, &needed)
            .returning_old_on_failure()
            .build()?;
        let mut transaction = Transaction::with_capacity(1);
        transaction.update((), update)?;
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
                            AppError::not_found(format!("variant {sku} does not exist"))
                        }
                        // Its own item short, but it has shards: taken from the fullest.
                        Some((_, Some(stored)))
                            if variant::STOCK_SHARDS.get(stored) > Some(ShardCount::ONE) =>
                        {
                            return match self.take_over_shards(sku, needed).await {
                                Ok(Some(())) => Ok(()),
                                // Set back to one shard meanwhile: its own item decides.
                                Ok(None) => Err(Retry::Contended),
                                Err(err) => Err(Retry::Failed(err)),
                            };
                        }
                        Some((_, Some(stored))) => {
                            let stock = variant::STOCK.get(stored).unwrap_or(0);
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
        self.variant_whole(sku, true).await?.ok_or_else(|| {
            AppError::internal(format!("variant {sku} vanished after its stock changed"))
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
    ) -> Result<Page<ListedProduct>, AppError> {
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
        let entries = query.page(
            caller,
            out.items.unwrap_or_default(),
            page.limit,
            || {
                out.last_evaluated_key
                    .filter(|key| !key.is_empty())
                    .or_else(next_shard)
            },
            catalog_entry::from_item,
        )?;
        Ok(Page {
            items: self.listed(entries.items).await?,
            next_cursor: entries.next_cursor,
        })
    }
}
