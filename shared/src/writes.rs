//! The write side of the repository: customers, orders placed in one transaction, and status
//! changes that keep the header and the listing in step.

use std::time::{SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, CancellationReason, ConditionCheck, Put, ReturnValue,
    ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};

use crate::entities::{Customer, Item, LineItem, Order, item_size};
use crate::ids::{CustomerId, IdempotencyKey, OrderId, OrderStatus};
use crate::keys::{self, PK, SK};
use crate::orders::{NewOrder, OrderDetails};
use crate::repo::bad_item;
use crate::{AppError, Store};

/// DynamoDB's limits, checked before anything is sent.
const MAX_ITEM_BYTES: usize = 400 * 1024;
const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;
/// How long an Idempotency-Key is remembered.
pub const IDEMPOTENCY_TTL_SECONDS: u64 = 24 * 60 * 60;

pub(crate) fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

fn key(pk: String, sk: impl Into<String>) -> Item {
    Item::from([(PK.to_owned(), s(pk)), (SK.to_owned(), s(sk))])
}

fn built<T, E: std::error::Error + Send + Sync + 'static>(r: Result<T, E>) -> Result<T, AppError> {
    r.map_err(AppError::internal)
}

pub(crate) fn epoch_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What an `Idempotency-Key` remembers of the first request that used it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyRecord {
    pub fingerprint: String,
    pub order_id: OrderId,
    /// The JSON body of the 201 the first request got.
    pub response: String,
}

/// Why an order was not placed.
#[derive(Debug)]
pub enum PlaceOrderError {
    CustomerNotFound,
    /// Another request holds the Idempotency-Key: read its record.
    KeyTaken,
    /// A concurrent transaction touched the same items; worth another try.
    Contended,
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

/// The cancellation reasons of a cancelled transaction, or the error itself as an AppError.
fn cancellation_reasons(
    err: SdkError<TransactWriteItemsError, aws_sdk_dynamodb::config::http::HttpResponse>,
) -> Result<Vec<CancellationReason>, AppError> {
    match err.as_service_error() {
        Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) => {
            Ok(cancelled.cancellation_reasons().to_vec())
        }
        _ => Err(err.into()),
    }
}

pub(crate) fn reason_code(reasons: &[CancellationReason], index: usize) -> &str {
    reasons
        .get(index)
        .and_then(CancellationReason::code)
        .unwrap_or("None")
}

impl Store {
    /// Sends one TransactWriteItems: `None` when it committed, its cancellation reasons (one
    /// per action, in order) when it was cancelled.
    pub(crate) async fn transact(
        &self,
        actions: Vec<TransactWriteItem>,
    ) -> Result<Option<Vec<CancellationReason>>, AppError> {
        match self
            .client
            .transact_write_items()
            .set_transact_items(Some(actions))
            .send()
            .await
        {
            Ok(_) => Ok(None),
            Err(err) => cancellation_reasons(err).map(Some),
        }
    }

    /// Creates or replaces a customer's name and email, keeping whatever else the profile holds
    /// (its order statistics). One UpdateItem; `true` when the customer is new.
    pub async fn put_customer(&self, customer: &Customer) -> Result<bool, AppError> {
        let out = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(
                keys::customer::pk(&customer.customer_id),
                keys::customer::PROFILE_SK,
            )))
            .update_expression("SET #name = :name, #email = :email")
            .expression_attribute_names("#name", "name")
            .expression_attribute_names("#email", "email")
            .expression_attribute_values(":name", s(&customer.name))
            .expression_attribute_values(":email", s(&customer.email))
            .return_values(ReturnValue::AllOld)
            .send()
            .await?;
        // DynamoDB returns no old attributes for a new item; an engine that hands back the bare
        // key (dynoxide 3.2 does) means the same.
        Ok(out
            .attributes
            .is_none_or(|old| old.keys().all(|name| name == PK || name == SK)))
    }

    /// The record an `Idempotency-Key` left, unless there is none or it has expired (TTL
    /// deletes expired items only eventually). A strongly consistent GetItem.
    pub async fn idempotency_record(
        &self,
        customer: &CustomerId,
        idempotency_key: &IdempotencyKey,
    ) -> Result<Option<IdempotencyRecord>, AppError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(
                keys::idempotency::pk(customer, idempotency_key),
                keys::idempotency::SK,
            )))
            .consistent_read(true)
            .send()
            .await?;
        let Some(item) = out.item else {
            return Ok(None);
        };
        let text = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
        let expires_at = item
            .get("expiresAt")
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0);
        if expires_at <= epoch_seconds() {
            return Ok(None);
        }
        match (text("fingerprint"), text("orderId"), text("response")) {
            (Some(fingerprint), Some(order_id), Some(response)) => Ok(Some(IdempotencyRecord {
                fingerprint,
                order_id: OrderId::parse(&order_id)?,
                response,
            })),
            _ => Err(AppError::internal(
                "idempotency record without its attributes",
            )),
        }
    }

    /// Places `order` in ONE TransactWriteItems: a check that the customer exists, the listing
    /// item, the header, the line items, and (with a key) the idempotency record, each put only
    /// where nothing is yet.
    pub async fn place_order(
        &self,
        order: &NewOrder,
        idempotency: Option<(&IdempotencyKey, &IdempotencyRecord)>,
    ) -> Result<(), PlaceOrderError> {
        let customer_check = ConditionCheck::builder()
            .table_name(&self.table)
            .set_key(Some(key(
                keys::customer::pk(&order.customer_id),
                keys::customer::PROFILE_SK,
            )))
            .condition_expression("attribute_exists(PK)")
            .build();
        let mut actions = vec![
            TransactWriteItem::builder()
                .condition_check(built(customer_check)?)
                .build(),
        ];
        let mut items = vec![order.listing_item()?, order.header_item()?];
        items.extend(order.line_items()?);
        let now = epoch_seconds();
        let record_item = idempotency.map(|(idem_key, record)| {
            Item::from([
                (
                    PK.to_owned(),
                    s(keys::idempotency::pk(&order.customer_id, idem_key)),
                ),
                (SK.to_owned(), s(keys::idempotency::SK)),
                ("fingerprint".to_owned(), s(&record.fingerprint)),
                ("orderId".to_owned(), s(record.order_id.as_str())),
                ("response".to_owned(), s(&record.response)),
                (
                    "expiresAt".to_owned(),
                    AttributeValue::N((now + IDEMPOTENCY_TTL_SECONDS).to_string()),
                ),
            ])
        });
        let sizes: Vec<usize> = items.iter().chain(&record_item).map(item_size).collect();
        if sizes.iter().any(|size| *size > MAX_ITEM_BYTES)
            || sizes.iter().sum::<usize>() > MAX_TRANSACTION_BYTES
        {
            return Err(AppError::PayloadTooLarge(
                "the order exceeds DynamoDB's item or transaction size limit".into(),
            )
            .into());
        }
        for item in items {
            let put = Put::builder()
                .table_name(&self.table)
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(PK)");
            actions.push(
                TransactWriteItem::builder()
                    .put(built(put.build())?)
                    .build(),
            );
        }
        let mut idempotency_index = None;
        if let Some(item) = record_item {
            // An expired record that TTL has not yet removed may be taken over.
            let put = Put::builder()
                .table_name(&self.table)
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(PK) OR expiresAt < :now")
                .expression_attribute_values(":now", AttributeValue::N(now.to_string()));
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
        if reason_code(&reasons, 0) == "ConditionalCheckFailed" {
            return Err(PlaceOrderError::CustomerNotFound);
        }
        if let Some(index) = idempotency_index
            && reason_code(&reasons, index) == "ConditionalCheckFailed"
        {
            return Err(PlaceOrderError::KeyTaken);
        }
        if reasons
            .iter()
            .any(|r| matches!(r.code(), Some("TransactionConflict")))
        {
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
            .expression_attribute_values(":pk", s(keys::order_header::pk(order)))
            .consistent_read(true)
            .send()
            .await?;
        let mut header = None;
        let mut items = Vec::new();
        for item in out.items.unwrap_or_default() {
            let sk = item
                .get(SK)
                .and_then(|v| v.as_s().ok())
                .cloned()
                .unwrap_or_default();
            if sk == keys::order_header::SK {
                header = Some(Order::from_header_item(item).map_err(bad_item)?);
            } else if sk.starts_with(keys::line_item::SK_PREFIX) {
                items.push(LineItem::from_item(item).map_err(bad_item)?);
            }
        }
        Ok(header.map(|h| OrderDetails {
            order_id: h.order_id,
            customer_id: h.customer_id,
            placed_at: h.placed_at,
            status: h.status,
            total: h.total,
            items,
        }))
    }

    /// The order's header alone (strongly consistent), as a status change reads it first.
    pub async fn order_header(&self, order: &OrderId) -> Result<Option<Order>, AppError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(
                keys::order_header::pk(order),
                keys::order_header::SK,
            )))
            .consistent_read(true)
            .send()
            .await?;
        out.item
            .map(Order::from_header_item)
            .transpose()
            .map_err(bad_item)
    }

    /// Moves the order from `header.status` to `next` in ONE TransactWriteItems: the header and
    /// the listing item (whose GSI1PK follows the status), each only if its status is still the
    /// one read, so of two racing changes only one can win.
    pub async fn change_status(
        &self,
        header: &Order,
        next: OrderStatus,
    ) -> Result<(), StatusChangeError> {
        let update = |key_item: Item, set: &str| {
            Update::builder()
                .table_name(&self.table)
                .set_key(Some(key_item))
                .update_expression(set)
                .condition_expression("#status = :current")
                .expression_attribute_names("#status", "status")
                .expression_attribute_values(":current", s(header.status.as_str()))
                .expression_attribute_values(":next", s(next.as_str()))
        };
        let header_update = update(
            key(
                keys::order_header::pk(&header.order_id),
                keys::order_header::SK,
            ),
            "SET #status = :next",
        )
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let listing_update = update(
            key(
                keys::order_listing::pk(&header.customer_id),
                keys::order_listing::sk(header.placed_at, &header.order_id),
            ),
            "SET #status = :next, GSI1PK = :gsi1pk",
        )
        .expression_attribute_values(":gsi1pk", s(keys::order_listing::gsi1pk(next)));
        let actions = vec![
            TransactWriteItem::builder()
                .update(built(header_update.build())?)
                .build(),
            TransactWriteItem::builder()
                .update(built(listing_update.build())?)
                .build(),
        ];
        let Some(reasons) = self.transact(actions).await? else {
            return Ok(());
        };
        match (reason_code(&reasons, 0), reason_code(&reasons, 1)) {
            ("ConditionalCheckFailed", _) => {
                let current = reasons[0]
                    .item()
                    .and_then(|item| item.get("status"))
                    .and_then(|v| v.as_s().ok())
                    .and_then(|v| v.parse().ok());
                Err(StatusChangeError::Stale(current))
            }
            ("TransactionConflict", _) | (_, "TransactionConflict") => {
                Err(StatusChangeError::Contended)
            }
            (_, "ConditionalCheckFailed") => Err(AppError::internal(format!(
                "order {} has a header but its listing item is missing or out of step",
                header.order_id
            ))
            .into()),
            (a, b) => {
                Err(AppError::internal(format!("status transaction cancelled: {a}, {b}")).into())
            }
        }
    }
}
