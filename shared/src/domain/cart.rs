//! A customer's cart: what they mean to buy, line by line, until checkout. Prices are not in it:
//! checkout reads them from the catalog.

use serde::Serialize;

use crate::AppError;
use crate::domain::ids::Sku;
use crate::domain::order::MAX_QUANTITY;

/// The most lines a cart holds: as many as one checkout transaction carries. DynamoDB's
/// TransactWriteItems takes 100 actions; checkout needs three per line (the product's stock
/// held, the order's line item written, the cart line deleted) and four more (the order's
/// listing, its header, the Idempotency-Key's record, the customer's place under the cap on
/// open orders), and up to six counts of the promotions' uses: 3 × 30 + 4 + 6 = 100.
pub const MAX_CART_LINES: usize = 30;

/// How long a cart line lives after its last change when the template says nothing
/// (`CartTtlDays`).
pub const DEFAULT_CART_TTL_DAYS: u32 = 30;

/// One line of a cart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CartLine {
    /// Which product.
    pub sku: Sku,
    /// How many, 1 to [`MAX_QUANTITY`].
    pub quantity: u32,
}

/// A customer's cart: its live lines, in SKU order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Cart {
    /// The lines not yet expired.
    pub items: Vec<CartLine>,
}

/// What a `PUT` of a cart line asks: a quantity to hold, or (0) to remove the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineChange {
    /// The line holds this many.
    Hold(u32),
    /// The line leaves the cart.
    Remove,
}

impl LineChange {
    /// The change a requested quantity asks for: 0 removes the line; more than
    /// [`MAX_QUANTITY`] is a 400.
    pub fn of(quantity: u32) -> Result<Self, AppError> {
        match quantity {
            0 => Ok(LineChange::Remove),
            q if q <= MAX_QUANTITY => Ok(LineChange::Hold(q)),
            q => Err(AppError::invalid(format!(
                "quantity must be 0 to {MAX_QUANTITY}, not {q}"
            ))),
        }
    }
}

/// How long cart lines live: `CART_TTL_DAYS` days after their last change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CartTtl {
    days: u32,
}

impl CartTtl {
    /// A lifetime of `days` days, 1 to 365.
    pub fn days(days: u32) -> Result<Self, String> {
        if (1..=365).contains(&days) {
            Ok(Self { days })
        } else {
            Err(format!("a cart line lives 1 to 365 days, not {days}"))
        }
    }

    /// When a line changed at `now` (seconds since the epoch) expires.
    pub fn expiry(self, now: u64) -> u64 {
        now + u64::from(self.days) * 24 * 60 * 60
    }
}

impl Default for CartTtl {
    fn default() -> Self {
        Self {
            days: DEFAULT_CART_TTL_DAYS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkout_of_a_full_cart_fits_one_transaction() {
        let per_line = 3;
        let fixed = 4;
        let promotions_counted = 6;
        assert_eq!(per_line * MAX_CART_LINES + fixed + promotions_counted, 100);
    }

    #[test]
    fn zero_removes_a_line_and_too_many_is_refused() {
        assert_eq!(LineChange::of(0).expect("0"), LineChange::Remove);
        assert_eq!(LineChange::of(3).expect("3"), LineChange::Hold(3));
        assert!(LineChange::of(MAX_QUANTITY + 1).is_err());
        assert_eq!(CartTtl::default().expiry(1_000), 1_000 + 30 * 86_400);
        assert!(CartTtl::days(0).is_err() && CartTtl::days(366).is_err());
    }
}
