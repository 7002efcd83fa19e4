//! `0002-products`: each SKU written before products (`PRODUCT#<sku>` / `PRODUCT` without a
//! `productId`) becomes the one variant of a product of its own, whose ID is its SKU, titled
//! with its name and PUBLISHED (it was on sale), without options. Nothing ordered moves: the
//! SKU's item keeps its key, stock and price; its catalog entry (`CATALOG#<shard>` /
//! `PRODUCT#<sku>`) is already the product's, under the same ID and in the same shard.
//!
//! Two conditional writes per SKU, in this order: the product's item, put only where none is;
//! then the variant given its product, its status and its GSI3 keys, only while it has no
//! product. A run stopped between the two finds the product it put (the one variant, this
//! SKU) and carries on; a SKU whose product ID another product holds (staff made one of that
//! ID since) is reported, recorded and left on sale as it is, for staff to group
//! (`PUT /products/{productId}` may take it as a variant).

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

use crate::AppError;
use crate::domain::ids::ProductId;
use crate::domain::media::MediaSummary;
use crate::domain::product::{Product, ProductStatus};
use crate::domain::time::Timestamp;
use crate::domain::variant::Variant;
use crate::dynamo::codec::{Item, primary_key};
use crate::dynamo::cursor::text;
use crate::dynamo::entities::{migration_state, product, variant};
use crate::dynamo::errors::unless_condition_failed;
use crate::dynamo::keys::{PK, PRODUCT_PREFIX, SK};
use crate::dynamo::migrations::{Budget, Counts, Migration, Options, patiently};
use crate::dynamo::store::Store;

/// Why a SKU was left as it is.
const ID_TAKEN: &str =
    "another product holds its SKU as its ID: group it with PUT /products/{productId}";

/// One page of the scan: each SKU without a product given one.
pub(super) async fn migrate_page(
    store: &Store,
    migration: Migration,
    items: Vec<Item>,
    options: &Options,
    budget: &Budget,
) -> Result<Counts, AppError> {
    let mut counts = Counts {
        scanned: items.len() as u64,
        ..Counts::default()
    };
    for item in items {
        let (Some(pk), Some(sk)) = (text(&item, PK), text(&item, SK)) else {
            continue;
        };
        let is_variant = pk.starts_with(PRODUCT_PREFIX) && sk == variant::SORT_KEY;
        if !is_variant || item.contains_key(variant::PRODUCT_ID.name) {
            continue;
        }
        let (pk, sk) = (pk.to_owned(), sk.to_owned());
        let unplaceable = |reason: String| async move {
            store
                .record_unplaceable(migration, (&pk, &sk), &reason, options.dry_run, budget)
                .await
        };
        let Ok(sku) = variant::from_item(item) else {
            unplaceable("the store cannot read it as a SKU's item".to_owned()).await?;
            counts.unplaceable += 1;
            continue;
        };
        if options.dry_run {
            counts.changed += 1;
            continue;
        }
        match store.give_product(&sku, budget).await? {
            Given::Now => counts.changed += 1,
            Given::Already => counts.skipped += 1,
            Given::IdTaken => {
                unplaceable(ID_TAKEN.to_owned()).await?;
                counts.unplaceable += 1;
            }
        }
    }
    Ok(counts)
}

/// `--retry-unplaceable`: each SKU an earlier run left as it was, looked at again. One gone, or
/// given a product meanwhile, is settled; one whose ID is free now is given its product; any
/// other stays recorded, and counted.
pub(super) async fn retry_unplaceable(
    store: &Store,
    options: &Options,
    budget: &Budget,
) -> Result<Counts, AppError> {
    let migration = Migration::Products;
    let mut counts = Counts::default();
    for (pk, sk, _) in store.unplaceable(migration, budget).await? {
        counts.scanned += 1;
        let record = migration_state::unplaceable_key(migration.name(), &pk, &sk);
        let item = store
            .get_paced(primary_key(pk.clone(), &sk), budget)
            .await?;
        let Some(item) = item.filter(|i| !i.contains_key(variant::PRODUCT_ID.name)) else {
            counts.skipped += 1;
            if !options.dry_run {
                store.delete_paced(record, budget).await?;
            }
            continue;
        };
        let given = match variant::from_item(item) {
            Ok(sku) if !options.dry_run => store.give_product(&sku, budget).await?,
            _ => Given::IdTaken,
        };
        match given {
            Given::Now | Given::Already => {
                counts.changed += 1;
                store.delete_paced(record, budget).await?;
            }
            Given::IdTaken => counts.unplaceable += 1,
        }
    }
    Ok(counts)
}

/// What giving a SKU its product did.
enum Given {
    /// It has one now.
    Now,
    /// It had one already (a concurrent run, or staff's write meanwhile).
    Already,
    /// Its SKU is another product's ID.
    IdTaken,
}

/// The product of one variant, `sku`, as it was on sale.
fn product_of(sku: &Variant) -> Result<Product, AppError> {
    Ok(Product {
        product_id: ProductId::parse(sku.sku.as_str())?,
        title: sku.title.clone(),
        description: String::new(),
        status: ProductStatus::Published,
        category_ids: Vec::new(),
        options: Vec::new(),
        skus: vec![sku.sku.clone()],
        created_at: Timestamp::now(),
    })
}

impl Store {
    /// `sku`'s product put (only where none is), then `sku` made its variant (only while it
    /// has no product).
    async fn give_product(&self, sku: &Variant, budget: &Budget) -> Result<Given, AppError> {
        let product = product_of(sku)?;
        let id = &product.product_id;
        let put = patiently(|_| async {
            let sent = product::PUT
                // Version 0: what was on sale before is history, not news (no event).
                .put(
                    &self.table,
                    product::to_item(&product, 0, &MediaSummary::default()),
                )
                .only_new()
                .request(&self.client)?
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            Ok(unless_condition_failed(sent)?.map(|out| out.consumed_capacity))
        })
        .await?;
        if !budget.conditional_write(put).await? {
            // A product of this ID is there: this migration's, from a run stopped before the
            // variant's write (its one variant, this SKU), or another.
            let theirs = self.get_paced(product::key(id), budget).await?;
            let theirs = theirs.map(product::from_item).transpose()?;
            if theirs.is_none_or(|(found, _)| found.skus != product.skus) {
                return Ok(Given::IdTaken);
            }
        }
        let adopted = patiently(|_| async {
            let sent = variant::ADOPT
                .on(&self.table, variant::key(&sku.sku))
                .set(&variant::PRODUCT_ID, id)
                .set(&variant::STATUS, &ProductStatus::Published)
                .set(&variant::GSI3PK, &product::gsi3pk(id))
                .set(&variant::GSI3SK, &variant::gsi3sk(&sku.sku))
                .condition("attribute_exists(PK) AND attribute_not_exists(#productId)")
                .request(&self.client)?
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            Ok(unless_condition_failed(sent)?.map(|out| out.consumed_capacity))
        })
        .await?;
        if budget.conditional_write(adopted).await? {
            Ok(Given::Now)
        } else {
            Ok(Given::Already)
        }
    }
}
