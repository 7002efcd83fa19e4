//! The payment provider's API (Stripe's), as the store calls it: a small client on the HTTP stack
//! the SDK already builds (hyper 1, rustls on ring), its requests, and the secrets the functions
//! that call it read once at init. Only the functions that call the provider link this crate.
//!
//! Every request has a bounded timeout and is retried through `shared::retry` only on what is
//! safe to retry (429, 5xx, a timeout, a lost connection); every request that creates something
//! carries an `Idempotency-Key` derived from the store's own ID.

pub mod client;
pub mod intents;
pub mod refunds;
pub mod secret;

pub use client::{Provider, ProviderError};
pub use intents::PaymentIntent;
