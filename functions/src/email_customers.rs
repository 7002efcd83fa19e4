//! The customer's emails: the store's first subscriber to its own bus. A rule sends
//! `order.placed`, `order.shipped` and `refund.succeeded` to a queue; each message here is one
//! event in EventBridge's envelope, emailed to its customer through SES once, however often it
//! arrives: the email's record (`EMAIL#<eventId>`) is claimed before it is sent and keeps its
//! outcome. A customer with no address gets none. A message that cannot be dealt with now (the
//! store or the mail service not answering, another sender busy with the same event) is
//! reported failed: SQS hands it over again, and after five tries it goes to the dead-letter
//! queue.

mod compose;

use std::time::Duration;

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent, SqsMessage};
use serde::Deserialize;
use shared::Store;
use shared::domain::email::EmailState;
use shared::domain::error::BoxError;
use shared::domain::event::{EventType, StoreEvent};
use shared::domain::ids::CustomerId;
use shared::dynamo::client::{Environment, timeouts};
use shared::dynamo::emails::Claim;
use shared::metrics::{self, Metric};

pub use compose::Email;

/// How long a sender's claim on an email holds: past it, the email is taken to be unsent (its
/// sender died sending) and the next delivery sends it. Shorter than the queue's visibility
/// timeout (90 s), longer than a send takes.
pub const CLAIM_LEASE: Duration = Duration::from_secs(60);

/// What the subscriber needs, built once per cold start.
#[derive(Debug, Clone)]
pub struct Mailer {
    /// The store: the emails' records and the customers' addresses.
    pub store: Store,
    /// The mail service.
    pub ses: aws_sdk_sesv2::Client,
    /// Who the emails are from (`EMAIL_SENDER`, an address SES has verified).
    pub sender: String,
}

impl Mailer {
    /// From the Lambda environment: `EMAIL_SENDER`; the mail service's client from the
    /// execution role's credentials, its endpoint from `AWS_ENDPOINT_URL_SESV2` when set.
    pub fn from_env(store: Store) -> Result<Self, BoxError> {
        let sender = std::env::var("EMAIL_SENDER")
            .ok()
            .filter(|v| v.contains('@'))
            .ok_or("environment variable EMAIL_SENDER must be set to an email address")?;
        let environment = Environment::of_process()?;
        let ses = shared::service_client!(
            aws_sdk_sesv2,
            &environment,
            timeouts(),
            "AWS_ENDPOINT_URL_SESV2"
        );
        Ok(Self { store, ses, sender })
    }
}

/// An event as the bus delivers it: EventBridge's envelope around the store's event.
#[derive(Debug, Deserialize)]
struct Envelope {
    detail: StoreEvent,
}

/// What became of one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handled {
    /// Emailed now.
    Sent,
    /// Dealt with before (sent, or not to be): a redelivery.
    Duplicate,
    /// Not sent, for good, and why.
    NotSent(String),
    /// No email for this kind of event.
    Ignored,
}

/// One batch of the queue: each message's event emailed once; those that could not be dealt
/// with now reported failed.
pub async fn handle(mailer: &Mailer, event: SqsEvent, _budget: Duration) -> SqsBatchResponse {
    let mut response = SqsBatchResponse::default();
    for message in &event.records {
        if let Err(why) = handle_message(mailer, message).await {
            tracing::warn!(message_id = ?message.message_id, error = %why, "email not dealt with; the queue hands it over again");
            let mut failure = BatchItemFailure::default();
            failure.item_identifier = message.message_id.clone().unwrap_or_default();
            response.batch_item_failures.push(failure);
        }
    }
    response
}

/// One message: its event read, and emailed unless that was done before.
pub async fn handle_message(mailer: &Mailer, message: &SqsMessage) -> Result<Handled, String> {
    let body = message.body.as_deref().unwrap_or_default();
    let envelope: Envelope = serde_json::from_str(body)
        .map_err(|err| format!("the message is not one of the store's events: {err}"))?;
    let event = envelope.detail;
    if !event.kind.emails_customer() {
        return Ok(Handled::Ignored);
    }
    let store = &mailer.store;
    let claimed_at = match store
        .claim_email(&event.event_id, event.kind, CLAIM_LEASE)
        .await
        .map_err(|err| err.with_causes())?
    {
        Claim::Claimed(at) => at,
        Claim::Done(_) => {
            metrics::count(Metric::EmailsDuplicate, 1);
            return Ok(Handled::Duplicate);
        }
        Claim::Busy(_) => return Err(format!("another sender is sending {}", event.event_id)),
    };
    let sent = send(mailer, &event).await;
    let (state, detail) = match &sent {
        Ok(Ok(message_id)) => (EmailState::Sent, message_id.clone()),
        Ok(Err((state, why))) => (*state, why.clone()),
        Err(why) => {
            // Not sent: the claim goes, so that the next delivery sends it at once.
            if let Err(err) = store.release_email(&event.event_id, &claimed_at).await {
                tracing::warn!(error = %err.with_causes(), "the email's claim stays until it lapses");
            }
            return Err(why.clone());
        }
    };
    store
        .finish_email(&event.event_id, &claimed_at, state, &detail)
        .await
        .map_err(|err| err.with_causes())?;
    Ok(match state {
        EmailState::Sent => {
            metrics::count(Metric::EmailsSent, 1);
            Handled::Sent
        }
        EmailState::Refused => {
            metrics::count(Metric::EmailsRefused, 1);
            tracing::error!(event_id = %event.event_id, reason = %detail, "the mail service refused the email");
            Handled::NotSent(detail)
        }
        _ => {
            metrics::count(Metric::EmailsWithoutAddress, 1);
            tracing::info!(event_id = %event.event_id, reason = %detail, "no email sent");
            Handled::NotSent(detail)
        }
    })
}

/// `event`'s email sent to its customer: the mail service's message ID; or, for good, why not
/// (`NoAddress`, `Refused`); or (`Err`) why not yet.
async fn send(
    mailer: &Mailer,
    event: &StoreEvent,
) -> Result<Result<String, (EmailState, String)>, String> {
    let store = &mailer.store;
    let customer = match customer_of(store, event).await? {
        Some(customer) => customer,
        None => {
            return Ok(Err((
                EmailState::NoAddress,
                "the event names no customer".into(),
            )));
        }
    };
    let profile = store
        .addressee(&customer)
        .await
        .map_err(|err| err.with_causes())?;
    let Some(address) = profile
        .map(|p| p.customer.email().clone())
        .filter(|email| !email.as_str().trim().is_empty())
    else {
        return Ok(Err((
            EmailState::NoAddress,
            format!("customer {customer} has no email address"),
        )));
    };
    let email = compose::email(event, store.currency().as_str())
        .ok_or_else(|| format!("{} carries too little to write about", event.event_id))?;
    compose::send(&mailer.ses, &mailer.sender, address.as_str(), &email).await
}

/// Whose event it is: an order's names its customer; a refund's is its order's customer's.
async fn customer_of(store: &Store, event: &StoreEvent) -> Result<Option<CustomerId>, String> {
    if let Some(customer) = &event.customer_id {
        return Ok(Some(customer.clone()));
    }
    match (&event.order_id, event.kind) {
        (Some(order), EventType::RefundSucceeded) => store
            .customer_of_order(order)
            .await
            .map_err(|err| err.with_causes()),
        _ => Ok(None),
    }
}
