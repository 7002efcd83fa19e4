//! The order's rules, on top of the domain: what an order as read (`order::OrderDetails`, with
//! its lines and records) lets a shipment, a cancellation or a return do, and what each gives
//! back. The records below (`fulfilment`, `cancellation`, `returns`) know nothing of the order,
//! so the arrows point one way: lines, then records, then the order, then these rules.

mod cancellation;
mod fulfilment;
#[cfg(test)]
mod paid_back;
mod returns;
