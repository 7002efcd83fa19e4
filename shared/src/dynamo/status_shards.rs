//! The status shards of GSI1: how many partitions each order status is spread over, and which
//! an order is in.

use crate::domain::ids::OrderId;
use crate::dynamo::keys::fnv1a;

/// How many GSI1 partitions each status's orders are spread over (the template's
/// `StatusShards`). DynamoDB takes about 1,000 writes per second per partition key, and a GSI
/// that cannot keep up throttles the table's writes: with N shards every order lands in shard
/// `k = FNV-1a(orderId) mod N`, so a status change keeps its `k`. Shard 0 is the source design's own
/// key, `STATUS#<status>`; shard k > 0 is `STATUS#<status>#<k>`. With N = 1 the keys are exactly
/// the source design's, and raising N needs no migration: what was written before is in shard 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusShards(u32);

impl StatusShards {
    /// One shard: the source design's keys.
    pub const ONE: StatusShards = StatusShards(1);
    /// A page of the listing reads every shard and its cursor holds a key per shard: 32 keeps
    /// a cursor in a few KiB and allows 32,000 writes per second per status.
    pub const MAX: u32 = 32;

    /// A count of 1 to [`Self::MAX`].
    pub fn new(count: u32) -> Result<Self, String> {
        if (1..=Self::MAX).contains(&count) {
            Ok(Self(count))
        } else {
            Err(format!(
                "the status shard count must be 1 to {}, not {count}",
                Self::MAX
            ))
        }
    }

    /// From text (the `STATUS_SHARDS` variable).
    pub fn parse(raw: &str) -> Result<Self, String> {
        raw.trim()
            .parse::<u32>()
            .map_err(|_| format!("the status shard count must be a whole number, not {raw:?}"))
            .and_then(Self::new)
    }

    /// How many shards.
    pub fn count(self) -> u32 {
        self.0
    }

    /// The shard of `order`.
    pub fn of(self, order: &OrderId) -> u32 {
        fnv1a(order.as_str()) % self.0
    }
}
