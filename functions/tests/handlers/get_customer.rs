//! get-customer's tests, in one test binary: each binary links the SDK and the embedded engine, so
//! fewer, larger ones build faster and take less disk.

mod handler;
mod lambda;
