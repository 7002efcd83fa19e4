//! What the domain's tests build their orders from: times, SKUs and lines from short strings.

use crate::domain::ids::{ReturnId, Sku};
use crate::domain::lines::LineQuantity;
use crate::domain::returns::OrderReturn;
use crate::domain::time::Timestamp;

/// The time `raw` says (RFC 3339).
pub(crate) fn at(raw: &str) -> Timestamp {
    Timestamp::parse(raw).expect("time")
}

/// The SKU `raw` names.
pub(crate) fn sku(raw: &str) -> Sku {
    Sku::parse(raw).expect("sku")
}

/// Lines of `(sku, quantity)`.
pub(crate) fn lines(what: &[(&str, u32)]) -> Vec<LineQuantity> {
    what.iter()
        .map(|(s, quantity)| LineQuantity {
            sku: sku(s),
            quantity: *quantity,
        })
        .collect()
}

/// A return `id` of `what`, asked for on the 21st of November.
pub(crate) fn requested(id: &str, what: &[(&str, u32)]) -> OrderReturn {
    OrderReturn::requested(
        ReturnId::parse(id).expect("id"),
        lines(what),
        "too small".into(),
        at("2026-11-21T10:00:00Z"),
    )
}
