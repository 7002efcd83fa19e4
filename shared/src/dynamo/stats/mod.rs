//! Customer order statistics kept from the table's stream: `orderCount`, `totalSpent` (the
//! totals of the customer's orders that are not CANCELLED) and `lastOrderAt`, on the profile.
//! Three steps, one module each: [`records`] reads what a stream record means, [`packing`]
//! groups a batch's changes into transactions, [`apply`] writes them (`writes.rs` builds each
//! action).
//!
//! Every order's share is stored beside them (`CUSTOMER#<id>` / `COUNTED#<orderId>`) with the
//! version ([`ShareVersion`]: the stream sequence number) of the record that set it, and the
//! profile's figures change only in the same transaction as a share, by exactly the share's
//! change, each write conditioned on the share it replaces and on being newer. So, whatever the
//! order of events:
//! - the statistics are always the sum of the stored shares, and no share is negative, so
//!   neither is `totalSpent`;
//! - a record applied twice, or after a later one of its order, finds a newer or equal version
//!   stored (ALL_OLD on the failed condition) and is skipped; one that expected another share
//!   moves the share actually stored. An order's shares end at its latest record, redelivered or
//!   replayed in any order, and nothing depends on markers that expire;
//! - orders are counted whether or not the customer has a profile yet (boto3 writers of the
//!   source design write orders without one): the statistics wait on a profile item that has no
//!   name yet;
//! - the first time a customer's statistics move, orders already in their partition that the
//!   stream never showed (written before the stack, or before the stream's 24 hours) are found
//!   with one paginated Query and counted the same way, then the profile is marked complete.
//!
//! [`ShareVersion`]: crate::domain::stats::ShareVersion

pub mod apply;
pub mod packing;
pub mod records;
mod writes;

pub use apply::Applied;
pub use packing::{CustomerChanges, Pending, pack};
pub use records::{PoisonRecord, RecordEffect, describe_keys, record_effect};
