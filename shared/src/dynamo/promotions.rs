//! Promotions: staff's write of one, its code claimed in the same transaction, and every
//! promotion read by one Query of the `PROMOTIONS` partition (what the price of a cart and
//! staff's listing read).

use crate::AppError;
use crate::domain::promotions::{MAX_PROMOTIONS, PromotionRule};
use crate::dynamo::entities::{promotion, promotion_code};
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::Store;
use crate::dynamo::transaction::{Attempt, Outcome, Transaction};
use crate::retry::{Backoff, retry};

/// What each action of a promotion's write is for.
#[derive(Debug, PartialEq, Eq)]
enum Action {
    Promotion,
    Claim,
    Release,
}

impl Store {
    /// Every promotion and its version, by ID: one Query of the promotions' keys (strongly
    /// consistent when `consistent`); eventually consistent, this process's copy when it read
    /// them less than a second ago ([`crate::dynamo::recent`]).
    pub(crate) async fn promotions(
        &self,
        consistent: bool,
    ) -> Result<Vec<(PromotionRule, u64)>, AppError> {
        if !consistent && let Some(promotions) = self.recent.promotions() {
            return Ok(promotions);
        }
        let items = KeyQuery::on(Index::Table, promotion::PK.to_owned())
            .begins_with(promotion::SK_PREFIX)
            .read_all(self, consistent)
            .await?;
        let mut promotions = Vec::with_capacity(items.len());
        for item in items {
            promotions.push(promotion::from_item(item)?);
        }
        self.recent.read_promotions(&promotions);
        Ok(promotions)
    }

    /// Creates or replaces `rule`, on the version read, claiming its code and releasing the one
    /// it gives up in the same transaction; whether it is new. A code another promotion holds
    /// is a 409 `code-taken`; a store runs at most [`MAX_PROMOTIONS`] (a 409 `cap-reached`).
    pub async fn put_promotion(&self, rule: &PromotionRule) -> Result<bool, AppError> {
        let put = retry(&Backoff::TRANSACTION, Attempt::retried, |_| {
            self.try_put_promotion(rule)
        })
        .await;
        self.recent.forget_promotions();
        put.map_err(|err| err.into_error("the promotion"))
    }

    async fn try_put_promotion(&self, rule: &PromotionRule) -> Result<bool, Attempt> {
        let all = self.promotions(true).await?;
        let current = all
            .iter()
            .find(|(r, _)| r.promotion_id == rule.promotion_id);
        if current.is_none() && all.len() >= MAX_PROMOTIONS {
            return Err(AppError::CapReached(format!(
                "a store runs at most {MAX_PROMOTIONS} promotions: replace one"
            ))
            .into());
        }
        if let Some(code) = &rule.code
            && all
                .iter()
                .any(|(r, _)| r.code.as_ref() == Some(code) && r.promotion_id != rule.promotion_id)
        {
            return Err(AppError::CodeTaken(code.to_string()).into());
        }
        let version = current.map_or(0, |(_, v)| *v);
        let mut transaction = Transaction::with_capacity(3);
        let put = promotion::PUT.put(&self.table, promotion::to_item(rule, version + 1));
        let put = match current {
            None => put.only_new(),
            Some(_) => {
                put.condition("#version = :read")
                    .value(":read", &promotion::VERSION, &version)
            }
        };
        transaction.put(Action::Promotion, put.build()?)?;
        let id = &rule.promotion_id;
        if let Some(code) = &rule.code {
            let claim = promotion_code::CLAIM
                .put(&self.table, promotion_code::to_item(code, id))
                .condition("attribute_not_exists(PK) OR #promotionId = :id")
                .value(":id", &promotion_code::PROMOTION_ID, id);
            transaction.put(Action::Claim, claim.build()?)?;
        }
        let given_up = current
            .and_then(|(r, _)| r.code.as_ref())
            .filter(|old| rule.code.as_ref() != Some(*old));
        if let Some(old) = given_up {
            let release = promotion_code::RELEASE
                .delete(&self.table, promotion_code::key(old))
                .condition("#promotionId = :id")
                .value(":id", &promotion_code::PROMOTION_ID, id);
            transaction.delete(Action::Release, release.build()?)?;
        }
        match self.send(transaction).await? {
            Outcome::Committed => Ok(current.is_none()),
            Outcome::Cancelled(c) if c.conflicted() => Err(Attempt::Contended),
            Outcome::Cancelled(c) if c.condition_failed(|a| *a == Action::Claim) => {
                let code = rule.code.as_ref().map(ToString::to_string);
                Err(AppError::CodeTaken(code.unwrap_or_default()).into())
            }
            Outcome::Cancelled(c) if c.condition_failed(|a| *a != Action::Claim) => {
                Err(Attempt::Changed)
            }
            Outcome::Cancelled(c) => Err(Attempt::Failed(c.unexplained("promotion"))),
        }
    }
}
