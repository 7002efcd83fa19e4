//! What requests consumed, added up as DynamoDB reports it: in all, on the table, on each global
//! secondary index. For the tools that show it (store-query, make dev's explorer); the store's
//! own requests ask for capacity only where they pace themselves (`migrations::Budget`).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::ConsumedCapacity;

/// The capacity one or more requests consumed, in all and by table and index.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize)]
pub struct Capacity {
    /// Capacity units in all.
    pub total: f64,
    /// Of which the table's.
    pub table: f64,
    /// Per global secondary index.
    pub indexes: BTreeMap<String, f64>,
}

impl Capacity {
    /// The sum of what `reported` says (a batch reports one entry per table).
    pub fn of<'a>(reported: impl IntoIterator<Item = &'a ConsumedCapacity>) -> Self {
        let mut sum = Capacity::default();
        for capacity in reported {
            sum.add(capacity);
        }
        sum
    }

    /// Adds what one answer reported.
    pub fn add(&mut self, reported: &ConsumedCapacity) {
        self.total += reported.capacity_units().unwrap_or(0.0);
        self.table += reported
            .table()
            .and_then(|t| t.capacity_units())
            .unwrap_or(0.0);
        for (index, units) in reported.global_secondary_indexes().into_iter().flatten() {
            *self.indexes.entry(index.clone()).or_default() +=
                units.capacity_units().unwrap_or(0.0);
        }
    }
}
