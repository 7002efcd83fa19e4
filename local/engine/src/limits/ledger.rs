//! The limits' bookkeeping, given the time: each partition's units as a token bucket, and the
//! items an admitted transaction is still working on. Pure (the caller says what time it is),
//! so the tests hold it to DynamoDB's numbers without waiting.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::{Model, Refusals};

/// Where units are spent: the table's or an index's partition of one partition key value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Partition {
    /// The index (`GSI3`), or `None` for the table.
    pub(crate) index: Option<String>,
    /// The partition key's value, as the request's JSON spells it.
    pub(crate) key: String,
    /// Write units (or read units).
    pub(crate) write: bool,
}

impl Partition {
    /// The throttling reason DynamoDB gives when this partition is out of units:
    /// `TableWriteKeyRangeThroughputExceeded`, `IndexReadKeyRangeThroughputExceeded`, ...
    pub(crate) fn reason(&self) -> String {
        format!(
            "{}{}KeyRangeThroughputExceeded",
            if self.index.is_some() {
                "Index"
            } else {
                "Table"
            },
            if self.write { "Write" } else { "Read" }
        )
    }
}

/// Units one action of a request spends in one partition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Charge {
    pub(crate) partition: Partition,
    pub(crate) units: f64,
    /// Which action of the request (its place in a transaction or a batch; 0 otherwise).
    pub(crate) action: usize,
}

/// An item, by its table key (partition and sort key values as JSON).
pub(crate) type ItemKey = (String, String);

/// What the ledger says of a request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Served: its units are spent, and a transaction holds its items.
    Admitted,
    /// A partition it needs has fewer units left than it needs: the first such charge.
    Throttled(Charge),
    /// One of its items is held by a transaction still under way: that item's action.
    Conflict(usize),
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    units: f64,
    at: Instant,
}

/// The buckets and the items held.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    buckets: HashMap<Partition, Bucket>,
    held: HashMap<ItemKey, Instant>,
    /// The ClientRequestToken of each transaction admitted in the last ten minutes (as long as
    /// DynamoDB keeps one), and when it is done.
    tokens: HashMap<String, Instant>,
    refusals: Refusals,
}

/// How long DynamoDB answers a transaction's token from what the first request did.
const TOKEN_LIFE: Duration = Duration::from_secs(600);

impl Ledger {
    /// What it refused so far.
    pub(crate) fn refusals(&self) -> Refusals {
        self.refusals
    }

    /// When the transaction admitted with `token` is done, if one was in the last ten minutes:
    /// a request with its token is answered from it, not from the limits.
    pub(crate) fn token_done(&self, token: &str, now: Instant) -> Option<Instant> {
        (self.tokens.get(token))
            .filter(|done| now < **done + TOKEN_LIFE)
            .copied()
    }

    /// A transaction admitted with `token`, done at `done`.
    pub(crate) fn admitted_token(&mut self, token: String, done: Instant, now: Instant) {
        self.tokens.retain(|_, done| now < *done + TOKEN_LIFE);
        self.tokens.insert(token, done);
    }

    /// Decides a request at `now` ([`Ledger::decide`]), and counts it if refused.
    pub(crate) fn admit(
        &mut self,
        model: &Model,
        now: Instant,
        charges: &[Charge],
        items: &[(usize, ItemKey)],
        holds: bool,
    ) -> Verdict {
        let verdict = self.decide(model, now, charges, items, holds);
        match verdict {
            Verdict::Admitted => {}
            Verdict::Throttled(_) => self.refusals.throttled += 1,
            Verdict::Conflict(_) => self.refusals.conflicts += 1,
        }
        verdict
    }

    /// Refused if any of `items` is held by a transaction (for a transaction, or a write
    /// outside one), else refused if any partition lacks its units, else admitted, its units
    /// spent and, when `holds`, its items held for the model's service time.
    fn decide(
        &mut self,
        model: &Model,
        now: Instant,
        charges: &[Charge],
        items: &[(usize, ItemKey)],
        holds: bool,
    ) -> Verdict {
        self.held.retain(|_, until| *until > now);
        if let Some((action, _)) = items.iter().find(|(_, key)| self.held.contains_key(key)) {
            return Verdict::Conflict(*action);
        }
        let mut needed: HashMap<&Partition, f64> = HashMap::new();
        for charge in charges {
            *needed.entry(&charge.partition).or_default() += charge.units;
        }
        for charge in charges {
            let left = self.units_left(model, &charge.partition, now);
            if left + 1e-9 < needed[&charge.partition] {
                return Verdict::Throttled(charge.clone());
            }
        }
        for charge in charges {
            self.spend(model, &charge.partition, charge.units, now);
        }
        if holds {
            let until = now + model.service_time();
            for (_, key) in items {
                self.held.insert(key.clone(), until);
            }
        }
        Verdict::Admitted
    }

    /// Spends `units` in `partition` whatever is left (a Query's units beyond its first,
    /// known once it has answered): the bucket may go below zero, and refills from there.
    pub(crate) fn spend(&mut self, model: &Model, partition: &Partition, units: f64, now: Instant) {
        let left = self.units_left(model, partition, now);
        self.buckets.insert(
            partition.clone(),
            Bucket {
                units: left - units,
                at: now,
            },
        );
    }

    /// The units `partition` holds at `now`: full (one second of its rate) until first used,
    /// then refilled at its rate, never above full.
    pub(crate) fn units_left(&self, model: &Model, partition: &Partition, now: Instant) -> f64 {
        let rate = model.rate(partition.write);
        let full = rate * model.burst.as_secs_f64();
        match self.buckets.get(partition) {
            None => full,
            Some(bucket) => {
                let elapsed = now.saturating_duration_since(bucket.at);
                (bucket.units + rate * elapsed.as_secs_f64()).min(full)
            }
        }
    }
}

/// `Duration` scaled by a factor (never negative).
pub(crate) fn scaled(duration: Duration, factor: f64) -> Duration {
    Duration::from_secs_f64((duration.as_secs_f64() * factor).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn partition(key: &str, write: bool) -> Partition {
        Partition {
            index: None,
            key: key.to_owned(),
            write,
        }
    }

    fn charge(key: &str, write: bool, units: f64) -> Charge {
        Charge {
            partition: partition(key, write),
            units,
            action: 0,
        }
    }

    fn item(pk: &str) -> (usize, ItemKey) {
        (0, (pk.to_owned(), "S".to_owned()))
    }

    /// How many requests of `units` each are admitted at `now`, one after another.
    fn admitted_at(ledger: &mut Ledger, model: &Model, now: Instant, c: &Charge) -> usize {
        let mut n = 0;
        while ledger.admit(model, now, std::slice::from_ref(c), &[], false) == Verdict::Admitted {
            n += 1;
        }
        n
    }

    #[test]
    fn a_partition_takes_1000_write_units_a_second_and_3000_read_units() {
        let model = Model::DYNAMODB;
        let t0 = Instant::now();
        // How many of `units` each a full partition admits at once.
        let from_full = |write, units| {
            admitted_at(
                &mut Ledger::default(),
                &model,
                t0,
                &charge("A", write, units),
            )
        };
        // A 1 KB write is one unit: a full partition takes 1,000 at once, then none.
        assert_eq!(from_full(true, 1.0), 1000);
        // A transactional write costs two: half as many.
        assert_eq!(from_full(true, 2.0), 500);
        // Reads: 3,000 strongly consistent 4 KB reads, 6,000 eventually consistent.
        assert_eq!(from_full(false, 1.0), 3000);
        assert_eq!(from_full(false, 0.5), 6000);
        // Refilled at 1,000 a second: 100 more after 100 ms.
        let mut ledger = Ledger::default();
        let one = charge("A", true, 1.0);
        assert_eq!(admitted_at(&mut ledger, &model, t0, &one), 1000);
        let later = t0 + Duration::from_millis(100);
        assert_eq!(admitted_at(&mut ledger, &model, later, &one), 100);
        // Reads and writes and partitions are apart: while A's writes are spent, its reads
        // and B's writes are full.
        let read = charge("A", false, 1.0);
        assert_eq!(admitted_at(&mut ledger, &model, later, &read), 3000);
        let other = charge("B", true, 1.0);
        assert_eq!(admitted_at(&mut ledger, &model, later, &other), 1000);
    }

    #[test]
    fn a_partition_never_holds_more_than_a_second_of_units() {
        let model = Model::DYNAMODB;
        let t0 = Instant::now();
        let mut ledger = Ledger::default();
        let one = charge("A", true, 1.0);
        assert_eq!(admitted_at(&mut ledger, &model, t0, &one), 1000);
        let idle = t0 + Duration::from_secs(60);
        assert_eq!(admitted_at(&mut ledger, &model, idle, &one), 1000);
    }

    #[test]
    fn scaled_down_the_partition_takes_its_share_and_transactions_last_longer() {
        let model = Model::scaled(50.0);
        let t0 = Instant::now();
        let mut ledger = Ledger::default();
        assert_eq!(
            admitted_at(&mut ledger, &model, t0, &charge("A", true, 1.0)),
            20
        );
        assert_eq!(model.service_time(), Duration::from_millis(100));
    }

    #[test]
    fn a_request_is_refused_whole_when_one_partition_lacks_units() {
        let model = Model::scaled(1000.0);
        let t0 = Instant::now();
        let mut ledger = Ledger::default();
        let both = [charge("A", true, 1.0), charge("B", true, 1.0)];
        assert_eq!(
            ledger.admit(&model, t0, &both, &[], false),
            Verdict::Admitted
        );
        // A has nothing left (1 unit a second at this scale): B is not charged either.
        let verdict = ledger.admit(&model, t0, &both, &[], false);
        assert_eq!(verdict, Verdict::Throttled(both[0].clone()));
        let b = partition("B", true);
        assert!(ledger.units_left(&model, &b, t0).abs() < 1e-9);
        // Two charges in one partition add up: 2 units are more than a full bucket of 1.
        let mut ledger = Ledger::default();
        let twice = [charge("C", true, 1.0), charge("C", true, 1.0)];
        assert!(matches!(
            ledger.admit(&model, t0, &twice, &[], false),
            Verdict::Throttled(_)
        ));
    }

    #[test]
    fn a_transaction_holds_its_items_for_the_service_time() {
        let model = Model::DYNAMODB;
        let t0 = Instant::now();
        let mut ledger = Ledger::default();
        let c = [charge("A", true, 2.0)];
        assert_eq!(
            ledger.admit(&model, t0, &c, &[item("A")], true),
            Verdict::Admitted
        );
        // Another transaction on the item 1 ms later collides; one on another item does not.
        let soon = t0 + Duration::from_millis(1);
        assert_eq!(
            ledger.admit(&model, soon, &c, &[item("A")], true),
            Verdict::Conflict(0)
        );
        let other = [charge("B", true, 2.0)];
        assert_eq!(
            ledger.admit(&model, soon, &other, &[item("B")], true),
            Verdict::Admitted
        );
        // Once the service time has passed, the item is free.
        let after = t0 + model.service_time();
        assert_eq!(
            ledger.admit(&model, after, &c, &[item("A")], true),
            Verdict::Admitted
        );
        // A request that holds nothing (a plain write) is refused on a held item, holds none.
        let write = [charge("A", true, 1.0)];
        assert_eq!(
            ledger.admit(&model, after, &write, &[item("A")], false),
            Verdict::Conflict(0)
        );
    }

    #[test]
    fn a_query_may_spend_past_zero_and_the_partition_refills_from_there() {
        let model = Model::DYNAMODB;
        let t0 = Instant::now();
        let mut ledger = Ledger::default();
        let a = partition("A", false);
        ledger.spend(&model, &a, 3500.0, t0);
        assert!((ledger.units_left(&model, &a, t0) + 500.0).abs() < 1e-6);
        let read = charge("A", false, 1.0);
        let later = t0 + Duration::from_millis(200);
        assert_eq!(admitted_at(&mut ledger, &model, later, &read), 100);
    }
}
