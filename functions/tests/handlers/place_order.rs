//! place-order's tests, in one test binary: each binary links the SDK and the embedded engine, so
//! fewer, larger ones build faster and take less disk.

mod cap;
mod catalog;
mod handler;
