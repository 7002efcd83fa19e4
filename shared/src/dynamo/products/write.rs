//! Writing a product: its item, each of its variants, each variant it drops and its catalog
//! entry, in ONE TransactWriteItems conditioned on the version read just before, so that a
//! listing never shows what the product no longer is, and a SKU is never held by two products.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use aws_sdk_dynamodb::types::builders::UpdateBuilder;

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::{ProductId, Sku};
use crate::domain::media::MediaSummary;
use crate::domain::product::{CatalogEntry, Product, ProductSpec, ProductStatus, VariantSpec};
use crate::domain::stock_shards::ShardCount;
use crate::dynamo::entities::{catalog_entry, category_listing, product, variant};
use crate::dynamo::store::Store;
use crate::dynamo::transaction::{Cancelled, MAX_ACTIONS, Outcome, Transaction};
use crate::retry::{Backoff, retry};

use super::shards::{shards_still, terms_to_shards};
use super::{ProductSeen, Retry};

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Why a product's transaction was cancelled: a SKU another product holds (a 409), or a
/// variant whose count of stock shards is not the one assumed (`counts` learns it), or the
/// product changed since it was read (both: read again).
fn why_not_written(
    cancelled: &Cancelled<Action>,
    id: &ProductId,
    counts: &mut HashMap<Sku, ShardCount>,
) -> Retry {
    let mut taken = Vec::new();
    let mut recounted = false;
    for (action, stored) in cancelled.failed_conditions() {
        let (Action::Variant(sku) | Action::Retired(sku)) = action else {
            continue;
        };
        let holder = stored.and_then(|item| variant::PRODUCT_ID.get(item));
        if holder.as_ref().is_some_and(|holder| holder != id) {
            taken.push(sku.clone());
        } else {
            let count = stored.and_then(|item| variant::STOCK_SHARDS.get(item));
            counts.insert(sku.clone(), count.unwrap_or(ShardCount::ONE));
            recounted = true;
        }
    }
    if !taken.is_empty() {
        Retry::Failed(AppError::SkuTaken(taken))
    } else if recounted || cancelled.condition_failed(|a| *a == Action::Product) {
        Retry::Changed
    } else {
        Retry::Failed(cancelled.unexplained("product"))
    }
}

/// What each action of a product's transaction is for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Action {
    /// The product's item, at the version read.
    Product,
    /// A variant written, on the condition that no other product holds its SKU.
    Variant(Sku),
    /// A variant the product drops, retired.
    Retired(Sku),
    /// A variant's terms copied to one of its stock shards.
    Shard,
    /// The catalog entry, put or deleted.
    CatalogEntry,
    /// An entry of a category's listing, put or deleted.
    Listing,
}

/// What a product's write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductWritten {
    /// The product as it now is, with its variants (as staff see them: their stock read back
    /// strongly consistent after the write).
    pub product: ProductSeen,
    /// Whether it is new.
    pub created: bool,
}

impl Store {
    /// Writes `spec` as product `spec.product.product_id`: created (its `created_at` now, its
    /// variants' stock 0 where the SKU is new) or replaced (its `created_at` and its variants'
    /// stock kept), in ONE TransactWriteItems conditioned on the version read just before; a
    /// concurrent write makes it read and try again. A SKU another product holds is a 409,
    /// with nothing written.
    pub async fn put_product(
        &self,
        spec: &ProductSpec,
        caller: &Caller,
    ) -> Result<ProductWritten, AppError> {
        let id = &spec.product.product_id;
        let missing = self.missing_categories(&spec.product.category_ids).await?;
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|c| c.as_str()).collect();
            return Err(AppError::invalid(format!(
                "categoryIds names categories that do not exist: {}",
                names.join(", ")
            )));
        }
        // Each SKU's count of stock shards, as the variants' items last said (1 until one
        // says more): a variant's write is conditioned on it, and writes its terms to each.
        let counts = Mutex::new(HashMap::new());
        let written = retry(
            &Backoff::TRANSACTION,
            |err| matches!(err, Retry::Changed | Retry::Contended),
            |_| async {
                let current = self.read_product(id, true).await?;
                let created = current.is_none();
                let mut product = spec.product.clone();
                if let Some((before, ..)) = &current {
                    product.created_at = before.created_at;
                }
                let known = lock(&counts).clone();
                let transaction =
                    self.product_transaction(spec, &product, current.as_ref(), &known)?;
                match self.send(transaction).await? {
                    Outcome::Committed => Ok((product, created)),
                    Outcome::Cancelled(c) if c.conflicted() => Err(Retry::Contended),
                    Outcome::Cancelled(c) => Err(why_not_written(&c, id, &mut lock(&counts))),
                }
            },
        )
        .await;
        let (product, created) = written.map_err(|err| err.into_error("product"))?;
        for sku in &product.skus {
            self.recent.forget_variant(sku);
        }
        let keys = product.skus.iter().map(variant::key).collect();
        let mut variants = Vec::with_capacity(product.skus.len());
        for item in self.batch_get(keys, true).await? {
            variants.push(variant::from_item(item)?);
        }
        self.read_stock_shards(&mut variants, true).await?;
        let pictures = self.shown_media(&product.product_id).await?;
        let media = self.pictures_seen(&product.product_id, &pictures).await?;
        Ok(ProductWritten {
            product: ProductSeen::of(product, &variants, media, caller),
            created,
        })
    }

    /// The product, by GetItem (`consistent`: strongly consistent), with its version and what
    /// it keeps of its pictures.
    pub(crate) async fn read_product(
        &self,
        id: &ProductId,
        consistent: bool,
    ) -> Result<Option<(Product, u64, MediaSummary)>, AppError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(product::key(id)))
            .consistent_read(consistent)
            .send()
            .await?;
        let Some(item) = out.item else {
            return Ok(None);
        };
        let media = product::media_of(&item);
        let (product, version) = product::from_item(item)?;
        Ok(Some((product, version, media)))
    }

    /// The transaction that writes `product` over `current` (its item and version).
    fn product_transaction(
        &self,
        spec: &ProductSpec,
        product: &Product,
        current: Option<&(Product, u64, MediaSummary)>,
        counts: &HashMap<Sku, ShardCount>,
    ) -> Result<Transaction<Action>, AppError> {
        let count = |sku: &Sku| counts.get(sku).copied().unwrap_or(ShardCount::ONE);
        let id = &product.product_id;
        let dropped: Vec<&Sku> = current
            .map(|(before, ..)| before.skus.iter())
            .into_iter()
            .flatten()
            .filter(|sku| !product.skus.contains(sku))
            .collect();
        let mut transaction = Transaction::with_capacity(spec.variants.len() + dropped.len() + 2);
        let version = current.map(|(_, version, _)| *version);
        let media = current.map(|(.., media)| media.clone()).unwrap_or_default();
        let put = product::PUT.put(
            &self.table,
            product::to_item(product, version.map_or(1, |v| v + 1), &media),
        );
        let put = match version {
            Some(version) => {
                put.condition("#version = :current")
                    .value(":current", &product::VERSION, &version)
            }
            None => put.only_new(),
        };
        transaction.put(Action::Product, put.build()?)?;
        for variant in &spec.variants {
            let count = count(&variant.sku);
            transaction.update(
                Action::Variant(variant.sku.clone()),
                self.write_variant(product, variant, count)?,
            )?;
            let terms = (Some(&variant.price), product.status);
            for shard in terms_to_shards(&self.table, &variant.sku, count, terms) {
                transaction.update(Action::Shard, shard.build()?)?;
            }
        }
        for sku in dropped {
            let count = count(sku);
            let retire = variant::RETIRE
                .on(&self.table, variant::key(sku))
                .set(&variant::STATUS, &ProductStatus::Archived)
                .remove(&variant::GSI3PK)
                .remove(&variant::GSI3SK)
                .condition(format!("#productId = :product AND {}", shards_still(count)))
                .value(":product", &variant::PRODUCT_ID, id)
                .value(":shards", &variant::STOCK_SHARDS, &count)
                .returning_old_on_failure();
            transaction.update(Action::Retired(sku.clone()), retire.build()?)?;
            let terms = (None, ProductStatus::Archived);
            for shard in terms_to_shards(&self.table, sku, count, terms) {
                transaction.update(Action::Shard, shard.build()?)?;
            }
        }
        let entry = CatalogEntry {
            product_id: id.clone(),
            title: product.title.clone(),
            price: spec.lowest_price(),
            cover: media.cover,
        };
        if product.status == ProductStatus::Published {
            let put = catalog_entry::PUT.put(&self.table, catalog_entry::to_item(&entry));
            transaction.put(Action::CatalogEntry, put.build()?)?;
        } else {
            let delete = catalog_entry::REMOVE.delete(&self.table, catalog_entry::key(id));
            transaction.delete(Action::CatalogEntry, delete.build()?)?;
        }
        self.list_in_categories(&mut transaction, &entry, product, current.map(|(p, ..)| p))?;
        if transaction.len() > MAX_ACTIONS {
            return Err(AppError::invalid(format!(
                "this write would take {} actions, more than one transaction holds ({MAX_ACTIONS}): drop fewer variants, change fewer categories, or split fewer variants' stock into shards, at once",
                transaction.len()
            )));
        }
        Ok(transaction)
    }

    /// `product`'s category listings written beside it: both its entries in each of its
    /// categories while it is published (its title and lowest price as they now are), and
    /// deleted from each category `before` listed it in that it no longer does.
    fn list_in_categories(
        &self,
        transaction: &mut Transaction<Action>,
        entry: &CatalogEntry,
        product: &Product,
        before: Option<&Product>,
    ) -> Result<(), AppError> {
        for item in category_listing::entries(entry, product) {
            let put = category_listing::PUT.put(&self.table, item);
            transaction.put(Action::Listing, put.build()?)?;
        }
        let now = category_listing::listed_in(product);
        let gone = before
            .map(category_listing::listed_in)
            .unwrap_or_default()
            .iter()
            .filter(|category| !now.contains(category));
        for category in gone {
            for order in category_listing::Order::BOTH {
                let key = category_listing::key(&product.product_id, category, order);
                let delete = category_listing::REMOVE.delete(&self.table, key);
                transaction.delete(Action::Listing, delete.build()?)?;
            }
        }
        Ok(())
    }

    /// `spec` written as a variant of `product`: everything but its stock (0 for a new SKU), on
    /// the condition that no other product holds the SKU (one written before products, with no
    /// product, may be taken) and that it has `count` stock shards, which the transaction
    /// writes its terms to.
    fn write_variant(
        &self,
        product: &Product,
        spec: &VariantSpec,
        count: ShardCount,
    ) -> Result<UpdateBuilder, AppError> {
        let id = &product.product_id;
        let write = variant::WRITE
            .on(&self.table, variant::key(&spec.sku))
            .set(&variant::PRODUCT_ID, id)
            .set(&variant::TITLE, &product.title)
            .set(&variant::PRICE, &spec.price)
            .set(&variant::STATUS, &product.status)
            .set(&variant::WEIGHT_GRAMS, &spec.weight_grams)
            .set(&variant::GSI3PK, &product::gsi3pk(id))
            .set(&variant::GSI3SK, &variant::gsi3sk(&spec.sku))
            .set_if_absent(&variant::STOCK, &0);
        let write = if spec.options.is_empty() {
            write.remove(&variant::OPTIONS)
        } else {
            write.set(&variant::OPTIONS, &spec.options)
        };
        let condition = format!(
            "(attribute_not_exists(#productId) OR #productId = :product) AND {}",
            shards_still(count)
        );
        write
            .condition(condition)
            .value(":product", &variant::PRODUCT_ID, id)
            .value(":shards", &variant::STOCK_SHARDS, &count)
            .returning_old_on_failure()
            .build()
    }
}
