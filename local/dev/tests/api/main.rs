//! dev's tests, in one test binary: each binary links the SDK and the embedded engine, so
//! fewer, larger ones build faster and take less disk.

mod cases;
mod dev;
mod events;
mod explorer;
mod faults;
mod flash_sale;
mod openapi;
mod paying;
mod routes;
mod server;
mod settings;
