//! Customers: a profile's name and email as validated input, and the order statistics the
//! profile carries.

use serde::Serialize;

use crate::AppError;
use crate::domain::address::Address;
use crate::domain::ids::CustomerId;
use crate::domain::money::Money;
use crate::domain::time::Timestamp;

/// A customer's profile. Its name and address are parsed types: a client's are checked when
/// given ([`Customer::new`]); what the table holds is read as stored (the source design's code
/// wrote whatever it was given), and nothing outside this crate builds one unchecked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    /// Who the customer is: their partition's key.
    pub customer_id: CustomerId,
    pub(crate) name: CustomerName,
    pub(crate) email: EmailAddress,
    /// Where their orders go unless checkout says otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) address: Option<Address>,
}

/// The longest name accepted.
pub const MAX_NAME_CHARS: usize = crate::domain::text::MAX_NAME_CHARS;

impl Customer {
    /// A customer from what a client sent: the name as [`CustomerName::parse`] takes it, the
    /// email as [`EmailAddress::parse`] does. (The same rules, as patterns, are in
    /// `api/openapi.yaml`.)
    pub fn new(customer_id: CustomerId, name: &str, email: &str) -> Result<Self, AppError> {
        Ok(Self {
            customer_id,
            name: CustomerName::parse(name)?,
            email: EmailAddress::parse(email)?,
            address: None,
        })
    }

    /// With `address` kept on the profile (none: no address).
    pub fn with_address(self, address: Option<Address>) -> Self {
        Self { address, ..self }
    }

    /// Where their orders go unless checkout says otherwise.
    pub fn address(&self) -> Option<&Address> {
        self.address.as_ref()
    }

    /// Their name, as given.
    pub fn name(&self) -> &CustomerName {
        &self.name
    }

    /// Their email address, as given.
    pub fn email(&self) -> &EmailAddress {
        &self.email
    }
}

/// A customer's name: trimmed, 1 to [`MAX_NAME_CHARS`] characters, no control characters
/// ([`crate::domain::text::name`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct CustomerName(String);

impl CustomerName {
    /// A name a client gave.
    pub fn parse(text: &str) -> Result<Self, AppError> {
        crate::domain::text::name(text).map(Self)
    }

    /// A name as the table holds it.
    pub(crate) fn stored(text: String) -> Self {
        Self(text)
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for CustomerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A customer's email address: one mail can be sent to ([`plausible_email`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct EmailAddress(String);

impl EmailAddress {
    /// An address a client gave.
    pub fn parse(text: &str) -> Result<Self, AppError> {
        match plausible_email(text) {
            true => Ok(Self(text.to_owned())),
            false => Err(AppError::invalid(
                "email must be an address such as ana@example.com",
            )),
        }
    }

    /// An address as the table holds it.
    pub(crate) fn stored(text: String) -> Self {
        Self(text)
    }

    /// The address.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One `@`; a local part of 1–64 visible ASCII characters other than `@()<>,;:[]\"`; a domain
/// of at most 253 characters in at least two dot-separated labels of 1–63 ASCII letters, digits
/// and inner hyphens (an internationalised domain is written in its xn-- form); 254 in all.
/// What mail can actually be sent to, without pretending to implement RFC 5322.
fn plausible_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let local_ok = (1..=64).contains(&local.len())
        && local.bytes().all(|c| {
            c.is_ascii_graphic()
                && !matches!(
                    c,
                    b'@' | b'('
                        | b')'
                        | b','
                        | b':'
                        | b';'
                        | b'<'
                        | b'>'
                        | b'['
                        | b']'
                        | b'\\'
                        | b'"'
                )
        });
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = domain.len() <= 253
        && labels.len() >= 2
        && labels.iter().all(|label| {
            (1..=63).contains(&label.len())
                && label
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || c == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        });
    email.len() <= 254 && local_ok && domain_ok
}

/// A customer's order statistics, kept on the profile by the stream consumer. A profile the
/// consumer has not reached yet (or one the source design's boto3 code wrote) has none: zero orders.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderStats {
    /// How many of their orders count (PLACED, SHIPPED or DELIVERED).
    pub order_count: u64,
    /// What those orders came to.
    pub total_spent: Money,
    /// When the latest of them was placed.
    pub last_order_at: Option<Timestamp>,
}

/// The profile as `GET /customers/{customerId}` shows it: one flat object, the customer's
/// fields then the statistics', each named as its domain type names it. Derived, not copied: a
/// field added to [`Customer`] or [`OrderStats`] is in the answer, and the contract's schema
/// (`CustomerProfile`, `additionalProperties: false`, every field required) fails the tests
/// until it names it too. (`flatten` costs nothing here: serde buffers flattened fields when it
/// reads them, never when it writes them.)
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CustomerProfile {
    /// Who the customer is.
    #[serde(flatten)]
    pub customer: Customer,
    /// Their order statistics, kept by the stream consumer.
    #[serde(flatten)]
    pub stats: OrderStats,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn customers_need_a_name_and_a_plausible_email() {
        let id = || CustomerId::parse("c1").expect("id");
        let ok = Customer::new(id(), "  Ana Torres ", "ana@example.com").expect("valid");
        assert_eq!(ok.name().as_str(), "Ana Torres");
        assert!(Customer::new(id(), &"n".repeat(200), "a@b.co").is_ok());
        assert!(Customer::new(id(), "José Müller", "jose@mail.example.de").is_ok());
        assert!(Customer::new(id(), "Ana", "ana+shop@xn--mller-kva.example").is_ok());
        for (name, email) in [
            ("", "ana@example.com"),
            ("   ", "ana@example.com"),
            (&"n".repeat(201) as &str, "ana@example.com"),
            ("Ana\u{7}", "ana@example.com"),
            ("Ana", ""),
            ("Ana", "ana"),
            ("Ana", "ana@"),
            ("Ana", "@example.com"),
            ("Ana", "ana@example"),
            ("Ana", "ana@@example.com"),
            ("Ana", "a na@example.com"),
            ("Ana", "ana@exa mple.com"),
            ("Ana", "ana@-example.com"),
            ("Ana", "ana@example..com"),
            // Counted before trimming, as the contract's maxLength counts.
            (&format!(" {}", "n".repeat(200)) as &str, "ana@example.com"),
            ("Ana", " ana@example.com"),
            ("Ana", "ana@müller.example"),
        ] {
            assert!(
                Customer::new(id(), name, email).is_err(),
                "{name:?} {email:?}"
            );
        }
    }
}
