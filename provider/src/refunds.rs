//! Refunds: money sent back through the provider. Each of the store's refunds is sent with its
//! own ID as the `Idempotency-Key` and in `metadata[refundId]`, and sent once per attempt, never
//! retried blindly: after an attempt whose answer was lost, the refund is looked for by that
//! metadata before it is sent again, so that even a provider that ignores `Idempotency-Key`
//! refunds once.

use std::collections::HashMap;

use hyper::Method;
use serde::Deserialize;
use shared::domain::ids::ProviderRefundId;
use shared::domain::refund::{Refund, RefundStatus, Settled};

use crate::{Provider, ProviderError};

/// A refund, as far as the store reads it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ProviderRefund {
    /// Its ID (`re_...`).
    pub id: ProviderRefundId,
    /// In the smallest unit.
    pub amount: i64,
    /// `pending`, `requires_action`, `succeeded`, `failed` or `canceled`.
    pub status: String,
    /// Why it failed, when it did (`lost_or_stolen_card`, ...).
    #[serde(default)]
    pub failure_reason: Option<String>,
    /// What the store put on it: `refundId`, `orderId`, `paymentId`.
    #[serde(default)]
    pub metadata: HashMap<String, String>,
}

impl ProviderRefund {
    /// What it means for the store's refund.
    pub fn settled(&self) -> Settled {
        let status = RefundStatus::of_provider(&self.status);
        Settled {
            provider_refund_id: Some(self.id.clone()),
            status,
            failure: (status == RefundStatus::Failed).then(|| {
                self.failure_reason
                    .clone()
                    .unwrap_or_else(|| format!("the provider's refund is {}", self.status))
            }),
        }
    }
}

#[derive(Deserialize)]
struct List {
    data: Vec<ProviderRefund>,
}

impl Provider {
    /// `refund` sent: `POST /v1/refunds` of its payment and amount, its ID as the
    /// `Idempotency-Key` and in the metadata. One attempt, never retried here
    /// ([`Provider::find_refund`] first, after an attempt whose answer was lost).
    pub async fn create_refund(&self, refund: &Refund) -> Result<ProviderRefund, ProviderError> {
        let amount = refund.amount.to_string();
        let mut fields = vec![
            ("payment_intent", refund.payment_id.as_str()),
            ("amount", amount.as_str()),
            ("metadata[refundId]", refund.refund_id.as_str()),
            ("metadata[paymentId]", refund.payment_id.as_str()),
        ];
        if let Some(order) = &refund.order_id {
            fields.push(("metadata[orderId]", order.as_str()));
        }
        self.send_once("/v1/refunds", refund.refund_id.as_str(), &fields)
            .await
    }

    /// The provider's refund of the store's `refund`, if it made one: its payment's refunds,
    /// the one whose `metadata[refundId]` is the refund's.
    pub async fn find_refund(
        &self,
        refund: &Refund,
    ) -> Result<Option<ProviderRefund>, ProviderError> {
        let list: List = self
            .send(
                Method::GET,
                &format!("/v1/refunds?payment_intent={}&limit=100", refund.payment_id),
                None,
                &[],
            )
            .await?;
        Ok(list.data.into_iter().find(|made| {
            made.metadata.get("refundId").map(String::as_str) == Some(refund.refund_id.as_str())
        }))
    }

    /// The provider's refund `id`, as it stands now.
    pub async fn retrieve_refund(
        &self,
        id: &ProviderRefundId,
    ) -> Result<ProviderRefund, ProviderError> {
        self.send(Method::GET, &format!("/v1/refunds/{id}"), None, &[])
            .await
    }
}
