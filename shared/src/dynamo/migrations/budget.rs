//! A migration's pace, set by the capacity DynamoDB says it consumed: after each request the
//! run waits until what it has spent is within `--max-rcu` / `--max-wcu` per second since it
//! started, so a backfill cannot take the capacity the live store needs.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::ConsumedCapacity;

use crate::AppError;

/// Read and write units spent, and the most per second the run may average.
#[derive(Debug)]
pub struct Budget {
    max_read: Option<f64>,
    max_write: Option<f64>,
    started: Instant,
    spent: Mutex<Spent>,
}

/// Request units consumed so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    /// Read units consumed.
    pub read: f64,
    /// Write units consumed.
    pub write: f64,
}

impl Budget {
    /// A budget of at most `max_read` read and `max_write` write units a second (`None`: no limit).
    pub fn new(max_read: Option<f64>, max_write: Option<f64>) -> Self {
        Self {
            max_read,
            max_write,
            started: Instant::now(),
            spent: Mutex::new(Spent::default()),
        }
    }

    /// What has been spent so far.
    pub fn spent(&self) -> Spent {
        *self.spent.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How long since the budget started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Counts a read's consumed capacity, then waits as long as the budget asks.
    pub async fn read(&self, consumed: Option<&ConsumedCapacity>) -> Result<(), AppError> {
        let units = units(consumed)?;
        self.spend(Spent {
            read: units,
            write: 0.0,
        })
        .await;
        Ok(())
    }

    /// Counts a write's consumed capacity, then waits as long as the budget asks.
    pub async fn write(&self, consumed: Option<&ConsumedCapacity>) -> Result<(), AppError> {
        let units = units(consumed)?;
        self.spend(Spent {
            read: 0.0,
            write: units,
        })
        .await;
        Ok(())
    }

    /// Counts a conditional write: what it consumed when it was written (`Some`), or, refused by
    /// its condition (`None`), the write unit a refusal still costs and DynamoDB does not report
    /// (the items a migration writes are under 1 KB). Whether it was written.
    pub async fn conditional_write(
        &self,
        sent: Option<Option<ConsumedCapacity>>,
    ) -> Result<bool, AppError> {
        match sent {
            Some(consumed) => self.write(consumed.as_ref()).await.map(|()| true),
            None => {
                let refused = ConsumedCapacity::builder().capacity_units(1.0).build();
                self.write(Some(&refused)).await.map(|()| false)
            }
        }
    }

    async fn spend(&self, more: Spent) {
        let total = {
            let mut spent = self.spent.lock().unwrap_or_else(PoisonError::into_inner);
            spent.read += more.read;
            spent.write += more.write;
            *spent
        };
        let wait = pause(total, self.max_read, self.max_write, self.started.elapsed());
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
}

/// How long to wait so that `spent` averages at most the maxima per second at the end of it.
pub fn pause(
    spent: Spent,
    max_read: Option<f64>,
    max_write: Option<f64>,
    elapsed: Duration,
) -> Duration {
    let due = |units: f64, max: Option<f64>| max.filter(|m| *m > 0.0).map_or(0.0, |m| units / m);
    let due = due(spent.read, max_read).max(due(spent.write, max_write));
    // A pause past what any run could wait (a limit near zero) is held to a day: the run goes
    // on, slowly, rather than overflowing.
    Duration::try_from_secs_f64((due - elapsed.as_secs_f64()).max(0.0))
        .unwrap_or(MAX_PAUSE)
        .min(MAX_PAUSE)
}

/// The longest one pause lasts.
pub const MAX_PAUSE: Duration = Duration::from_secs(24 * 3600);

/// The units a request reports (asked for with `ReturnConsumedCapacity: TOTAL`). A request that
/// reports none cannot be paced, so it is an error rather than a zero.
fn units(consumed: Option<&ConsumedCapacity>) -> Result<f64, AppError> {
    consumed
        .and_then(ConsumedCapacity::capacity_units)
        .ok_or_else(|| AppError::internal("DynamoDB reported no consumed capacity to pace by"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_keeps_the_average_at_the_maximum() {
        let spent = Spent {
            read: 10.0,
            write: 100.0,
        };
        // 100 write units at 50 per second are due at 2 s; 1.5 s have passed.
        let wait = pause(spent, Some(1000.0), Some(50.0), Duration::from_millis(1500));
        assert_eq!(wait, Duration::from_millis(500));
        assert!(
            pause(spent, None, None, Duration::ZERO).is_zero(),
            "no limit, no pause"
        );
        assert!(pause(spent, Some(5.0), None, Duration::from_secs(2)).is_zero());
    }

    #[test]
    fn a_limit_near_zero_pauses_long_but_never_overflows() {
        let spent = Spent {
            read: 1.0,
            write: 0.0,
        };
        assert_eq!(pause(spent, Some(1e-30), None, Duration::ZERO), MAX_PAUSE);
        assert_eq!(
            pause(spent, Some(f64::MIN_POSITIVE), None, Duration::ZERO),
            MAX_PAUSE
        );
    }
}
