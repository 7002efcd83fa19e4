//! template.yaml, checked as data: least-privilege grants that match what the code writes, the
//! table and its stream, the routes' authorizer and throttling, and the alarms and dashboard
//! operators rely on.

mod declared;
mod grants;
mod observed;
mod operations;
mod stack;
