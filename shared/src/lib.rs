//! The store's shared crate, in three layers; arrows point down into the domain, never up out
//! of it:
//!
//! - [`domain`]: IDs, money, timestamps, order statuses and their transitions, customers,
//!   orders, pages of a listing, statistics, the one error type. No SDK, no HTTP, no status
//!   codes.
//! - [`dynamo`]: the key design (`keys`), how values become attributes (`codec`), one codec per
//!   stored entity (`entities`), transactions and their outcomes (`transaction`), and the store's
//!   requests (one module per concern; every access pattern one request).
//! - [`http`]: API Gateway events and responses, request parameters and bodies, and the one
//!   table from error to status and problem document.
//!
//! The key design is the source design's (the README names it: "DynamoDB Data Modeling for
//! Beginners: Design Your Tables Around Access Patterns", AWS Builder Center), extended; the
//! README numbers the access patterns, and `dynamo::keys` says which key serves which.
//!
//! Beside them: [`retry`], the one retry helper, [`bootstrap`], what every Lambda's `main`
//! calls, and [`permissions`], what each Lambda may send (template.yaml's grants are held to it).

// A reference crate: every public item says what it is for.
#![warn(missing_docs)]

pub mod access_patterns;
pub mod bootstrap;
pub mod domain;
pub mod dynamo;
pub mod http;
pub mod listed;
pub mod metrics;
pub mod permissions;
pub mod retry;

pub use domain::error::AppError;
pub use dynamo::store::Store;
