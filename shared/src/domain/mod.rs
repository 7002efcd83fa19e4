//! The domain: IDs, money, timestamps, order statuses and their transitions, customers,
//! orders, listings and statistics. Plain Rust: no SDK and no HTTP types.

pub mod customer;
pub mod error;
pub mod idempotency;
pub mod ids;
pub mod listing;
pub mod money;
pub mod order;
pub mod stats;
pub mod status;
pub mod time;
