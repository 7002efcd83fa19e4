//! Who is asking, and what they may do. The authorizer (API Gateway's JWT authorizer, or
//! `make dev`'s) authenticates; these rules authorize, in every function, so that a route
//! deployed without the authorizer still leaks nothing.
//!
//! A customer is the token's `sub`, which is their customerId. Staff are members of the
//! `staff` group, or holders of the `store/admin` scope whose token comes from one of the known
//! machine clients (an external provider may put any scope a user asks for into a user's token:
//! the scope alone is not enough). A customer may read and
//! replace their own profile, list and place their own orders, read their own orders and their
//! items, and cancel their own order while it is PLACED; everything else is staff's.

use sha2::{Digest, Sha256};

use crate::AppError;
use crate::domain::ids::CustomerId;
use crate::domain::status::OrderStatus;

/// The group whose members run the store.
pub const STAFF_GROUP: &str = "staff";
/// The scope that makes a machine client staff.
pub const ADMIN_SCOPE: &str = "store/admin";

/// The caller, as the authorizer vouched for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    subject: String,
    /// `Some` when the subject is a valid customer ID.
    customer: Option<CustomerId>,
    staff: bool,
}

/// Whoever calls a storefront route, which has no authorizer: no subject, no customer, not
/// staff. They see what customers see.
pub static ANONYMOUS: Caller = Caller {
    subject: String::new(),
    customer: None,
    staff: false,
};

impl Caller {
    /// A caller from the token's subject, its groups and its scopes; `known_machine_client`:
    /// the token was issued to one of the machine clients trusted with the admin scope.
    pub fn new<'a>(
        subject: &str,
        groups: impl IntoIterator<Item = &'a str>,
        scopes: impl IntoIterator<Item = &'a str>,
        known_machine_client: bool,
    ) -> Self {
        let staff = groups.into_iter().any(|g| g == STAFF_GROUP)
            || (known_machine_client && scopes.into_iter().any(|s| s == ADMIN_SCOPE));
        Self {
            subject: subject.to_owned(),
            customer: CustomerId::parse(subject).ok(),
            staff,
        }
    }

    /// The token's subject, as the authorizer passed it.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// Whether the caller is staff (the `staff` group, or a known machine client's admin scope).
    pub fn is_staff(&self) -> bool {
        self.staff
    }

    /// Whether the caller is `customer`: the same subject.
    fn is(&self, customer: &CustomerId) -> bool {
        self.customer.as_ref() == Some(customer)
    }

    /// Customer `id`'s profile and orders are theirs and staff's; anyone else is Forbidden
    /// (the path already names the customer, so there is nothing to hide).
    pub fn check_customer(&self, id: &CustomerId) -> Result<(), AppError> {
        if self.staff || self.is(id) {
            Ok(())
        } else {
            Err(AppError::Forbidden(format!(
                "only customer {id} and staff may do this"
            )))
        }
    }

    /// Whether the caller may see an order owned by `owner` (`None`: an order without a header,
    /// written by the source design's boto3 code, whose owner is not known here — staff only). A caller
    /// who may not is told the order does not exist, as for a missing one.
    pub fn may_see_order(&self, owner: Option<&CustomerId>) -> bool {
        self.staff || owner.is_some_and(|owner| self.is(owner))
    }

    /// Staff-only operations: Forbidden for everyone else.
    pub fn check_staff(&self, what: &str) -> Result<(), AppError> {
        if self.staff {
            Ok(())
        } else {
            Err(AppError::Forbidden(format!("only staff may {what}")))
        }
    }

    /// The owner of an order may cancel it; shipping and delivering are staff's.
    pub fn check_status_change(&self, next: OrderStatus) -> Result<(), AppError> {
        if self.staff || next == OrderStatus::Cancelled {
            Ok(())
        } else {
            Err(AppError::Forbidden(format!(
                "only staff may mark an order {next}"
            )))
        }
    }

    /// What binds a pagination cursor to this caller: a short digest of the subject, so a cursor
    /// handed to one caller is refused for another without naming anyone.
    pub fn cursor_tag(&self) -> String {
        let digest = Sha256::digest(self.subject.as_bytes());
        digest[..6].iter().map(|b| format!("{b:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn customer(id: &str) -> Caller {
        Caller::new(id, [], [], false)
    }

    fn id(raw: &str) -> CustomerId {
        CustomerId::parse(raw).expect("id")
    }

    #[test]
    fn customers_act_on_their_own_data_only() {
        let c1 = customer("c1");
        assert!(!c1.is_staff());
        assert!(c1.check_customer(&id("c1")).is_ok());
        assert!(matches!(
            c1.check_customer(&id("c2")),
            Err(AppError::Forbidden(_))
        ));
        assert!(c1.may_see_order(Some(&id("c1"))));
        assert!(!c1.may_see_order(Some(&id("c2"))));
        assert!(
            !c1.may_see_order(None),
            "orders without a header are staff's"
        );
        assert!(matches!(
            c1.check_staff("list"),
            Err(AppError::Forbidden(_))
        ));
    }

    #[test]
    fn staff_are_the_staff_group_or_the_admin_scope_of_a_known_machine_client() {
        for staff in [
            Caller::new("u-1", ["staff"], [], false),
            Caller::new("u-1", ["admins", "staff"], [], false),
            Caller::new("machine", [], ["store/read", "store/admin"], true),
        ] {
            assert!(staff.is_staff(), "{staff:?}");
            assert!(staff.check_customer(&id("c2")).is_ok());
            assert!(staff.may_see_order(None));
            assert!(staff.check_status_change(OrderStatus::Shipped).is_ok());
        }
        for not_staff in [
            Caller::new("u-1", ["staffers", "Staff"], [], false),
            Caller::new("u-1", [], ["store/admins", "admin"], true),
            // The scope in a token of any other client (a user who asked an external provider
            // for it) is not enough.
            Caller::new("u-1", [], ["openid", "store/admin"], false),
        ] {
            assert!(!not_staff.is_staff(), "{not_staff:?}");
        }
    }

    #[test]
    fn a_customer_may_cancel_but_not_ship() {
        let c1 = customer("c1");
        assert!(c1.check_status_change(OrderStatus::Cancelled).is_ok());
        for next in [
            OrderStatus::Shipped,
            OrderStatus::Delivered,
            OrderStatus::Placed,
        ] {
            assert!(matches!(
                c1.check_status_change(next),
                Err(AppError::Forbidden(_))
            ));
        }
    }

    #[test]
    fn a_subject_that_is_not_a_customer_id_owns_nothing() {
        let federated = customer("auth0|abc123");
        assert!(federated.check_customer(&id("abc123")).is_err());
        assert!(!federated.may_see_order(Some(&id("abc123"))));
    }

    #[test]
    fn cursor_tags_differ_between_callers_and_name_nobody() {
        assert_eq!(customer("c1").cursor_tag(), customer("c1").cursor_tag());
        assert_ne!(customer("c1").cursor_tag(), customer("c2").cursor_tag());
        assert!(!customer("c1").cursor_tag().contains("c1"));
    }
}
