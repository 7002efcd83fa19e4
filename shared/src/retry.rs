//! The one retry helper: bounded attempts, exponential backoff with full jitter. Every path
//! that retries goes through [`retry`] and says what it retries on.

use std::future::Future;
use std::time::Duration;

/// How often and how patiently to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// Attempts in all, the first included (at least one is always made).
    pub attempts: u32,
    /// The ceiling of the first wait; each further wait's ceiling doubles.
    pub base: Duration,
    /// No wait is longer than this.
    pub cap: Duration,
}

impl Backoff {
    /// For a DynamoDB transaction cancelled by a concurrent one: six attempts, waits drawn
    /// from up to 10, 20, 40, 80 and 160 ms (at most ~310 ms in all, well inside an API
    /// Gateway request's 30 s).
    pub const TRANSACTION: Backoff = Backoff {
        attempts: 6,
        base: Duration::from_millis(10),
        cap: Duration::from_millis(500),
    };

    /// For an operator's batch job (`store-migrate`) that DynamoDB throttles or fails: ten
    /// attempts, waits drawn from up to 100 ms, doubling, at most 10 s each (~40 s in all):
    /// a backfill waits for capacity rather than give up, and nothing is written twice since
    /// each of its writes is conditional.
    pub const OPERATOR: Backoff = Backoff {
        attempts: 10,
        base: Duration::from_millis(100),
        cap: Duration::from_secs(10),
    };

    /// The longest wait before retry number `retry` (0 before the second attempt).
    pub fn ceiling(&self, retry: u32) -> Duration {
        self.base
            .checked_mul(1u32.checked_shl(retry).unwrap_or(u32::MAX))
            .unwrap_or(self.cap)
            .min(self.cap)
    }

    /// "Full jitter": a wait drawn uniformly from zero to the ceiling, so that clients that
    /// collided once do not collide again in lockstep.
    pub fn delay(&self, retry: u32) -> Duration {
        let ceiling = self.ceiling(retry);
        // A failed draw only costs the jitter, not the retry.
        let draw = getrandom::u64().unwrap_or(u64::MAX / 2);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(if nanos == 0 { 0 } else { draw % (nanos + 1) })
    }
}

/// Runs `attempt` (given the attempt's number, from 0) until it succeeds, fails with an error
/// `retry_on` does not accept, or `backoff.attempts` have been made; then the last result.
pub async fn retry<T, E, Fut>(
    backoff: &Backoff,
    retry_on: impl Fn(&E) -> bool,
    attempt: impl FnMut(u32) -> Fut,
) -> Result<T, E>
where
    Fut: Future<Output = Result<T, E>>,
{
    let when = |err: &E| {
        if retry_on(err) {
            Again::AfterWait
        } else {
            Again::Never
        }
    };
    retry_when(backoff, when, attempt).await
}

/// Whether, and when, a failed attempt is made again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Again {
    /// Not: the failure is the answer.
    Never,
    /// After the backoff's wait.
    AfterWait,
    /// At once: the next attempt works on other items than the one that collided (another
    /// stock shard), so waiting for that one to be free buys nothing.
    AtOnce,
}

/// [`retry`], each failure saying through `when` whether it is tried again and when. Retries
/// after a wait are at most `backoff.attempts - 1`, and so are retries at once, counted apart:
/// a retry at once takes nothing from the waits a later collision may need, and once the
/// retries at once are spent, a failure that asks for one waits instead.
pub async fn retry_when<T, E, Fut>(
    backoff: &Backoff,
    when: impl Fn(&E) -> Again,
    mut attempt: impl FnMut(u32) -> Fut,
) -> Result<T, E>
where
    Fut: Future<Output = Result<T, E>>,
{
    let (mut number, mut waited, mut at_once) = (0, 0, 0);
    loop {
        let result = attempt(number).await;
        let again = match &result {
            Err(err) => when(err),
            Ok(_) => Again::Never,
        };
        match again {
            Again::AtOnce if at_once + 1 < backoff.attempts => at_once += 1,
            Again::AtOnce | Again::AfterWait if waited + 1 < backoff.attempts => {
                tokio::time::sleep(backoff.delay(waited)).await;
                waited += 1;
            }
            _ => return result,
        }
        number += 1;
    }
}

/// Why an attempt that reads, decides and writes on the condition that what it read is
/// unchanged did not finish: what it read changed meanwhile (read again), or it failed.
#[derive(Debug)]
pub enum Attempt {
    /// What it read changed meanwhile: read again.
    Changed,
    /// It failed: the answer.
    Failed(crate::AppError),
}

impl From<crate::AppError> for Attempt {
    fn from(err: crate::AppError) -> Self {
        Attempt::Failed(err)
    }
}

/// Runs `attempt` again, with [`Backoff::TRANSACTION`], while what it read keeps changing; a
/// 409 (`AppError::concurrent_change`, saying `gave_up`) once the attempts are spent.
pub async fn while_changed<T, Fut>(
    gave_up: &str,
    attempt: impl FnMut(u32) -> Fut,
) -> Result<T, crate::AppError>
where
    Fut: Future<Output = Result<T, Attempt>>,
{
    retry(
        &Backoff::TRANSACTION,
        |failed: &Attempt| matches!(failed, Attempt::Changed),
        attempt,
    )
    .await
    .map_err(|failed| match failed {
        Attempt::Changed => crate::AppError::concurrent_change(gave_up.to_owned()),
        Attempt::Failed(err) => err,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    const QUICK: Backoff = Backoff {
        attempts: 4,
        base: Duration::from_micros(100),
        cap: Duration::from_micros(250),
    };

    #[test]
    fn ceilings_double_up_to_the_cap() {
        let ceilings: Vec<_> = (0..5).map(|r| QUICK.ceiling(r).as_micros()).collect();
        assert_eq!(ceilings, [100, 200, 250, 250, 250]);
        assert_eq!(Backoff::TRANSACTION.ceiling(40), Duration::from_millis(500));
    }

    #[test]
    fn delays_are_jittered_within_their_ceiling() {
        let delays: Vec<Duration> = (0..200).map(|_| QUICK.delay(1)).collect();
        assert!(delays.iter().all(|d| *d <= Duration::from_micros(200)));
        let distinct: std::collections::HashSet<_> = delays.iter().collect();
        assert!(distinct.len() > 100, "not jittered: {distinct:?}");
    }

    #[derive(Debug, PartialEq)]
    enum Failure {
        Transient,
        Fatal,
    }

    #[tokio::test]
    async fn retries_only_what_the_caller_names_and_only_so_often() {
        let transient = |e: &Failure| *e == Failure::Transient;
        let calls = AtomicU32::new(0);
        let count = || calls.fetch_add(1, Ordering::SeqCst);

        let result: Result<(), Failure> = retry(&QUICK, transient, |_| async {
            count();
            Err(Failure::Transient)
        })
        .await;
        assert_eq!(
            (result, calls.swap(0, Ordering::SeqCst)),
            (Err(Failure::Transient), 4)
        );

        let result: Result<(), Failure> = retry(&QUICK, transient, |_| async {
            count();
            Err(Failure::Fatal)
        })
        .await;
        assert_eq!(
            (result, calls.swap(0, Ordering::SeqCst)),
            (Err(Failure::Fatal), 1)
        );

        let result = retry(&QUICK, transient, |number| async move {
            count();
            if number < 2 {
                Err(Failure::Transient)
            } else {
                Ok(number)
            }
        })
        .await;
        assert_eq!((result, calls.load(Ordering::SeqCst)), (Ok(2), 3));
    }

    /// Attempt `number`, counted: transient three times, then fatal.
    async fn three_then_fatal(calls: &AtomicU32, number: u32) -> Result<(), Failure> {
        calls.fetch_add(1, Ordering::SeqCst);
        Err(if number < 3 {
            Failure::Transient
        } else {
            Failure::Fatal
        })
    }

    #[tokio::test]
    async fn a_retry_at_once_waits_for_nothing_and_has_its_own_count() {
        // Three failures asking for a retry at once, then one that is the answer.
        let slow = Backoff {
            attempts: 4,
            base: Duration::from_secs(60),
            cap: Duration::from_secs(60),
        };
        let start = std::time::Instant::now();
        let calls = AtomicU32::new(0);
        let counted = &calls;
        let when = |e: &Failure| match e {
            Failure::Transient => Again::AtOnce,
            Failure::Fatal => Again::Never,
        };
        let result: Result<(), Failure> =
            retry_when(&slow, when, |number| three_then_fatal(counted, number)).await;
        assert_eq!(result, Err(Failure::Fatal));
        assert_eq!(calls.swap(0, Ordering::SeqCst), 4);
        // One wait of the backoff's would be a minute.
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no backoff was waited"
        );

        // Retries at once leave the waits whole: 3 at once, then 3 after waits, 7 in all.
        let when = |e: &Failure| match e {
            Failure::Transient => Again::AtOnce,
            Failure::Fatal => Again::AfterWait,
        };
        let result: Result<(), Failure> =
            retry_when(&QUICK, when, |number| three_then_fatal(counted, number)).await;
        assert_eq!(result, Err(Failure::Fatal));
        assert_eq!(calls.swap(0, Ordering::SeqCst), 7);

        // Once the retries at once are spent, the next ones wait: 4 + 3 in all.
        let result: Result<(), Failure> = retry_when(
            &QUICK,
            |_| Again::AtOnce,
            |_| async move {
                counted.fetch_add(1, Ordering::SeqCst);
                Err(Failure::Transient)
            },
        )
        .await;
        assert_eq!(result, Err(Failure::Transient));
        assert_eq!(calls.load(Ordering::SeqCst), 7);
    }
}
