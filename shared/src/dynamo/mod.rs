//! DynamoDB: the key design (`keys`), how values become attributes (`codec`), one codec per
//! stored entity (`entities`), transactions and their outcomes (`transaction`), and the store's
//! requests, one module per concern. Every access pattern is one request.

pub mod capacity;
pub mod cart;
pub mod catalog_events;
pub mod categories;
pub mod client;
pub mod codec;
pub mod cursor;
pub mod customers;
pub mod disputes;
pub mod emails;
pub mod entities;
pub mod errors;
pub mod events;
pub mod holds;
pub mod item_write;
pub mod keys;
pub mod media;
pub mod migrations;
pub mod order_pages;
pub mod orders;
pub mod payments;
pub mod products;
pub mod promotions;
pub mod query;
pub mod quote;
pub mod recent;
pub mod record;
pub mod refunds;
pub mod reshard;
pub mod shipping;
pub mod stats;
pub mod status_shards;
pub mod store;
pub mod stored_collections;
pub mod tax;
pub mod transaction;
pub mod update;
