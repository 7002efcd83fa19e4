//! `make checkout-load`'s money at make dev's localstripe: holds paid there (its own webhook
//! places them), and at the end each PaymentIntent's refunds as localstripe holds them, to hold
//! against the order's ledger.

use local_engine::provider::{LOCAL_API_KEY, form_post, request};
use local_engine::runtime_api::Error;

/// make dev's localstripe, on the run's `PAYMENT_PORT`.
#[derive(Debug, Clone)]
pub(crate) struct Provider {
    base: String,
}

/// One refund as localstripe holds it: its ID and amount in cents.
pub(crate) type Made = (String, i64);

impl Provider {
    /// localstripe on `port` of this machine.
    pub(crate) fn on(port: u16) -> Self {
        Self {
            base: format!("http://127.0.0.1:{port}"),
        }
    }

    /// The customer pays `intent` with a card that succeeds: its payment method set, then
    /// confirmed; localstripe then sends its own signed webhook. On a blocking thread: the
    /// exchange is plain blocking HTTP.
    pub(crate) async fn pay(&self, intent: &str) -> Result<(), Error> {
        let base = self.base.clone();
        let intent = intent.to_owned();
        tokio::task::spawn_blocking(move || {
            let path = format!("/v1/payment_intents/{intent}");
            let card = [("payment_method", "pm_card_visa")];
            let (status, body) = form_post(&base, &path, Some(LOCAL_API_KEY), &card)?;
            if status != 200 {
                return Err(format!("{path}: {status} {body}").into());
            }
            let confirm = format!("{path}/confirm");
            let (status, body) = form_post(&base, &confirm, Some(LOCAL_API_KEY), &[])?;
            if status != 200 || body["status"] != "succeeded" {
                return Err(format!("{confirm}: {status} {body}").into());
            }
            Ok(())
        })
        .await?
    }

    /// `intent`'s refunds as localstripe holds them.
    pub(crate) fn refunds(&self, intent: &str) -> Result<Vec<Made>, Error> {
        let path = format!("/v1/refunds?payment_intent={intent}&limit=100");
        let (status, body) = request(&self.base, "GET", &path, Some(LOCAL_API_KEY), &[])?;
        if status != 200 {
            return Err(format!("{path}: {status} {body}").into());
        }
        Ok(body["data"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|made| {
                (
                    made["id"].as_str().unwrap_or_default().to_owned(),
                    made["amount"].as_i64().unwrap_or(-1),
                )
            })
            .collect())
    }
}
