//! Idempotency records: what a POST with an `Idempotency-Key` left for its retries.

use crate::domain::idempotency::IdempotencyRecord;
use crate::domain::ids::{CustomerId, IdempotencyKey};
use crate::dynamo::items::idempotency;
use crate::dynamo::store::epoch_seconds;
use crate::{AppError, Store};

impl Store {
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
            .set_key(Some(idempotency::key(customer, idempotency_key)))
            .consistent_read(true)
            .send()
            .await?;
        let Some(item) = out.item else {
            return Ok(None);
        };
        let (record, expires_at) = idempotency::from_item(item)?;
        Ok((expires_at > epoch_seconds()).then_some(record))
    }
}
