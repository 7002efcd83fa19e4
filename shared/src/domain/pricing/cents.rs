//! Amounts in the currency's smallest unit (cents), and the two rules every figure of a cart's
//! price is computed by: a product of an amount and a rate rounded half away from zero, and an
//! amount split over weights so that the parts add up to it exactly (the largest remainders
//! get the leftover cents, ties to the earlier part).

use crate::AppError;
use crate::domain::money::{Decimal, Money};

/// An amount in cents. Never negative where the pricing uses it.
pub type Cents = i64;

/// `amount` in cents; an amount with fractions of a cent is refused (prices have two decimals).
pub fn cents(amount: Money) -> Result<Cents, AppError> {
    let scaled = amount.amount() * Decimal::ONE_HUNDRED;
    if scaled.fract() != Decimal::ZERO {
        return Err(AppError::invalid(format!(
            "{amount} is not a whole number of cents"
        )));
    }
    i64::try_from(scaled).map_err(|_| AppError::invalid(format!("{amount} is out of range")))
}

/// `cents` as money: 1995 is 19.95.
pub fn money(cents: Cents) -> Money {
    Money::new(Decimal::new(cents, 2))
}

/// `amount × numerator / denominator`, rounded half away from zero to the cent (`amount` and
/// the ratio non-negative). The one rounding rule of docs/pricing.md.
pub fn scale(amount: Cents, numerator: i128, denominator: i128) -> Cents {
    debug_assert!(amount >= 0 && numerator >= 0 && denominator > 0);
    let product = i128::from(amount) * numerator;
    let rounded = (2 * product + denominator) / (2 * denominator);
    Cents::try_from(rounded).unwrap_or(Cents::MAX)
}

/// A percentage with up to four decimals (`12.5`, `7.25`), as a ratio over 1,000,000: 12.5 % is
/// 125,000 / 1,000,000.
pub fn per_million(percent: Decimal) -> Result<i128, AppError> {
    let scaled = percent * Decimal::from(10_000);
    if scaled.fract() != Decimal::ZERO || percent < Decimal::ZERO || percent > Decimal::ONE_HUNDRED
    {
        return Err(AppError::invalid(format!(
            "a percentage is from 0 to 100 with at most four decimals, not {percent}"
        )));
    }
    i128::try_from(scaled).map_err(|_| AppError::invalid("a percentage out of range"))
}

/// `total` split over `weights` in proportion, each part at most its weight when `total` is at
/// most their sum: the parts add up to `total` exactly. Each part gets the floor of its share;
/// the cents left go one each to the parts with the largest remainders, ties to the earlier
/// part. A total over the weights' sum is cut to it.
pub fn allocate(total: Cents, weights: &[Cents]) -> Vec<Cents> {
    let sum: i128 = weights.iter().map(|w| i128::from(*w)).sum();
    let total = i128::from(total).clamp(0, sum);
    if sum == 0 {
        return vec![0; weights.len()];
    }
    let mut parts: Vec<(i128, i128)> = weights
        .iter()
        .map(|w| {
            let share = total * i128::from(*w);
            (share / sum, share % sum)
        })
        .collect();
    let given: i128 = parts.iter().map(|(floor, _)| *floor).sum();
    let mut order: Vec<usize> = (0..parts.len()).collect();
    // Largest remainder first; among equal ones the earlier part.
    order.sort_by(|a, b| parts[*b].1.cmp(&parts[*a].1).then(a.cmp(b)));
    for index in order
        .into_iter()
        .take(usize::try_from(total - given).unwrap_or(0))
    {
        parts[index].0 += 1;
    }
    parts
        .into_iter()
        .map(|(part, _)| Cents::try_from(part).unwrap_or(Cents::MAX))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rounding_is_half_away_from_zero_to_the_cent() {
        // 10 % of 0.05 is 0.005: half a cent, up.
        assert_eq!(scale(5, 100_000, 1_000_000), 1);
        assert_eq!(scale(4, 100_000, 1_000_000), 0);
        // 20 % of 12.34 is 2.468.
        assert_eq!(scale(1234, 200_000, 1_000_000), 247);
        assert_eq!(per_million(Decimal::new(125, 1)).expect("12.5"), 125_000);
        assert!(per_million(Decimal::new(1, 5)).is_err(), "five decimals");
        assert!(per_million(Decimal::from(101)).is_err());
    }

    #[test]
    fn a_split_adds_up_and_gives_leftover_cents_by_remainder() {
        assert_eq!(allocate(100, &[100, 100, 100]), [34, 33, 33]);
        assert_eq!(allocate(10, &[500, 300, 200]), [5, 3, 2]);
        assert_eq!(allocate(7, &[0, 0]), [0, 0]);
        assert_eq!(
            allocate(1_000, &[300, 200]),
            [300, 200],
            "cut to the weights"
        );
    }

    proptest! {
        #[test]
        fn a_split_is_exact_and_never_past_a_weight(
            weights in proptest::collection::vec(0i64..1_000_000, 1..40),
            fraction in 0u32..=100,
        ) {
            let sum: i64 = weights.iter().sum();
            let total = sum * i64::from(fraction) / 100;
            let parts = allocate(total, &weights);
            prop_assert_eq!(parts.iter().sum::<i64>(), total);
            for (part, weight) in parts.iter().zip(&weights) {
                prop_assert!(*part >= 0 && part <= weight);
            }
        }
    }
}
