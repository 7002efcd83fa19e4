//! Orders: placed in one transaction, read by order ID in one Query, and moved between statuses
//! with the header and the listing kept in step.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{
    CancellationReason, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};

use crate::domain::idempotency::{IDEMPOTENCY_TTL_SECONDS, IdempotencyRecord};
use crate::domain::ids::{CustomerId, IdempotencyKey, OrderId, Sku};
use crate::domain::order::{LineItem, MAX_LINES, NewOrder, Order, OrderDetails};
use crate::domain::product::Product;
use crate::domain::status::OrderStatus;
use crate::dynamo::codec::{Item, item_size};
use crate::dynamo::errors::{conflicted, reason_code};
use crate::dynamo::items::{self, header, idempotency, line_item, listing, product, profile};
use crate::dynamo::keys::{self, PK, SK};
use crate::dynamo::store::{built, epoch_seconds};
use crate::{AppError, Store};

/// DynamoDB's limits, checked before anything is sent.
const MAX_ITEM_BYTES: usize = 400 * 1024;
const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;
const MAX_TRANSACTION_ACTIONS: usize = 100;

// An order's transaction: the listing, the header, the idempotency record, and per line its
// product's stock and the line item. Its first read: the profile, the record and the products.
const _: () = assert!(2 * MAX_LINES + 3 <= MAX_TRANSACTION_ACTIONS);
const _: () = assert!(MAX_LINES + 2 <= crate::dynamo::products::MAX_BATCH_GET);

/// What placing an order reads before it writes, in ONE BatchGetItem.
#[derive(Debug, Default)]
pub struct OrderInputs {
    /// The record an earlier request with the same Idempotency-Key left (unexpired).
    pub replay: Option<IdempotencyRecord>,
    /// The customer has a named profile (one holding only statistics is no customer yet).
    pub customer_named: bool,
    /// The products found, by SKU.
    pub products: HashMap<Sku, Product>,
}

/// Why an order was not placed.
#[derive(Debug)]
pub enum PlaceOrderError {
    /// Another request holds the Idempotency-Key: read its record.
    KeyTaken,
    /// A concurrent transaction touched the same items; worth another try.
    Contended,
    /// A product's price is no longer the one read: read again and retry.
    PriceChanged,
    /// These products have less stock than the order asks for.
    OutOfStock(Vec<Sku>),
    /// These products do not exist.
    UnknownProducts(Vec<Sku>),
    Failed(AppError),
}

impl From<AppError> for PlaceOrderError {
    fn from(err: AppError) -> Self {
        PlaceOrderError::Failed(err)
    }
}

/// Why a status change did not happen.
#[derive(Debug)]
pub enum StatusChangeError {
    /// The order's status is no longer the one read; here is what it is now.
    Stale(Option<OrderStatus>),
    Contended,
    Failed(AppError),
}

impl From<AppError> for StatusChangeError {
    fn from(err: AppError) -> Self {
        StatusChangeError::Failed(err)
    }
}

/// A put only where no item is yet.
fn put_new(table: &str, item: Item) -> Result<TransactWriteItem, AppError> {
    let put = Put::builder()
        .table_name(table)
        .set_item(Some(item))
        .condition_expression("attribute_not_exists(PK)");
    Ok(TransactWriteItem::builder()
        .put(built(put.build())?)
        .build())
}

/// `item` has the keys of `key`.
fn has_key(item: &Item, key: &Item) -> bool {
    item.get(PK) == key.get(PK) && item.get(SK) == key.get(SK)
}

impl Store {
    /// The customer's profile, the products of `skus` and (with a key) the idempotency record,
    /// by ONE BatchGetItem: strongly consistent, or eventually at half the read units when the
    /// caller confirms every refusal with a consistent read (the order's transaction checks
    /// prices and stock itself, and a profile, once named, is never removed).
    pub async fn read_order_inputs(
        &self,
        customer: &CustomerId,
        idempotency_key: Option<&IdempotencyKey>,
        skus: &[Sku],
        consistent: bool,
    ) -> Result<OrderInputs, AppError> {
        let profile_key = profile::key(customer);
        let record_key = idempotency_key.map(|key| idempotency::key(customer, key));
        let mut keys = vec![profile_key.clone()];
        keys.extend(record_key.clone());
        keys.extend(skus.iter().map(product::key));
        let mut inputs = OrderInputs::default();
        for item in self.batch_get(keys, consistent).await? {
            if has_key(&item, &profile_key) {
                inputs.customer_named = item.contains_key(profile::NAME.name);
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

    /// Places `order` in ONE TransactWriteItems: each line's product's stock taken on the
    /// condition that its price is still the line's (the price read from the catalog) and that
    /// enough remains, the listing item, the header, the line items, and (with a key) the
    /// idempotency record, each put only where nothing is yet. The customer was read to exist
    /// first ([`Store::read_order_inputs`]): profiles are never deleted, so no ConditionCheck
    /// (two write units) is spent on it again.
    pub async fn place_order(
        &self,
        order: &NewOrder,
        idempotency: Option<(&IdempotencyKey, &IdempotencyRecord)>,
    ) -> Result<(), PlaceOrderError> {
        let mut actions = Vec::with_capacity(2 * order.lines.len() + 3);
        for line in &order.lines {
            let take = Update::builder()
                .table_name(&self.table)
                .set_key(Some(product::key(&line.sku)))
                .update_expression("SET #stock = #stock - :quantity")
                .condition_expression("#price = :price AND #stock >= :quantity")
                .expression_attribute_names("#stock", product::STOCK.name)
                .expression_attribute_names("#price", product::PRICE.name)
                .expression_attribute_values(
                    ":quantity",
                    product::STOCK.value(&u64::from(line.quantity)),
                )
                .expression_attribute_values(":price", product::PRICE.value(&line.price))
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                );
            actions.push(
                TransactWriteItem::builder()
                    .update(built(take.build())?)
                    .build(),
            );
        }
        let placed = order.order();
        let mut new_items = vec![
            listing::to_item(&placed, self.status_shards),
            header::to_item(&placed),
        ];
        new_items.extend(
            order
                .lines
                .iter()
                .map(|line| line_item::to_item(&order.order_id, line)),
        );
        let now = epoch_seconds();
        let record_item = idempotency.map(|(idempotency_key, record)| {
            idempotency::to_item(
                &order.customer_id,
                idempotency_key,
                record,
                now + IDEMPOTENCY_TTL_SECONDS,
            )
        });
        let sizes: Vec<usize> = new_items
            .iter()
            .chain(&record_item)
            .map(item_size)
            .collect();
        if sizes.iter().any(|size| *size > MAX_ITEM_BYTES)
            || sizes.iter().sum::<usize>() > MAX_TRANSACTION_BYTES
        {
            return Err(AppError::PayloadTooLarge(
                "the order exceeds DynamoDB's item or transaction size limit".into(),
            )
            .into());
        }
        for item in new_items {
            actions.push(put_new(&self.table, item)?);
        }
        let mut idempotency_index = None;
        if let Some(item) = record_item {
            // An expired record that TTL has not yet removed may be taken over.
            let put = Put::builder()
                .table_name(&self.table)
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(PK) OR #expires < :now")
                .expression_attribute_names("#expires", idempotency::EXPIRES_AT.name)
                .expression_attribute_values(":now", idempotency::EXPIRES_AT.value(&now));
            idempotency_index = Some(actions.len());
            actions.push(
                TransactWriteItem::builder()
                    .put(built(put.build())?)
                    .build(),
            );
        }
        let Some(reasons) = self.transact(actions).await? else {
            return Ok(());
        };
        // The products' reasons come first: what they hold now says why.
        let (mut unknown, mut short, mut repriced) = (Vec::new(), Vec::new(), false);
        for (i, line) in order.lines.iter().enumerate() {
            if reason_code(&reasons, i) != "ConditionalCheckFailed" {
                continue;
            }
            match reasons[i].item().filter(|item| !item.is_empty()) {
                None => unknown.push(line.sku.clone()),
                Some(now) if product::PRICE.get(now) != Some(line.price) => repriced = true,
                Some(_) => short.push(line.sku.clone()),
            }
        }
        if !unknown.is_empty() {
            return Err(PlaceOrderError::UnknownProducts(unknown));
        }
        if repriced {
            return Err(PlaceOrderError::PriceChanged);
        }
        if !short.is_empty() {
            return Err(PlaceOrderError::OutOfStock(short));
        }
        if let Some(index) = idempotency_index
            && reason_code(&reasons, index) == "ConditionalCheckFailed"
        {
            return Err(PlaceOrderError::KeyTaken);
        }
        if conflicted(&reasons) {
            return Err(PlaceOrderError::Contended);
        }
        Err(AppError::internal(format!(
            "order transaction cancelled: {:?}",
            reasons
                .iter()
                .map(CancellationReason::code)
                .collect::<Vec<_>>()
        ))
        .into())
    }

    /// The order's header and line items: ONE Query on the order's partition.
    pub async fn get_order(&self, order: &OrderId) -> Result<Option<OrderDetails>, AppError> {
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", PK)
            .expression_attribute_values(":pk", items::PK.value(&keys::order_header::pk(order)))
            .consistent_read(true)
            .send()
            .await?;
        let mut found = None;
        let mut lines = Vec::new();
        for item in out.items.unwrap_or_default() {
            let sk = items::SK.get(&item).unwrap_or_default();
            if sk == keys::order_header::SK {
                found = Some(header::from_item(item)?);
            } else if sk.starts_with(keys::line_item::SK_PREFIX) {
                lines.push(line_item::from_item(item)?);
            }
        }
        Ok(found.map(|h| OrderDetails {
            order_id: h.order_id,
            customer_id: h.customer_id,
            placed_at: h.placed_at,
            status: h.status,
            total: h.total,
            items: lines,
        }))
    }

    /// Moves the order from `current.status` to `next` in ONE TransactWriteItems: the header and
    /// the listing item (whose GSI1PK follows the status), each only if its status is still the
    /// one read, so of two racing changes only one can win. A cancellation gives each line's
    /// quantity back to its product's stock in the same transaction (a product that no longer
    /// exists is left out, and logged).
    pub async fn change_status(
        &self,
        current: &Order,
        next: OrderStatus,
        lines: &[LineItem],
    ) -> Result<(), StatusChangeError> {
        let mut restock: Vec<&LineItem> = if next == OrderStatus::Cancelled {
            lines.iter().collect()
        } else {
            Vec::new()
        };
        loop {
            let update = |key_item: Item, set: &str| {
                Update::builder()
                    .table_name(&self.table)
                    .set_key(Some(key_item))
                    .update_expression(set)
                    .condition_expression("#status = :current")
                    .expression_attribute_names("#status", listing::STATUS.name)
                    .expression_attribute_values(":current", listing::STATUS.value(&current.status))
                    .expression_attribute_values(":next", listing::STATUS.value(&next))
            };
            let header_update = update(header::key(&current.order_id), "SET #status = :next")
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                );
            let listing_update = update(
                listing::key(current),
                "SET #status = :next, #gsi1pk = :gsi1pk",
            )
            .expression_attribute_names("#gsi1pk", listing::GSI1PK.name)
            .expression_attribute_values(
                ":gsi1pk",
                // The order keeps its shard under its new status.
                listing::GSI1PK.value(&keys::order_listing::gsi1pk(
                    next,
                    self.status_shards.of(&current.order_id),
                )),
            );
            let mut actions = vec![
                TransactWriteItem::builder()
                    .update(built(header_update.build())?)
                    .build(),
                TransactWriteItem::builder()
                    .update(built(listing_update.build())?)
                    .build(),
            ];
            for line in &restock {
                let give_back = Update::builder()
                    .table_name(&self.table)
                    .set_key(Some(product::key(&line.sku)))
                    .update_expression("ADD #stock :quantity")
                    .condition_expression("attribute_exists(PK)")
                    .expression_attribute_names("#stock", product::STOCK.name)
                    .expression_attribute_values(
                        ":quantity",
                        product::STOCK_CHANGE.value(&i64::from(line.quantity)),
                    );
                actions.push(
                    TransactWriteItem::builder()
                        .update(built(give_back.build())?)
                        .build(),
                );
            }
            let Some(reasons) = self.transact(actions).await? else {
                return Ok(());
            };
            match (reason_code(&reasons, 0), reason_code(&reasons, 1)) {
                ("ConditionalCheckFailed", _) => {
                    let now = reasons[0].item().and_then(|item| listing::STATUS.get(item));
                    return Err(StatusChangeError::Stale(now));
                }
                _ if conflicted(&reasons) => return Err(StatusChangeError::Contended),
                (_, "ConditionalCheckFailed") => {
                    return Err(AppError::internal(format!(
                        "order {} has a header but its listing item is missing or out of step",
                        current.order_id
                    ))
                    .into());
                }
                _ => {}
            }
            // Products that no longer exist: give their stock back to nobody, and send again.
            let before = restock.len();
            let mut index = 2;
            restock.retain(|line| {
                let gone = reason_code(&reasons, index) == "ConditionalCheckFailed";
                index += 1;
                if gone {
                    tracing::warn!(order = %current.order_id, sku = %line.sku, "stock not given back: the product no longer exists");
                }
                !gone
            });
            if restock.len() == before {
                return Err(AppError::internal(format!(
                    "status transaction cancelled: {:?}",
                    reasons
                        .iter()
                        .map(CancellationReason::code)
                        .collect::<Vec<_>>()
                ))
                .into());
            }
        }
    }
}
