//! The store's shared crate, in three layers; arrows point down into the domain, never up out
//! of it:
//!
//! - [`domain`]: IDs, money, timestamps, order statuses and their transitions, customers,
//!   orders, listings, statistics, the one error type. No SDK and no HTTP types.
//! - [`dynamo`]: the key design, one codec per stored entity, and the store's requests (one
//!   module per concern; every access pattern one request).
//! - [`http`]: API Gateway events and responses, request parameters and bodies, problem
//!   documents.
//!
//! Beside them: [`retry`], the one retry helper, and [`bootstrap`], what every Lambda's `main`
//! calls.

pub mod bootstrap;
pub mod domain;
pub mod dynamo;
pub mod http;
pub mod metrics;
pub mod retry;

pub use domain::error::AppError;
pub use dynamo::store::Store;
