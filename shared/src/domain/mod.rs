//! The domain: IDs, money, timestamps, order statuses and their transitions, customers,
//! orders, pages of a listing and statistics, stock shards, and who may do what. Plain Rust:
//! no SDK, no HTTP types and no status codes.

pub mod access;
pub mod address;
pub mod cancellation;
pub mod cart;
pub mod catalog_change;
pub mod category;
pub mod checkout;
pub mod currency;
pub mod customer;
pub mod email;
pub mod error;
pub mod event;
pub mod event_id;
pub mod fulfilment;
pub mod idempotency;
pub mod ids;
pub mod ledger;
pub mod lines;
pub mod media;
pub mod money;
pub mod order;
pub mod page;
pub mod payment;
pub mod present;
pub mod pricing;
pub mod product;
pub mod promotions;
pub mod provider_refund;
pub mod refund;
pub mod returns;
pub mod rules;
pub mod shipping;
pub mod stats;
pub mod status;
pub mod stock_shards;
pub mod tax;
#[cfg(test)]
mod test_support;
pub mod text;
pub mod time;
pub mod variant;
