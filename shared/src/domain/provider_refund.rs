//! The provider's side of a refund: its refund as its answers and events describe it, where it
//! says that refund is, and what that does to the store's refund (the state machine's table,
//! [`RefundStatus::on_report`]). Above the store's refund (`refund`), which knows nothing of it.

use serde::Deserialize;

use crate::domain::ids::{PaymentId, ProviderRefundId};
use crate::domain::refund::{Refund, RefundMetadata, RefundStatus};

impl RefundStatus {
    /// What the provider's refund `status` means here: `succeeded`; `failed` or `canceled`;
    /// anything else (`pending`, `requires_action`) is under way.
    pub fn of_provider(status: &str) -> Self {
        ProviderRefundStatus::parse(status).settles_to()
    }

    /// What a provider's report that its refund is `reported` does to a refund of the store's
    /// that is `self`: THE table of the refund's state machine (docs/refunds.md shows it).
    /// Only forward: a refund under way settles; a SUCCEEDED one is REVERSED only by a
    /// failure of the same provider's refund (Stripe lets a succeeded refund become `failed`,
    /// never `canceled`, which is for a refund that never succeeded); nothing moves a FAILED
    /// or REVERSED one, nor a refund not sent yet (the payer settles that one).
    pub fn on_report(self, reported: ProviderRefundStatus) -> OnReport {
        use OnReport::{Leave, Reverse, Settle};
        use ProviderRefundStatus as P;
        use RefundStatus as S;
        match (self, reported) {
            (S::Pending, P::Succeeded) => Settle(S::Succeeded),
            (S::Pending, P::Failed | P::Canceled) => Settle(S::Failed),
            (S::Pending, P::Pending | P::RequiresAction) => Leave,
            (S::Succeeded, P::Failed) => Reverse,
            (S::Succeeded, P::Succeeded | P::Canceled | P::Pending | P::RequiresAction) => Leave,
            (S::Requested | S::Failed | S::Reversed, _) => Leave,
        }
    }
}

crate::listed! {
    /// Where the provider says one of its refunds is (its `status`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum ProviderRefundStatus as "the provider's refund status" {
        /// Under way.
        Pending = "pending",
        /// Waiting for the customer's action (some payment methods).
        RequiresAction = "requires_action",
        /// Paid back.
        Succeeded = "succeeded",
        /// Refused, or (after it succeeded) sent back by the customer's bank.
        Failed = "failed",
        /// Withdrawn before it succeeded.
        Canceled = "canceled",
    }
}

impl ProviderRefundStatus {
    /// The provider's word for it; one it has not documented yet is taken as under way.
    pub fn parse(status: &str) -> Self {
        status.parse().unwrap_or(Self::Pending)
    }

    /// Where a refund under way ends when the provider says this: SUCCEEDED, FAILED (failed
    /// or canceled), or still PENDING.
    pub fn settles_to(self) -> RefundStatus {
        match self {
            Self::Succeeded => RefundStatus::Succeeded,
            Self::Failed | Self::Canceled => RefundStatus::Failed,
            Self::Pending | Self::RequiresAction => RefundStatus::Pending,
        }
    }
}

/// What a provider's report does to the store's refund ([`RefundStatus::on_report`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnReport {
    /// It settles, to this status.
    Settle(RefundStatus),
    /// A SUCCEEDED refund failed after all: REVERSED, its money back with the order.
    Reverse,
    /// Nothing moves.
    Leave,
}

/// What the provider made of a refund: its ID, and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    /// The provider's refund (`None`: it refused to make one).
    pub provider_refund_id: Option<ProviderRefundId>,
    /// PENDING (under way), SUCCEEDED or FAILED.
    pub status: RefundStatus,
    /// Why it failed, in the provider's words.
    pub failure: Option<String>,
}

/// A refund as the provider describes it: in its answers (`POST /v1/refunds`, a refund
/// retrieved or listed) and in its events (`refund.updated`, `refund.failed`, a
/// `charge.refunded`'s list).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ProviderRefund {
    /// The provider's refund (`re_...`).
    pub id: ProviderRefundId,
    /// In the smallest unit.
    pub amount: i64,
    /// Lowercase ISO 4217.
    pub currency: String,
    /// The PaymentIntent it gives back from (absent for a refund made of a charge alone).
    #[serde(default)]
    pub payment_intent: Option<PaymentId>,
    /// `pending`, `requires_action`, `succeeded`, `failed` or `canceled`.
    pub status: String,
    /// Why it failed, when it did (`lost_or_stolen_card`, `expired_or_canceled_card`, ...).
    #[serde(default)]
    pub failure_reason: Option<String>,
    /// What the store put on it when it sent it: where its record is.
    #[serde(default)]
    pub metadata: RefundMetadata,
}

impl ProviderRefund {
    /// Where it is, as the store names it: SUCCEEDED, FAILED (failed or canceled) or PENDING.
    pub fn status(&self) -> RefundStatus {
        self.provider_status().settles_to()
    }

    /// Where it is, in the provider's words.
    pub fn provider_status(&self) -> ProviderRefundStatus {
        ProviderRefundStatus::parse(&self.status)
    }

    /// Why it failed, in the provider's words (`None` unless it did).
    pub fn failure(&self) -> Option<String> {
        (self.status() == RefundStatus::Failed).then(|| {
            self.failure_reason
                .clone()
                .unwrap_or_else(|| format!("the provider's refund is {}", self.status))
        })
    }

    /// What it means for the store's refund.
    pub fn settled(&self) -> Settled {
        Settled {
            provider_refund_id: Some(self.id.clone()),
            status: self.status(),
            failure: self.failure(),
        }
    }

    /// Why it is not the provider's side of `refund` (`None`: it is): another refund's ID once
    /// one is recorded, other metadata, or another amount, currency or PaymentIntent than the
    /// store sent. Metadata alone proves nothing: anyone with the account's key can put it on
    /// any refund.
    pub fn mismatch(&self, refund: &Refund) -> Option<String> {
        let ours = refund.refund_id.as_str();
        if let Some(recorded) = refund
            .provider_refund_id
            .as_ref()
            .filter(|id| **id != self.id)
        {
            return Some(format!(
                "refund {ours} is the provider's {recorded}, not {}",
                self.id
            ));
        }
        if self.metadata.refund_id.as_deref() != Some(ours) {
            return Some(format!("{} carries no metadata of refund {ours}", self.id));
        }
        if self.amount != refund.amount || !self.currency.eq_ignore_ascii_case(&refund.currency) {
            return Some(format!(
                "{} is of {} {}, and refund {ours} of {} {}",
                self.id, self.amount, self.currency, refund.amount, refund.currency
            ));
        }
        if self.payment_intent.as_ref() != Some(&refund.payment_id) {
            return Some(format!(
                "{} gives back from {}, and refund {ours} from {}",
                self.id,
                self.payment_intent
                    .as_ref()
                    .map_or("no PaymentIntent", |pi| pi.as_str()),
                refund.payment_id
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::{OrderId, RefundId};
    use crate::domain::refund::RefundKind;

    /// Every (state, provider status) pair, and what it does: the table docs/refunds.md shows.
    #[test]
    fn every_report_of_every_state_moves_only_forward() {
        use OnReport::{Leave, Reverse, Settle};
        use ProviderRefundStatus as P;
        use RefundStatus as S;
        let table = [
            (S::Requested, [Leave, Leave, Leave, Leave, Leave]),
            (
                S::Pending,
                [
                    Leave,
                    Leave,
                    Settle(S::Succeeded),
                    Settle(S::Failed),
                    Settle(S::Failed),
                ],
            ),
            (S::Succeeded, [Leave, Leave, Leave, Reverse, Leave]),
            (S::Failed, [Leave, Leave, Leave, Leave, Leave]),
            (S::Reversed, [Leave, Leave, Leave, Leave, Leave]),
        ];
        let columns = [
            P::Pending,
            P::RequiresAction,
            P::Succeeded,
            P::Failed,
            P::Canceled,
        ];
        assert_eq!(
            columns.len(),
            P::ALL.len(),
            "every provider status is a column"
        );
        assert_eq!(table.len(), S::ALL.len(), "every state is a row");
        for (state, row) in table {
            for (reported, expected) in columns.iter().zip(row) {
                assert_eq!(
                    state.on_report(*reported),
                    expected,
                    "{state} on {reported:?}"
                );
            }
        }
        // A canceled report never reverses a refund that succeeded: Stripe moves a succeeded
        // refund to failed only.
        assert_eq!(S::Succeeded.on_report(P::parse("canceled")), Leave);
        for status in P::ALL {
            assert_eq!(P::parse(status.as_str()), status);
        }
    }

    #[test]
    fn the_providers_refund_statuses_map_forward() {
        assert_eq!(
            RefundStatus::of_provider("succeeded"),
            RefundStatus::Succeeded
        );
        assert_eq!(RefundStatus::of_provider("canceled"), RefundStatus::Failed);
        assert_eq!(RefundStatus::of_provider("failed"), RefundStatus::Failed);
        assert_eq!(RefundStatus::of_provider("pending"), RefundStatus::Pending);
        assert_eq!(
            RefundStatus::of_provider("requires_action"),
            RefundStatus::Pending
        );
    }

    fn sent() -> Refund {
        Refund {
            status: RefundStatus::Pending,
            ..Refund::requested(
                RefundId::parse("rf_1").expect("id"),
                Some(OrderId::parse("o1").expect("id")),
                PaymentId::parse("pi_1").expect("id"),
                1500,
                "usd",
                RefundKind::Staff,
                "late".to_owned(),
            )
        }
    }

    fn made(json: serde_json::Value) -> ProviderRefund {
        let mut object = serde_json::json!({
            "id": "re_A", "amount": 1500, "currency": "usd", "payment_intent": "pi_1",
            "status": "succeeded",
            "metadata": {"refundId": "rf_1", "orderId": "o1", "paymentId": "pi_1"},
        });
        for (field, value) in json.as_object().expect("fields") {
            object[field] = value.clone();
        }
        serde_json::from_value(object).expect("a refund")
    }

    #[test]
    fn a_providers_refund_is_the_stores_only_when_all_it_sent_matches() {
        let refund = sent();
        assert_eq!(made(serde_json::json!({})).mismatch(&refund), None);
        assert_eq!(
            made(serde_json::json!({"currency": "USD"})).mismatch(&refund),
            None
        );
        let recorded = Refund {
            provider_refund_id: Some(ProviderRefundId::parse("re_A").expect("id")),
            ..sent()
        };
        assert_eq!(
            made(serde_json::json!({"id": "re_B"})).mismatch(&recorded),
            Some("refund rf_1 is the provider's re_A, not re_B".to_owned())
        );
        for other in [
            serde_json::json!({"amount": 1}),
            serde_json::json!({"currency": "eur"}),
            serde_json::json!({"payment_intent": "pi_2"}),
            serde_json::json!({"payment_intent": null}),
            serde_json::json!({"metadata": {"refundId": "rf_2"}}),
        ] {
            assert!(made(other.clone()).mismatch(&refund).is_some(), "{other}");
        }
    }

    #[test]
    fn a_providers_failure_is_its_reason_or_its_status() {
        let failed = made(serde_json::json!({"status": "canceled"}));
        assert_eq!(failed.status(), RefundStatus::Failed);
        assert_eq!(
            failed.failure().as_deref(),
            Some("the provider's refund is canceled")
        );
        let lost =
            made(serde_json::json!({"status": "failed", "failure_reason": "lost_or_stolen_card"}));
        assert_eq!(
            lost.settled().failure.as_deref(),
            Some("lost_or_stolen_card")
        );
        assert_eq!(made(serde_json::json!({})).failure(), None);
    }
}
