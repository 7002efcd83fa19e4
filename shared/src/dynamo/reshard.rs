//! Moving orders between status shards, for when the shard count goes down (going up needs
//! nothing: see [`StatusShards`]). Safe while the store serves and safe to run again. One bad
//! item never stops it: an item it cannot read as a listing, a move DynamoDB refuses, or a
//! shard's page it cannot read is reported by key with its reason, and the rest still move.

use crate::dynamo::errors::unless_condition_failed;

use crate::AppError;
use crate::domain::status::OrderStatus;
use crate::dynamo::codec::{self, Item, key_text};
use crate::dynamo::cursor::text;
use crate::dynamo::entities::order_listing;
use crate::dynamo::keys::{PK, SK, StatusShards};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::Store;

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resharded {
    /// Orders read, across every status and shard.
    pub examined: usize,
    /// Orders moved into the shard the store's count gives them.
    pub moved: usize,
    /// Orders that changed (their status, say) between the read and the move: a status change
    /// already put them in a shard; a run after the new count is deployed settles them.
    pub changed_meanwhile: usize,
    /// What it could not move, each by its key (or the GSI1 partition whose page it could not
    /// read), with why: the rest were moved all the same. A run again tries each again.
    pub failures: Vec<NotMoved>,
}

/// An item, or a shard's page, the run could not get past, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotMoved {
    /// The item's `PK` and `SK`, or the GSI1 partition.
    pub key: String,
    /// Why, in the error's own words.
    pub reason: String,
}

/// Where one listing ended up.
enum Placed {
    /// Moved into the shard its ID belongs to.
    Moved,
    /// Its key changed between the read and the move (a status change placed it already).
    ChangedMeanwhile,
    /// It was in its shard already.
    InItsShard,
}

impl Resharded {
    fn failed(&mut self, key: String, reason: String) {
        tracing::error!(%key, %reason, "the reshard could not move this; it goes on with the rest");
        self.failures.push(NotMoved { key, reason });
    }
}

impl Store {
    /// Moves every order listed in a status shard its ID does not belong to under this store's
    /// count into the one it does: each shard of every status, up to [`StatusShards::MAX`], read
    /// through GSI1, and each misplaced listing's `GSI1PK` set in one UpdateItem conditioned on
    /// the key it was read with. An order is in exactly one shard before and after its move, so
    /// a listing reading the shards of the old count keeps finding it.
    pub async fn reshard_statuses(&self) -> Result<Resharded, AppError> {
        let mut done = Resharded::default();
        for status in OrderStatus::ALL {
            for k in 0..StatusShards::MAX {
                let gsi1pk = order_listing::gsi1pk(status, k);
                let mut start = None;
                loop {
                    let sent = KeyQuery::on(Index::Gsi1, gsi1pk.clone())
                        .request(self)
                        .set_exclusive_start_key(start)
                        .send()
                        .await;
                    let out = match sent {
                        Ok(out) => out,
                        Err(err) => {
                            // This shard's next page cannot be read: the other shards still are.
                            let reason = AppError::from(err).with_causes();
                            done.failed(format!("GSI1 {gsi1pk}"), reason);
                            break;
                        }
                    };
                    for item in out.items.unwrap_or_default() {
                        done.examined += 1;
                        let key = key_text(&item);
                        match self.reshard_one(&item, status, k, &gsi1pk).await {
                            Ok(Placed::Moved) => done.moved += 1,
                            Ok(Placed::ChangedMeanwhile) => done.changed_meanwhile += 1,
                            Ok(Placed::InItsShard) => {}
                            Err(err) => done.failed(key, err.with_causes()),
                        }
                    }
                    start = out.last_evaluated_key.filter(|key| !key.is_empty());
                    if start.is_none() {
                        break;
                    }
                }
            }
        }
        Ok(done)
    }

    /// One listing read from shard `k` of `status` (`gsi1pk`) moved into the shard its ID
    /// belongs to.
    async fn reshard_one(
        &self,
        item: &Item,
        status: OrderStatus,
        k: u32,
        gsi1pk: &str,
    ) -> Result<Placed, AppError> {
        let (Some(pk), Some(sk)) = (text(item, PK), text(item, SK)) else {
            return Err(AppError::internal(
                "an item in a status shard without PK or SK",
            ));
        };
        let (_, order) = order_listing::parse_sk(sk)
            .map_err(|err| AppError::internal(format!("not an order listing's sort key: {err}")))?;
        let target = self.status_shards.of(&order);
        if target == k {
            return Ok(Placed::InItsShard);
        }
        let moved = order_listing::STATUS_CHANGE
            .on(&self.table, codec::primary_key(pk.to_owned(), sk))
            .set(
                &order_listing::GSI1PK,
                &order_listing::gsi1pk(status, target),
            )
            .condition("#GSI1PK = :from")
            .value(":from", &order_listing::GSI1PK, &gsi1pk.to_owned())
            .request(&self.client)?
            .send()
            .await;
        Ok(match unless_condition_failed(moved)? {
            Some(_) => Placed::Moved,
            None => Placed::ChangedMeanwhile,
        })
    }
}
