//! What a client asks of a listing: how many items, from which cursor, and within what window.

use crate::AppError;
use crate::domain::time::Timestamp;

/// A page's size when the request names none.
pub const DEFAULT_LIMIT: usize = 25;
/// The largest page a listing serves.
pub const MAX_LIMIT: usize = 100;

/// Which page of a listing to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    /// How many items, at most.
    pub limit: usize,
    /// Opaque: a cursor a previous page of the same listing returned.
    pub cursor: Option<String>,
}

impl PageRequest {
    /// `limit` is 1–100 (25 when absent); `cursor` is one a previous page returned.
    pub fn parse(limit: Option<&str>, cursor: Option<&str>) -> Result<Self, AppError> {
        let limit = match limit {
            None => DEFAULT_LIMIT,
            Some(raw) => raw
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_LIMIT).contains(n))
                .ok_or_else(|| {
                    AppError::invalid(format!(
                        "limit must be a whole number from 1 to {MAX_LIMIT}"
                    ))
                })?,
        };
        Ok(Self {
            limit,
            cursor: cursor.map(str::to_owned),
        })
    }
}

/// One page of a listing, and the cursor of the next one (`None` on the last page).
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The page's items, in the listing's order.
    pub items: Vec<T>,
    /// Where the next page starts (`None`: this is the last).
    pub next_cursor: Option<String>,
}

/// Bounds on when an order was placed: `from` inclusive, `to` exclusive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlacedWindow {
    /// Placed at or after this (inclusive).
    pub from: Option<Timestamp>,
    /// Placed before this (exclusive).
    pub to: Option<Timestamp>,
}

impl PlacedWindow {
    /// The window `[from, to)`; a 400 when `to` is not after `from`.
    pub fn new(from: Option<Timestamp>, to: Option<Timestamp>) -> Result<Self, AppError> {
        if let (Some(from), Some(to)) = (from, to)
            && from >= to
        {
            return Err(AppError::invalid("from must be earlier than to"));
        }
        Ok(Self { from, to })
    }
}
