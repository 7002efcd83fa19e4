//! The store's key design and everything every Lambda shares: validated IDs, key builders and
//! parsers, entities, the repository (one DynamoDB request per access pattern), the pagination
//! cursor, the error type and its HTTP mapping, and the bootstrap.

pub mod bootstrap;
pub mod cursor;
pub mod entities;
pub mod error;
pub mod gateway;
pub mod http;
pub mod ids;
pub mod keys;
pub mod money;
pub mod orders;
pub mod repo;
pub mod stats;
pub mod writes;

pub use error::AppError;
pub use repo::Store;
