//! A migration's state in the table: each segment's checkpoint (where its scan continues and
//! what it counted) and the record of completion.

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

use crate::AppError;
use crate::dynamo::codec::Item;
use crate::dynamo::entities::migration_state as stored;
use crate::dynamo::migrations::{Budget, Counts, Migration, patiently};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::Store;

/// Where a segment's scan is, and what it has counted across runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Checkpoint {
    /// Where the next page starts (none: at the start, or, once `done`, nowhere).
    pub next: Option<Item>,
    pub done: bool,
    pub counts: Counts,
}

impl Checkpoint {
    /// After a page: its counts added, and where the next one starts.
    pub(super) fn advance(&mut self, counts: Counts, next: Option<Item>) {
        self.counts += counts;
        self.done = next.is_none();
        self.next = next;
    }
}

impl Store {
    /// Whether `migration` is recorded complete at its version.
    pub(super) async fn migration_complete(
        &self,
        migration: Migration,
        budget: &Budget,
    ) -> Result<bool, AppError> {
        let item = self
            .get_paced(stored::status_key(migration.name()), budget)
            .await?;
        Ok(item
            .and_then(|mut item| stored::CompletionRecord::read(&mut item).ok())
            .is_some_and(|done| done.version == migration.version()))
    }

    /// Records `migration` complete, with `left` items it could not place.
    pub(super) async fn record_complete(
        &self,
        migration: Migration,
        left: u64,
        budget: &Budget,
    ) -> Result<(), AppError> {
        let mut item = stored::status_key(migration.name());
        let completion = stored::Completion {
            version: migration.version(),
            completed_at: chrono::Utc::now().to_rfc3339(),
            unplaceable: left,
        };
        stored::CompletionRecord::write(&mut item, &completion);
        self.put_paced(item, budget).await
    }

    /// Fails unless the table has the global secondary index `index`, ACTIVE (DescribeTable:
    /// no capacity spent).
    pub(super) async fn index_active(&self, index: &str) -> Result<(), AppError> {
        let described = patiently(|_| async {
            self.client
                .describe_table()
                .table_name(&self.table)
                .send()
                .await
                .map_err(AppError::from)
        })
        .await?;
        let status = described
            .table()
            .map(|t| t.global_secondary_indexes())
            .unwrap_or_default()
            .iter()
            .find(|gsi| gsi.index_name() == Some(index))
            .map(|gsi| {
                gsi.index_status()
                    .map_or("unknown", |s| s.as_str())
                    .to_owned()
            });
        match status.as_deref() {
            Some("ACTIVE") => Ok(()),
            Some(other) => Err(AppError::invalid(format!(
                "{index} on {} is {other}, not ACTIVE: wait until it is, then run again; nothing was written",
                self.table
            ))),
            None => Err(AppError::invalid(format!(
                "{} has no index {index}: deploy the template that adds it, then run again; nothing was written",
                self.table
            ))),
        }
    }

    /// Each item recorded as not placed: its key as stored, and why.
    pub(super) async fn unplaceable(
        &self,
        migration: Migration,
        budget: &Budget,
    ) -> Result<Vec<(String, String, String)>, AppError> {
        let records = self
            .query_prefix_paced(
                stored::pk(migration.name()),
                stored::UNPLACEABLE_PREFIX,
                budget,
            )
            .await?;
        Ok(records
            .into_iter()
            .filter_map(|mut r| stored::UnplaceableRecord::read(&mut r).ok())
            .map(|u| (u.item_pk, u.item_sk, u.reason))
            .collect())
    }

    /// Forgets every item recorded as not placed.
    pub(super) async fn clear_unplaceable(
        &self,
        migration: Migration,
        budget: &Budget,
    ) -> Result<(), AppError> {
        for (pk, sk, _) in self.unplaceable(migration, budget).await? {
            self.delete_paced(stored::unplaceable_key(migration.name(), &pk, &sk), budget)
                .await?;
        }
        Ok(())
    }

    /// Records (and logs) an item the migration could not place: its key as stored, and why.
    pub(super) async fn record_unplaceable(
        &self,
        migration: Migration,
        (pk, sk): (&str, &str),
        reason: &str,
        dry_run: bool,
        budget: &Budget,
    ) -> Result<(), AppError> {
        tracing::warn!(
            pk,
            sk,
            reason,
            "item left as it is: the migration cannot place it"
        );
        if dry_run {
            return Ok(());
        }
        let mut item = stored::unplaceable_key(migration.name(), pk, sk);
        let record = stored::Unplaceable {
            item_pk: pk.to_owned(),
            item_sk: sk.to_owned(),
            reason: reason.to_owned(),
        };
        stored::UnplaceableRecord::write(&mut item, &record);
        self.put_paced(item, budget).await
    }

    pub(super) async fn read_checkpoint(
        &self,
        migration: Migration,
        segment: u32,
        segments: u32,
        budget: &Budget,
    ) -> Result<Checkpoint, AppError> {
        let key = stored::segment_key(migration.name(), segment, segments);
        let Some(mut item) = self.get_paced(key, budget).await? else {
            return Ok(Checkpoint::default());
        };
        let segment = stored::SegmentRecord::read(&mut item)?;
        Ok(Checkpoint {
            done: segment.done,
            next: segment.last_key,
            counts: Counts {
                scanned: segment.scanned,
                changed: segment.changed,
                skipped: segment.skipped,
                deferred: segment.deferred,
                ..Counts::default()
            },
        })
    }

    pub(super) async fn write_checkpoint(
        &self,
        migration: Migration,
        segment: u32,
        segments: u32,
        checkpoint: &Checkpoint,
        budget: &Budget,
    ) -> Result<(), AppError> {
        let mut item = stored::segment_key(migration.name(), segment, segments);
        let stored_segment = stored::Segment {
            version: migration.version(),
            done: checkpoint.done,
            last_key: checkpoint.next.clone(),
            scanned: checkpoint.counts.scanned,
            changed: checkpoint.counts.changed,
            skipped: checkpoint.counts.skipped,
            deferred: checkpoint.counts.deferred,
        };
        stored::SegmentRecord::write(&mut item, &stored_segment);
        self.put_paced(item, budget).await
    }

    /// One item, strongly consistent, its read paced.
    pub(super) async fn get_paced(
        &self,
        key: Item,
        budget: &Budget,
    ) -> Result<Option<Item>, AppError> {
        let out = patiently(|_| async {
            self.client
                .get_item()
                .table_name(&self.table)
                .set_key(Some(key.clone()))
                .consistent_read(true)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(AppError::from)
        })
        .await?;
        budget.read(out.consumed_capacity()).await?;
        Ok(out.item)
    }

    /// One of the migration's own items written, paced.
    pub(super) async fn put_paced(&self, item: Item, budget: &Budget) -> Result<(), AppError> {
        let out = patiently(|_| async {
            self.client
                .put_item()
                .table_name(&self.table)
                .set_item(Some(item.clone()))
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(AppError::from)
        })
        .await?;
        budget.write(out.consumed_capacity()).await
    }

    /// One of the migration's own items removed, paced.
    pub(super) async fn delete_paced(&self, key: Item, budget: &Budget) -> Result<(), AppError> {
        let out = patiently(|_| async {
            self.client
                .delete_item()
                .table_name(&self.table)
                .set_key(Some(key.clone()))
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await
                .map_err(AppError::from)
        })
        .await?;
        budget.write(out.consumed_capacity()).await
    }

    /// Every item of partition `pk` whose sort key begins with `prefix` (a paginated, strongly
    /// consistent Query), its reads paced.
    pub(super) async fn query_prefix_paced(
        &self,
        pk: String,
        prefix: &str,
        budget: &Budget,
    ) -> Result<Vec<Item>, AppError> {
        let query = KeyQuery::on(Index::Table, pk).begins_with(prefix);
        let mut found = Vec::new();
        let mut start = None;
        loop {
            let out = patiently(|_| async {
                query
                    .request(self)
                    .consistent_read(true)
                    .set_exclusive_start_key(start.clone())
                    .return_consumed_capacity(ReturnConsumedCapacity::Total)
                    .send()
                    .await
                    .map_err(AppError::from)
            })
            .await?;
            budget.read(out.consumed_capacity()).await?;
            found.extend(out.items.unwrap_or_default());
            start = out.last_evaluated_key.filter(|key| !key.is_empty());
            if start.is_none() {
                return Ok(found);
            }
        }
    }
}
