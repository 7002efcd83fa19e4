//! The customer's emails, the store's first subscriber to its own events: one email per event
//! of the kinds customers hear of ([`EventType::emails_customer`]), whatever number of times
//! the event arrives. Each is claimed before it is sent and its outcome kept until `expiresAt`,
//! keyed by the event's ID.

use crate::domain::event::{EventId, EventType};
use crate::domain::time::Timestamp;

impl EventType {
    /// Whether the customer is emailed about it: what changes their order. An order placed
    /// (its lines and total) or cancelled; each of its fulfilments shipped (what it carries,
    /// and its tracking), its tracking corrected, delivered; lines cancelled; a return approved
    /// or declined; a refund paid back.
    pub fn emails_customer(self) -> bool {
        matches!(
            self,
            EventType::Placed
                | EventType::Cancelled
                | EventType::FulfilmentShipped
                | EventType::TrackingUpdated
                | EventType::FulfilmentDelivered
                | EventType::CancellationRecorded
                | EventType::ReturnApproved
                | EventType::ReturnDeclined
                | EventType::RefundSucceeded
        )
    }
}

crate::listed! {
    /// Where the email of one event stands.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum EmailState {
        /// Claimed by a sender, which is sending it now (or died doing so: its claim ends).
        Sending,
        /// Sent: the mail service took it.
        Sent,
        /// Not sent: the customer has no email address (or no profile).
        NoAddress,
        /// Not sent: the mail service refused it for good (an address it will not deliver to).
        Refused,
    }
}

impl EmailState {
    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            EmailState::Sending => "SENDING",
            EmailState::Sent => "SENT",
            EmailState::NoAddress => "NO_ADDRESS",
            EmailState::Refused => "REFUSED",
        }
    }
}

impl std::fmt::Display for EmailState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for EmailState {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        EmailState::ALL
            .into_iter()
            .find(|state| state.as_str() == s)
            .ok_or_else(|| format!("{s:?} is no email state"))
    }
}

/// One event's email, as its record keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerEmail {
    /// The event it tells of: its key.
    pub event_id: EventId,
    /// What kind of event.
    pub kind: EventType,
    /// Where it stands.
    pub state: EmailState,
    /// When its sender claimed it.
    pub claimed_at: Timestamp,
    /// The mail service's ID for it (SENT).
    pub message_id: Option<String>,
    /// Why it was not sent (NO_ADDRESS, REFUSED).
    pub reason: Option<String>,
}
