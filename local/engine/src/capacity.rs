//! What DynamoDB bills for each request: a meter that asks the engine for `ConsumedCapacity`
//! on every request a client sends and adds up what it reports, and DynamoDB's billing rules,
//! used where the engine reports nothing and to check the engine's figures.
//!
//! The rules (DynamoDB developer guide, "Read/write capacity mode" and "Transactions: capacity
//! management"): a read costs one unit per 4 KB, rounded up per item for GetItem and BatchGetItem
//! and over the whole result for a Query, half that when eventually consistent (GSI reads always
//! are); a write costs one unit per 1 KB of the larger of the item before and after, at least
//! one; an action in a transaction costs twice that (a ConditionCheck as a write of the item it
//! reads); each index an item enters, leaves or changes in costs one write of the projected item,
//! two when its index key changes (a delete and a put), never doubled by a transaction.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::types::ConsumedCapacity;
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::{
    AfterDeserializationInterceptorContextRef, BeforeTransmitInterceptorContextMut,
};
use aws_smithy_runtime_api::client::orchestrator::Metadata;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;

/// DynamoDB's billing rules, in request units (on demand) or capacity units (provisioned).
pub mod rules {
    /// One read of `bytes`: a unit per 4 KB begun, at least one; half for an eventually
    /// consistent read.
    pub fn read(bytes: usize, consistent: bool) -> f64 {
        let units = bytes.div_ceil(4096).max(1) as f64;
        if consistent { units } else { units / 2.0 }
    }

    /// A Query or Scan: its items' sizes added up, then rounded as one read.
    pub fn query(item_bytes: &[usize], consistent: bool) -> f64 {
        read(item_bytes.iter().sum(), consistent)
    }

    /// GetItem or BatchGetItem: each item rounded on its own.
    pub fn get(item_bytes: &[usize], consistent: bool) -> f64 {
        item_bytes
            .iter()
            .map(|bytes| read(*bytes, consistent))
            .sum()
    }

    /// One write: a unit per 1 KB begun of the larger of the item before and after (absent:
    /// `None`), at least one.
    pub fn write(before: Option<usize>, after: Option<usize>) -> f64 {
        before
            .unwrap_or(0)
            .max(after.unwrap_or(0))
            .div_ceil(1024)
            .max(1) as f64
    }

    /// The same write inside TransactWriteItems: prepared and committed, twice the units.
    pub fn transactional(units: f64) -> f64 {
        2.0 * units
    }

    /// What a write costs an index whose projection of the item was `before` and is `after`
    /// (absent when the item is not in the index): nothing when it is in neither, a put or a
    /// delete when it enters or leaves, one write when it stays under the same index key, a
    /// delete and a put when its index key changes.
    pub fn index_write(before: Option<usize>, after: Option<usize>, key_changed: bool) -> f64 {
        match (before, after) {
            (None, None) => 0.0,
            (Some(b), Some(a)) if key_changed => write(Some(b), None) + write(None, Some(a)),
            (b, a) => write(b, a),
        }
    }
}

/// The request units of one request, as the engine reported them.
#[derive(Debug, Clone, PartialEq)]
pub struct Consumed {
    pub operation: String,
    pub units: f64,
    /// Write units (else read units).
    pub write: bool,
}

/// Adds `ReturnConsumedCapacity: INDEXES` to every request of the client it is installed on
/// and records what each answer reports. A request whose answer reports nothing is recorded
/// in [`CapacityMeter::unreported`].
#[derive(Debug, Clone, Default)]
pub struct CapacityMeter {
    consumed: Arc<Mutex<Vec<Consumed>>>,
    unreported: Arc<Mutex<Vec<String>>>,
}

/// Read units and write units.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Units {
    pub read: f64,
    pub write: f64,
}

impl Units {
    pub fn plus(self, other: Units) -> Units {
        Units {
            read: self.read + other.read,
            write: self.write + other.write,
        }
    }

    pub fn times(self, n: f64) -> Units {
        Units {
            read: self.read * n,
            write: self.write * n,
        }
    }
}

impl CapacityMeter {
    /// What was recorded since the last call, and the operations that reported nothing.
    pub fn take(&self) -> (Vec<Consumed>, Vec<String>) {
        fn take<T>(v: &Mutex<Vec<T>>) -> Vec<T> {
            std::mem::take(&mut *v.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
        }
        (take(&self.consumed), take(&self.unreported))
    }

    /// The units recorded since the last call; an error naming the operations whose answers
    /// reported none (their cost would otherwise be silently left out).
    pub fn take_units(&self) -> Result<Units, String> {
        let (consumed, unreported) = self.take();
        if !unreported.is_empty() {
            return Err(format!(
                "the engine reported no consumed capacity for {unreported:?}"
            ));
        }
        Ok(consumed.iter().fold(Units::default(), |sum, c| {
            if c.write {
                sum.plus(Units {
                    read: 0.0,
                    write: c.units,
                })
            } else {
                sum.plus(Units {
                    read: c.units,
                    write: 0.0,
                })
            }
        }))
    }

    fn record(&self, operation: &str, write: bool, reported: &[&ConsumedCapacity]) {
        if reported.is_empty() {
            self.unreported
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(operation.to_owned());
            return;
        }
        let units = reported.iter().filter_map(|c| c.capacity_units()).sum();
        self.consumed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(Consumed {
                operation: operation.to_owned(),
                units,
                write,
            });
    }
}

impl Intercept for CapacityMeter {
    fn name(&self) -> &'static str {
        "CapacityMeter"
    }

    fn modify_before_signing(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        crate::answer::ask_for_capacity(context.request_mut())
    }

    fn read_after_deserialization(
        &self,
        context: &AfterDeserializationInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Ok(output) = context.output_or_error() else {
            return Ok(());
        };
        if let Some(answered) = crate::answer::Answered::of(output) {
            let operation = cfg.load::<Metadata>().map_or("unknown", Metadata::name);
            self.record(operation, answered.write, &answered.capacity);
        }
        Ok(())
    }
}

/// On-demand prices of one region, in US dollars per million request units.
#[derive(Debug, Clone, Copy)]
pub struct Prices {
    pub region: &'static str,
    pub per_million_reads: f64,
    pub per_million_writes: f64,
}

/// DynamoDB Standard table class, on demand, US East (N. Virginia), since the price cut of
/// 1 November 2024: $0.125 per million read request units, $0.625 per million write request
/// units.
pub const US_EAST_1: Prices = Prices {
    region: "us-east-1",
    per_million_reads: 0.125,
    per_million_writes: 0.625,
};

impl Prices {
    /// What `units` cost, in dollars.
    pub fn cost(&self, units: Units) -> f64 {
        units.read / 1e6 * self.per_million_reads + units.write / 1e6 * self.per_million_writes
    }
}

#[cfg(test)]
mod tests {
    use super::rules::*;
    use super::*;

    #[test]
    fn reads_round_up_per_4_kb_and_eventual_consistency_halves_them() {
        assert_eq!(read(0, true), 1.0, "an empty read still costs one unit");
        assert_eq!(read(1, false), 0.5);
        assert_eq!(read(4096, true), 1.0);
        assert_eq!(read(4097, true), 2.0);
        // The guide's example: a 3.5 KB item read eventually consistent is half a unit.
        assert_eq!(read(3584, false), 0.5);
        // A Query adds its items before rounding; GetItem/BatchGetItem round each item.
        assert_eq!(query(&[200; 25], false), 1.0, "5,000 B over 4 KB: 2 × ½");
        assert_eq!(get(&[200; 25], true), 25.0);
        assert_eq!(query(&[], false), 0.5, "a Query that finds nothing");
    }

    #[test]
    fn writes_round_up_per_kb_of_the_larger_image_and_transactions_double_them() {
        assert_eq!(write(None, Some(500)), 1.0);
        assert_eq!(write(None, Some(1024)), 1.0);
        assert_eq!(write(None, Some(1025)), 2.0);
        assert_eq!(
            write(Some(3000), Some(100)),
            3.0,
            "shrinking costs the old size"
        );
        assert_eq!(write(Some(700), None), 1.0, "a delete");
        assert_eq!(transactional(write(None, Some(1500))), 4.0);
    }

    #[test]
    fn an_index_costs_a_put_a_delete_one_write_or_both_when_its_key_changes() {
        assert_eq!(index_write(None, None, false), 0.0);
        assert_eq!(index_write(None, Some(300), false), 1.0, "enters");
        assert_eq!(index_write(Some(300), None, false), 1.0, "leaves");
        assert_eq!(
            index_write(Some(300), Some(320), false),
            1.0,
            "changes in place"
        );
        assert_eq!(
            index_write(Some(300), Some(320), true),
            2.0,
            "moves to another key"
        );
    }

    #[test]
    fn prices_turn_units_into_dollars() {
        let units = Units {
            read: 2_000_000.0,
            write: 1_000_000.0,
        };
        assert!((US_EAST_1.cost(units) - 0.875).abs() < 1e-9);
        assert_eq!(
            Units {
                read: 1.0,
                write: 2.0
            }
            .times(3.0)
            .plus(Units {
                read: 0.5,
                write: 0.0
            }),
            Units {
                read: 3.5,
                write: 6.0
            }
        );
    }
}
