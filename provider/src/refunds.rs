//! Refunds: money sent back through the provider. Each of the store's refunds is sent with its
//! own ID as the `Idempotency-Key` and in `metadata[refundId]`, and sent once per attempt, never
//! retried blindly: after an attempt whose answer was lost, the refund is looked for by that
//! metadata before it is sent again, so that even a provider that ignores `Idempotency-Key`
//! refunds once.

use hyper::Method;
use serde::Deserialize;
use shared::domain::ids::ProviderRefundId;
use shared::domain::provider_refund::ProviderRefund;
use shared::domain::refund::Refund;

use crate::{Provider, ProviderError};

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

    /// The provider's refunds that carry the store's `refund`'s `metadata[refundId]`, of its
    /// payment: none when the provider never made it; whether one is the refund's is for its
    /// caller to say ([`ProviderRefund::mismatch`]).
    pub async fn find_refund(&self, refund: &Refund) -> Result<Vec<ProviderRefund>, ProviderError> {
        let list: List = self
            .send(
                Method::GET,
                &format!("/v1/refunds?payment_intent={}&limit=100", refund.payment_id),
                None,
                &[],
            )
            .await?;
        Ok(list
            .data
            .into_iter()
            .filter(|made| made.metadata.refund_id.as_deref() == Some(refund.refund_id.as_str()))
            .collect())
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
