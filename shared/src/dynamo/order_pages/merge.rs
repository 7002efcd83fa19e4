//! A page merged over several partitions of one index, for a listing spread over shards (a
//! status's GSI1 shards, a sharded SKU's GSI2 partitions): one Query per partition, all at
//! once, merged in the index's sort order, each partition continuing exactly where the last
//! item taken from it was.

use std::collections::VecDeque;

use futures_util::future::join_all;

use crate::AppError;
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::{self, key_of, text};
use crate::dynamo::query::KeyQuery;
use crate::dynamo::store::Store;

/// One partition during a page: its Query, where it continues, what was read and not yet
/// taken, and whether DynamoDB has more after that.
pub(super) struct Partition {
    query: KeyQuery,
    /// The key of the last item taken from this partition, on this page or an earlier one.
    pub(super) position: Option<Item>,
    buffer: VecDeque<Item>,
    /// The last read's LastEvaluatedKey.
    more: Option<Item>,
    /// Read at least once on this page (so it continues from `more`, not `position`).
    read: bool,
    /// Where in the page the last item taken from this partition is.
    last_taken: Option<usize>,
}

impl Partition {
    /// `query`'s partition, continuing after `position` (none: from its start).
    pub(super) fn new(query: KeyQuery, position: Option<Item>) -> Self {
        Self {
            query,
            position,
            buffer: VecDeque::new(),
            more: None,
            read: false,
            last_taken: None,
        }
    }
}

/// How many items the first read asks of each of `partitions`: a partition holds about
/// `limit / N` of a page, so twice that and two more make a second read rare without reading
/// N full pages; a partition that runs dry is read on. One partition reads exactly one more
/// than the page, as an unmerged listing does.
pub(super) fn per_partition_limit(limit: usize, partitions: usize) -> usize {
    let partitions = partitions.max(1);
    (limit + 1).min(2 * (limit + 1).div_ceil(partitions) + 2)
}

/// A merged page: its items in the index's order, and whether the listing goes on after them.
pub(super) struct Merged {
    pub(super) items: Vec<Item>,
    pub(super) more: bool,
}

impl Store {
    /// The next `limit` items of `parts` merged in their queries' order (ascending or newest
    /// first; ties by partition, then in the partition's own order). A page holds exactly
    /// `limit` items unless the listing ends there, and each partition's `position` is left at
    /// the last item taken from it, so the next page continues every one exactly where this
    /// one stopped.
    pub(super) async fn merge_page(
        &self,
        parts: &mut [Partition],
        limit: usize,
    ) -> Result<Merged, AppError> {
        let everyone: Vec<usize> = (0..parts.len()).collect();
        self.read_partitions(parts, &everyone, per_partition_limit(limit, parts.len()))
            .await?;
        let mut taken = Vec::with_capacity(limit);
        // Each round either takes an item or reads on a dry partition; a read either fills its
        // buffer or says it has nothing more, so this ends well before the bound.
        let mut rounds = 0;
        loop {
            rounds += 1;
            if rounds > 4 * limit + 4 * parts.len() + 8 {
                return Err(AppError::internal("a merged listing's page did not end"));
            }
            // A partition that ran dry while DynamoDB has more must be read on before anything
            // is taken (its next item may come first), and before the page says it is the last.
            let dry: Vec<usize> = (parts.iter().enumerate())
                .filter(|(_, p)| p.buffer.is_empty() && p.more.is_some())
                .map(|(k, _)| k)
                .collect();
            if !dry.is_empty() {
                let wanted = limit - taken.len() + 1;
                self.read_partitions(parts, &dry, wanted).await?;
                continue;
            }
            if taken.len() == limit {
                break;
            }
            let Some(k) = next_partition(parts) else {
                break;
            };
            let Some(item) = parts[k].buffer.pop_front() else {
                break;
            };
            parts[k].last_taken = Some(taken.len());
            taken.push(item);
        }
        // Each partition now continues after the last item taken from it.
        for part in parts.iter_mut() {
            if let Some(index) = part.last_taken {
                let attributes = part.query.index().position_attributes();
                part.position = Some(key_of(&taken[index], attributes));
            }
        }
        let more = parts.iter().any(|p| !p.buffer.is_empty());
        Ok(Merged { items: taken, more })
    }

    /// Reads on the partitions `which`, all at once, up to `limit` items each.
    async fn read_partitions(
        &self,
        parts: &mut [Partition],
        which: &[usize],
        limit: usize,
    ) -> Result<(), AppError> {
        let requests = which.iter().map(|&k| {
            let part = &parts[k];
            let start = if part.read {
                part.more.clone()
            } else {
                part.position.clone()
            };
            (part.query.request(self))
                .limit(cursor::query_limit(limit))
                .set_exclusive_start_key(start)
                .send()
        });
        let answers = join_all(requests).await;
        for (&k, answer) in which.iter().zip(answers) {
            let out = answer?;
            let part = &mut parts[k];
            part.read = true;
            let items = out.items.unwrap_or_default();
            // No filter, so a read that found nothing has nothing more.
            part.more = (out.last_evaluated_key).filter(|key| !key.is_empty() && !items.is_empty());
            part.buffer.extend(items);
        }
        Ok(())
    }
}

/// The partition whose next buffered item comes first in the queries' order.
fn next_partition(parts: &[Partition]) -> Option<usize> {
    let fronts = parts.iter().enumerate().filter_map(|(k, p)| {
        let sort_key = p.query.index().key().1;
        Some((text(p.buffer.front()?, sort_key)?, k))
    });
    let newest_first = parts.first().is_some_and(|p| p.query.is_newest_first());
    if newest_first {
        fronts
            .max_by(|(a, j), (b, k)| a.cmp(b).then(k.cmp(j)))
            .map(|(_, k)| k)
    } else {
        fronts.min().map(|(_, k)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_first_reads_about_its_share_of_a_page() {
        assert_eq!(per_partition_limit(25, 1), 26);
        assert_eq!(per_partition_limit(25, 4), 2 * 7 + 2);
        assert_eq!(per_partition_limit(25, 16), 2 * 2 + 2);
        assert_eq!(per_partition_limit(1, 32), 2);
    }
}
