//! What an `Idempotency-Key` promises: a retried request gets the first one's answer, and the
//! same key with another request is refused.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::domain::ids::{CustomerId, OrderId, Sku};
use crate::domain::order::RequestedLine;

/// How long an Idempotency-Key is remembered.
pub const IDEMPOTENCY_TTL_SECONDS: u64 = 24 * 60 * 60;

/// What an `Idempotency-Key` remembers of the first request that used it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyRecord {
    /// What identifies the first request's body: a later one must match it.
    pub fingerprint: String,
    /// The order the first request placed.
    pub order_id: OrderId,
    /// The JSON body of the 201 the first request got.
    pub response: String,
}

/// What identifies a request for idempotency: the customer and the lines as asked for, in
/// order (not the prices charged: a replay answers with the first request's order, whatever the
/// catalog says now).
pub fn fingerprint(customer: &CustomerId, lines: &[RequestedLine]) -> String {
    let mut canonical = format!("{customer}\n");
    for line in lines {
        let expected = line
            .expected_price
            .map(|price| price.amount().normalize().to_string())
            .unwrap_or_default();
        let _ = writeln!(canonical, "{}|{}|{expected}", line.sku, line.quantity);
    }
    hex_digest(&canonical)
}

/// What identifies a checkout for idempotency: the customer, that it is a checkout, and the
/// cart it checked out (`lines`: SKU and quantity, in any order), its body. The first checkout
/// empties the cart, so a retry finds it empty; a cart that holds other lines under the same key
/// is another request (`checkout::handle`).
pub fn checkout_fingerprint(customer: &CustomerId, lines: &[(Sku, u32)]) -> String {
    let mut sorted: Vec<&(Sku, u32)> = lines.iter().collect();
    sorted.sort();
    let canonical = sorted.iter().fold(
        format!("checkout\n{customer}\n"),
        |mut text, (sku, quantity)| {
            let _ = writeln!(text, "{sku} {quantity}");
            text
        },
    );
    hex_digest(&canonical)
}

/// `fingerprint` (a checkout's cart) with the body that came with it: an empty body leaves it as
/// it is, so a checkout without one fingerprints as it always did.
pub fn with_body(fingerprint: &str, body: &[u8]) -> String {
    if body.is_empty() {
        return fingerprint.to_owned();
    }
    hex_digest(&format!("{fingerprint}\n{}", String::from_utf8_lossy(body)))
}

fn hex_digest(canonical: &str) -> String {
    Sha256::digest(canonical.as_bytes())
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::Money;

    fn lines(quantity: u32, price: &str) -> Vec<RequestedLine> {
        vec![RequestedLine {
            sku: Sku::parse("a").expect("sku"),
            quantity,
            expected_price: Some(Money::parse_number(price).expect("price")),
        }]
    }

    #[test]
    fn the_fingerprint_follows_the_content_not_its_spelling() {
        let c1 = CustomerId::parse("c1").expect("id");
        assert_eq!(
            fingerprint(&c1, &lines(1, "1.5")),
            fingerprint(&c1, &lines(1, "1.50"))
        );
        assert_ne!(
            fingerprint(&c1, &lines(1, "1.5")),
            fingerprint(&c1, &lines(2, "1.50"))
        );
        assert_ne!(
            fingerprint(&c1, &lines(1, "1.5")),
            fingerprint(&CustomerId::parse("c2").expect("id"), &lines(1, "1.5"))
        );
    }

    #[test]
    fn a_checkouts_fingerprint_is_its_cart_in_any_order() {
        let c1 = CustomerId::parse("c1").expect("id");
        let line = |sku: &str, quantity| (Sku::parse(sku).expect("sku"), quantity);
        let cart = [line("a", 1), line("b", 2)];
        let same = [line("b", 2), line("a", 1)];
        assert_eq!(
            checkout_fingerprint(&c1, &cart),
            checkout_fingerprint(&c1, &same)
        );
        assert_ne!(
            checkout_fingerprint(&c1, &cart),
            checkout_fingerprint(&c1, &[line("a", 1), line("b", 3)])
        );
        assert_ne!(
            checkout_fingerprint(&c1, &cart),
            checkout_fingerprint(&c1, &[])
        );
    }
}
