//! What a client asks of a listing: how many items, from which cursor, and within what window.

use crate::AppError;
use crate::domain::time::Timestamp;

pub const DEFAULT_LIMIT: usize = 25;
pub const MAX_LIMIT: usize = 100;

/// Which page of a listing to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
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
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

/// Bounds on when an order was placed: `from` inclusive, `to` exclusive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlacedWindow {
    pub from: Option<Timestamp>,
    pub to: Option<Timestamp>,
}

impl PlacedWindow {
    pub fn new(from: Option<Timestamp>, to: Option<Timestamp>) -> Result<Self, AppError> {
        if let (Some(from), Some(to)) = (from, to)
            && from >= to
        {
            return Err(AppError::invalid("from must be earlier than to"));
        }
        Ok(Self { from, to })
    }
}
