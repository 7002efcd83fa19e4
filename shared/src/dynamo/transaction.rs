//! One TransactWriteItems, built action by action with what each action is for, and read back
//! the same way: a cancelled transaction says, per action, whether its condition failed (with
//! the item it found, when the action asked for it), whether it collided with another
//! transaction, or why else. The only place that knows how DynamoDB spells a cancellation
//! reason, or that reasons come in the order of the actions.

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::builders::{DeleteBuilder, PutBuilder, UpdateBuilder};
use aws_sdk_dynamodb::types::{CancellationReason, TransactWriteItem};

use crate::AppError;
use crate::dynamo::codec::Item;
use crate::dynamo::store::{Store, built};

/// The most actions one TransactWriteItems may hold.
pub const MAX_ACTIONS: usize = 100;

/// A transaction being built: its actions, each tagged with a `P` saying what it is for.
#[derive(Debug, Clone)]
pub struct Transaction<P> {
    actions: Vec<TransactWriteItem>,
    purposes: Vec<P>,
}

/// What became of one action of a cancelled transaction.
#[derive(Debug, Clone, PartialEq)]
pub enum ActionOutcome {
    /// Not why the transaction was cancelled (DynamoDB's `None`): nothing of it was written.
    Unaffected,
    /// Its condition did not hold. The item as it stood, for an action that asked for it
    /// (`ReturnValuesOnConditionCheckFailure::AllOld`) on an item that exists; `None` otherwise.
    ConditionFailed(Option<Item>),
    /// Another transaction was working on the same item: worth another try.
    Conflict,
    /// The item's partition was out of capacity (DynamoDB's `ThrottlingError`): worth another
    /// try after a wait, like a conflict.
    Throttled,
    /// Anything else (throttling, a validation error, an item collection too large), by its
    /// DynamoDB code, for the log.
    Other(String),
}

/// A transaction that did not commit: every action's outcome, with what it was for.
#[derive(Debug, Clone)]
pub struct Cancelled<P> {
    outcomes: Vec<(P, ActionOutcome)>,
}

/// What sending a transaction came to.
#[derive(Debug, Clone)]
pub enum Outcome<P> {
    /// Every action applied.
    Committed,
    /// None applied: why each action was refused.
    Cancelled(Cancelled<P>),
}

/// Why a write made on a version it read did not happen on this attempt (a category on the
/// tree's version, a promotion on its own).
pub(crate) enum Attempt {
    /// What was read changed before the write: read it again.
    Changed,
    /// Another transaction held an item.
    Contended,
    /// Anything else, answered as it is.
    Failed(AppError),
}

impl From<AppError> for Attempt {
    fn from(err: AppError) -> Self {
        Attempt::Failed(err)
    }
}

impl Attempt {
    /// Whether another attempt may succeed.
    pub(crate) fn retried(&self) -> bool {
        matches!(self, Attempt::Changed | Attempt::Contended)
    }

    /// The error once the attempts are spent: `what` kept changing (a 409 to retry), or kept
    /// colliding (a 503).
    pub(crate) fn into_error(self, what: &str) -> AppError {
        match self {
            Attempt::Changed => AppError::concurrent_change(format!(
                "{what} kept changing under writes at once; retry"
            )),
            Attempt::Contended => {
                AppError::unavailable(format!("{what} kept colliding with other transactions"))
            }
            Attempt::Failed(err) => err,
        }
    }
}

impl<P> Default for Transaction<P> {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl<P> Transaction<P> {
    /// A transaction for up to `actions` actions.
    pub fn with_capacity(actions: usize) -> Self {
        Self {
            actions: Vec::with_capacity(actions),
            purposes: Vec::with_capacity(actions),
        }
    }

    /// Adds a Put, for `purpose`.
    pub fn put(&mut self, purpose: P, put: PutBuilder) -> Result<(), AppError> {
        let action = TransactWriteItem::builder()
            .put(built(put.build())?)
            .build();
        self.push(purpose, action);
        Ok(())
    }

    /// Adds an Update, for `purpose`.
    pub fn update(&mut self, purpose: P, update: UpdateBuilder) -> Result<(), AppError> {
        let action = TransactWriteItem::builder()
            .update(built(update.build())?)
            .build();
        self.push(purpose, action);
        Ok(())
    }

    /// Adds a Delete, for `purpose`.
    pub fn delete(&mut self, purpose: P, delete: DeleteBuilder) -> Result<(), AppError> {
        let action = TransactWriteItem::builder()
            .delete(built(delete.build())?)
            .build();
        self.push(purpose, action);
        Ok(())
    }

    fn push(&mut self, purpose: P, action: TransactWriteItem) {
        self.actions.push(action);
        self.purposes.push(purpose);
    }

    /// How many actions it holds.
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    /// Whether it holds no action.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }
}

impl ActionOutcome {
    fn of(reason: Option<&CancellationReason>) -> Self {
        let Some(reason) = reason else {
            return ActionOutcome::Unaffected;
        };
        match reason.code().unwrap_or("None") {
            "None" => ActionOutcome::Unaffected,
            "ConditionalCheckFailed" => ActionOutcome::ConditionFailed(
                reason.item().filter(|item| !item.is_empty()).cloned(),
            ),
            "TransactionConflict" => ActionOutcome::Conflict,
            "ThrottlingError" => ActionOutcome::Throttled,
            other => ActionOutcome::Other(other.to_owned()),
        }
    }

    /// DynamoDB's code for the outcome, for logs.
    pub fn code(&self) -> &str {
        match self {
            ActionOutcome::Unaffected => "None",
            ActionOutcome::ConditionFailed(_) => "ConditionalCheckFailed",
            ActionOutcome::Conflict => "TransactionConflict",
            ActionOutcome::Throttled => "ThrottlingError",
            ActionOutcome::Other(code) => code,
        }
    }
}

impl<P> Cancelled<P> {
    /// Every action with its outcome, in the order they were added.
    pub fn outcomes(&self) -> impl Iterator<Item = (&P, &ActionOutcome)> {
        self.outcomes
            .iter()
            .map(|(purpose, outcome)| (purpose, outcome))
    }

    /// The actions whose condition failed, with the item each found (when asked for).
    pub fn failed_conditions(&self) -> impl Iterator<Item = (&P, Option<&Item>)> {
        self.outcomes()
            .filter_map(|(purpose, outcome)| match outcome {
                ActionOutcome::ConditionFailed(stored) => Some((purpose, stored.as_ref())),
                _ => None,
            })
    }

    /// Whether an action for which `which` holds failed its condition.
    pub fn condition_failed(&self, which: impl Fn(&P) -> bool) -> bool {
        self.failed_conditions().any(|(purpose, _)| which(purpose))
    }

    /// Whether the cancellation was a collision with a concurrent transaction, or a partition
    /// out of capacity, at actions for which `which` holds only: nothing else collided or was
    /// throttled.
    pub fn collided_only_at(&self, which: impl Fn(&P) -> bool) -> bool {
        self.conflicted()
            && self.outcomes().all(|(purpose, outcome)| match outcome {
                ActionOutcome::Conflict | ActionOutcome::Throttled => which(purpose),
                _ => true,
            })
    }

    /// Whether the cancellation was (also) a collision with a concurrent transaction, or an
    /// item's partition out of capacity: either is worth another try after a wait.
    pub fn conflicted(&self) -> bool {
        self.outcomes.iter().any(|(_, outcome)| {
            matches!(outcome, ActionOutcome::Conflict | ActionOutcome::Throttled)
        })
    }

    /// A cancellation the caller cannot account for: a 500 naming every action's outcome.
    pub fn unexplained(&self, what: &str) -> AppError {
        let codes: Vec<&str> = self.outcomes.iter().map(|(_, o)| o.code()).collect();
        AppError::internal(format!("{what} transaction cancelled: {codes:?}"))
    }
}

impl Store {
    /// Sends `transaction` as ONE TransactWriteItems. A cancellation is an outcome, not an
    /// error; any other failure is the request's [`AppError`].
    pub async fn send<P>(&self, transaction: Transaction<P>) -> Result<Outcome<P>, AppError> {
        let Transaction { actions, purposes } = transaction;
        let sent = self
            .client
            .transact_write_items()
            .set_transact_items(Some(actions))
            .send()
            .await;
        let err = match sent {
            Ok(_) => return Ok(Outcome::Committed),
            Err(err) => err,
        };
        let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) =
            err.as_service_error()
        else {
            return Err(err.into());
        };
        let reasons = cancelled.cancellation_reasons();
        let outcomes = purposes
            .into_iter()
            .enumerate()
            .map(|(i, purpose)| (purpose, ActionOutcome::of(reasons.get(i))))
            .collect();
        Ok(Outcome::Cancelled(Cancelled { outcomes }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn reason(code: &str, item: Option<Item>) -> CancellationReason {
        CancellationReason::builder()
            .code(code)
            .set_item(item)
            .build()
    }

    #[test]
    fn each_reason_code_becomes_its_outcome() {
        let stored = Item::from([("stock".to_owned(), AttributeValue::N("1".into()))]);
        assert_eq!(ActionOutcome::of(None), ActionOutcome::Unaffected);
        assert_eq!(
            ActionOutcome::of(Some(&reason("None", None))),
            ActionOutcome::Unaffected
        );
        assert_eq!(
            ActionOutcome::of(Some(&reason(
                "ConditionalCheckFailed",
                Some(stored.clone())
            ))),
            ActionOutcome::ConditionFailed(Some(stored))
        );
        // An item that does not exist comes back empty: no item.
        assert_eq!(
            ActionOutcome::of(Some(&reason("ConditionalCheckFailed", Some(Item::new())))),
            ActionOutcome::ConditionFailed(None)
        );
        assert_eq!(
            ActionOutcome::of(Some(&reason("TransactionConflict", None))),
            ActionOutcome::Conflict
        );
        assert_eq!(
            ActionOutcome::of(Some(&reason("ThrottlingError", None))),
            ActionOutcome::Throttled
        );
        assert_eq!(
            ActionOutcome::of(Some(&reason("ItemCollectionSizeLimitExceeded", None))),
            ActionOutcome::Other("ItemCollectionSizeLimitExceeded".into())
        );
    }

    #[test]
    fn a_throttled_action_is_worth_another_try_like_a_conflict() {
        let cancelled = Cancelled {
            outcomes: vec![
                ("listing", ActionOutcome::Unaffected),
                ("stock", ActionOutcome::Throttled),
            ],
        };
        assert!(cancelled.conflicted());
        let other = Cancelled {
            outcomes: vec![("stock", ActionOutcome::Other("ValidationError".into()))],
        };
        assert!(!other.conflicted());
    }

    #[test]
    fn a_collision_only_at_some_actions_is_told_from_one_elsewhere_or_a_throttle() {
        let at = |outcomes: Vec<(&'static str, ActionOutcome)>| Cancelled { outcomes };
        let shard = |p: &&str| p.starts_with("shard");
        let only_shards = at(vec![
            ("shard-3", ActionOutcome::Conflict),
            ("listing", ActionOutcome::Unaffected),
            ("shard-5", ActionOutcome::Conflict),
        ]);
        assert!(only_shards.collided_only_at(shard));
        let also_the_cart = at(vec![
            ("shard-3", ActionOutcome::Conflict),
            ("cart", ActionOutcome::Conflict),
        ]);
        assert!(!also_the_cart.collided_only_at(shard));
        let throttled = at(vec![
            ("shard-3", ActionOutcome::Conflict),
            ("listing", ActionOutcome::Throttled),
        ]);
        assert!(!throttled.collided_only_at(shard));
        let shard_throttled = at(vec![
            ("shard-3", ActionOutcome::Throttled),
            ("listing", ActionOutcome::Unaffected),
        ]);
        assert!(shard_throttled.collided_only_at(shard));
        let no_collision = at(vec![("shard-3", ActionOutcome::ConditionFailed(None))]);
        assert!(!no_collision.collided_only_at(shard));
    }

    #[test]
    fn a_cancellation_is_read_by_purpose_not_by_position() {
        let cancelled = Cancelled {
            outcomes: vec![
                ("stock", ActionOutcome::Unaffected),
                ("listing", ActionOutcome::ConditionFailed(None)),
                ("record", ActionOutcome::Conflict),
            ],
        };
        assert!(cancelled.condition_failed(|p| *p == "listing"));
        assert!(!cancelled.condition_failed(|p| *p == "stock"));
        assert!(cancelled.conflicted());
        let failed: Vec<_> = cancelled.failed_conditions().map(|(p, _)| *p).collect();
        assert_eq!(failed, ["listing"]);
        let err = cancelled.unexplained("test");
        let logged = std::error::Error::source(&err).map(ToString::to_string);
        assert_eq!(
            logged.as_deref(),
            Some(
                r#"test transaction cancelled: ["None", "ConditionalCheckFailed", "TransactionConflict"]"#
            )
        );
    }
}
