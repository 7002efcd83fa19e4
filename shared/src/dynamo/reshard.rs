//! Moving orders between status shards, for when the shard count goes down (going up needs
//! nothing: see [`StatusShards`]). Safe while the store serves and safe to run again.

use crate::dynamo::errors::unless_condition_failed;

use crate::AppError;
use crate::domain::status::OrderStatus;
use crate::dynamo::codec;
use crate::dynamo::cursor::text;
use crate::dynamo::entities::order_listing;
use crate::dynamo::keys::{PK, SK, StatusShards};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::Store;

/// What a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resharded {
    /// Orders read, across every status and shard.
    pub examined: usize,
    /// Orders moved into the shard the store's count gives them.
    pub moved: usize,
    /// Orders that changed (their status, say) between the read and the move: a status change
    /// already put them in a shard; a run after the new count is deployed settles them.
    pub changed_meanwhile: usize,
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
                    let out = KeyQuery::on(Index::Gsi1, gsi1pk.clone())
                        .request(self)
                        .set_exclusive_start_key(start)
                        .send()
                        .await?;
                    for item in out.items.unwrap_or_default() {
                        done.examined += 1;
                        let (Some(pk), Some(sk)) = (text(&item, PK), text(&item, SK)) else {
                            continue;
                        };
                        let Ok((_, order)) = order_listing::parse_sk(sk) else {
                            continue;
                        };
                        let target = self.status_shards.of(&order);
                        if target == k {
                            continue;
                        }
                        let moved = order_listing::STATUS_CHANGE
                            .on(&self.table, codec::primary_key(pk.to_owned(), sk))
                            .set(
                                &order_listing::GSI1PK,
                                &order_listing::gsi1pk(status, target),
                            )
                            .condition("#GSI1PK = :from")
                            .value(":from", &order_listing::GSI1PK, &gsi1pk)
                            .request(&self.client)?
                            .send()
                            .await;
                        match unless_condition_failed(moved)? {
                            Some(_) => done.moved += 1,
                            None => done.changed_meanwhile += 1,
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
}
