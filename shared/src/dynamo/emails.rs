//! The customer's emails as the store keeps them: one record per event (`customer_email`),
//! claimed before the email is sent and finished with its outcome, so that an event delivered
//! twice is emailed once; and the two reads that say whom to write to.

use std::time::Duration;

use crate::domain::customer::CustomerProfile;
use crate::domain::email::{CustomerEmail, EmailState};
use crate::domain::event::{EventId, EventType};
use crate::domain::ids::{CustomerId, OrderId};
use crate::domain::time::Timestamp;
use crate::dynamo::entities::customer_email;
use crate::dynamo::errors::unless_condition_failed;
use crate::dynamo::store::epoch_seconds;
use crate::{AppError, Store};

/// How long an email's record is kept: longer than EventBridge retries a delivery (24 hours)
/// and SQS keeps a message (4 days), so a redelivery always finds it. A replay from the
/// archive is another matter: the rule that feeds the emails matches no replayed event.
pub const EMAIL_RECORD_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// What a claim of an event's email found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The email is this sender's to send, claimed at this time.
    Claimed(Timestamp),
    /// Another delivery dealt with it already: here is how.
    Done(CustomerEmail),
    /// Another sender claimed it and may be sending it now.
    Busy(CustomerEmail),
}

impl Store {
    /// Claims the email of `event` for this sender: its record put SENDING where there is none
    /// (or one whose time is up, or whose sender's claim is older than `lease`: it died
    /// sending). Otherwise the record found (one consistent GetItem).
    pub async fn claim_email(
        &self,
        event: &EventId,
        kind: EventType,
        lease: Duration,
    ) -> Result<Claim, AppError> {
        let now = Timestamp::now();
        let epoch = epoch_seconds();
        let claimed = CustomerEmail {
            event_id: event.clone(),
            kind,
            state: EmailState::Sending,
            claimed_at: now,
            message_id: None,
            reason: None,
        };
        let lapsed = Timestamp::from_datetime(
            now.as_datetime() - chrono::Duration::from_std(lease).unwrap_or_default(),
        );
        let item = customer_email::to_item(&claimed, epoch + EMAIL_RECORD_TTL.as_secs());
        let sent = customer_email::CLAIM
            .put(&self.table, item)
            .new_expired_or(
                &customer_email::EXPIRES_AT,
                epoch,
                "#state = :sending AND #claimedAt < :lapsed",
            )
            .value(":sending", &customer_email::STATE, &EmailState::Sending)
            .value(":lapsed", &customer_email::CLAIMED_AT, &lapsed)
            .request(&self.client)?
            .send()
            .await;
        if unless_condition_failed(sent)?.is_some() {
            return Ok(Claim::Claimed(now));
        }
        let found = self
            .get_consistent(customer_email::key(event))
            .await?
            .map(customer_email::from_item)
            .transpose()?;
        Ok(match found {
            Some(email) if email.state == EmailState::Sending => Claim::Busy(email),
            Some(email) => Claim::Done(email),
            // Gone between the two requests (TTL): another delivery will claim it afresh.
            None => Claim::Busy(claimed),
        })
    }

    /// The outcome of `event`'s email recorded (`message_id` once sent, `reason` when not), on
    /// the condition that the claim made `claimed_at` is still the record's. Whether it was.
    pub async fn finish_email(
        &self,
        event: &EventId,
        claimed_at: &Timestamp,
        state: EmailState,
        detail: &str,
    ) -> Result<bool, AppError> {
        let mut change = customer_email::FINISH
            .on(&self.table, customer_email::key(event))
            .set(&customer_email::STATE, &state)
            .condition("#claimedAt = :mine")
            .value(":mine", &customer_email::CLAIMED_AT, claimed_at);
        change = match state {
            EmailState::Sent => change.set(&customer_email::MESSAGE_ID, &detail.to_owned()),
            _ => change.set(&customer_email::REASON, &detail.to_owned()),
        };
        let sent = change.request(&self.client)?.send().await;
        Ok(unless_condition_failed(sent)?.is_some())
    }

    /// The claim made `claimed_at` given up (the email was not sent and may be tried again at
    /// once), if it is still the record's.
    pub async fn release_email(
        &self,
        event: &EventId,
        claimed_at: &Timestamp,
    ) -> Result<(), AppError> {
        let sent = customer_email::RELEASE
            .delete(&self.table, customer_email::key(event))
            .condition("#claimedAt = :mine")
            .value(":mine", &customer_email::CLAIMED_AT, claimed_at)
            .request(&self.client)?
            .send()
            .await;
        unless_condition_failed(sent)?;
        Ok(())
    }

    /// The profile of the customer to write to (one GetItem): `None` when they have none.
    pub async fn addressee(
        &self,
        customer: &CustomerId,
    ) -> Result<Option<CustomerProfile>, AppError> {
        self.get_customer(customer).await
    }

    /// Whose order `order` is (its header, one consistent GetItem): the store's own work, for
    /// a subscriber that must know whom an order's refund is for.
    pub async fn customer_of_order(&self, order: &OrderId) -> Result<Option<CustomerId>, AppError> {
        Ok(self
            .read_header(order)
            .await?
            .map(|order| order.customer_id))
    }
}
