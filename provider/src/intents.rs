//! PaymentIntents: what the store asks the customer to pay for an order. Checkout creates one
//! per order, for the amount it computed, with the order and the customer in its metadata and an
//! `Idempotency-Key` derived from the order; a retry answers with it again.

use hyper::Method;
use serde::Deserialize;
use shared::domain::checkout::Currency;
use shared::domain::ids::{CustomerId, OrderId, PaymentId};

use crate::{Provider, ProviderError};

/// A PaymentIntent, as far as the store reads it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PaymentIntent {
    /// Its ID (`pi_...`): the order stores it, and the webhook matches payments by it.
    pub id: PaymentId,
    /// What the customer's browser confirms it with (never logged).
    pub client_secret: String,
    /// In the currency's smallest unit.
    pub amount: i64,
    /// Lowercase ISO 4217.
    pub currency: String,
    /// `requires_payment_method`, `succeeded`, `canceled`, ...
    pub status: String,
}

/// The `Idempotency-Key` of the PaymentIntent for `order`: the same for every attempt, so the
/// provider answers a retried create with the first one's PaymentIntent.
pub fn idempotency_key(order: &OrderId) -> String {
    format!("payment-intent-{order}")
}

impl Provider {
    /// A PaymentIntent for `order` of `customer`: `amount` (smallest unit) in `currency`, by card,
    /// captured when confirmed, `metadata[orderId]` and `metadata[customerId]` set.
    pub async fn create_payment_intent(
        &self,
        order: &OrderId,
        customer: &CustomerId,
        amount: i64,
        currency: &Currency,
    ) -> Result<PaymentIntent, ProviderError> {
        let amount = amount.to_string();
        self.send(
            Method::POST,
            "/v1/payment_intents",
            Some(&idempotency_key(order)),
            &[
                ("amount", amount.as_str()),
                ("currency", currency.as_str()),
                ("capture_method", "automatic"),
                ("payment_method_types[]", "card"),
                ("metadata[orderId]", order.as_str()),
                ("metadata[customerId]", customer.as_str()),
            ],
        )
        .await
    }

    /// `id` canceled, so that nobody can pay it any more (a hold that ended). One the provider
    /// has canceled already is answered as it stands.
    pub async fn cancel_payment_intent(
        &self,
        id: &PaymentId,
    ) -> Result<PaymentIntent, ProviderError> {
        let canceled = self
            .send(
                Method::POST,
                &format!("/v1/payment_intents/{id}/cancel"),
                Some(&format!("cancel-{id}")),
                &[],
            )
            .await;
        match canceled {
            // Canceled already (a retried run, a cancel that was answered but lost): as it is.
            Err(ProviderError::Refused { status: 400, .. }) => {
                let now = self.retrieve_payment_intent(id).await?;
                if now.status == "canceled" {
                    Ok(now)
                } else {
                    canceled
                }
            }
            other => other,
        }
    }

    /// The PaymentIntent `id`, as the provider holds it now.
    pub async fn retrieve_payment_intent(
        &self,
        id: &PaymentId,
    ) -> Result<PaymentIntent, ProviderError> {
        self.send(Method::GET, &format!("/v1/payment_intents/{id}"), None, &[])
            .await
    }
}
