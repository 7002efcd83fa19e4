//! Customers: access pattern 1 (a profile, by GetItem) and creating or replacing a profile.

use aws_sdk_dynamodb::types::ReturnValue;

use crate::domain::customer::{Customer, CustomerProfile};
use crate::domain::ids::CustomerId;
use crate::dynamo::entities::{cart_version, customer};
use crate::dynamo::keys::{PK, SK};
use crate::{AppError, Store};

impl Store {
    /// Access pattern 1: a customer's profile, by GetItem. An item with statistics but no name
    /// (orders counted before the customer signed up) is not a customer yet.
    pub async fn get_customer(&self, id: &CustomerId) -> Result<Option<CustomerProfile>, AppError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(customer::key(id)))
            .send()
            .await?;
        Ok(out
            .item
            .filter(|item| item.contains_key(customer::NAME.name))
            .map(customer::from_item)
            .transpose()?)
    }

    /// Creates or replaces a customer's name and email, keeping whatever else the profile holds
    /// (its order statistics, which may predate the customer). One UpdateItem; `true` when the
    /// customer is new, i.e. had no name. Then, once it is written, the mark on the cart's
    /// version that the customer is one ([`cart_version::PROFILED`]: a sold-out checkout is
    /// answered from one Query of the cart). A failure between the two leaves the profile
    /// without the mark, which only costs checkouts their second read until the next write.
    pub async fn put_customer(&self, customer: &Customer) -> Result<bool, AppError> {
        let change = customer::PROFILE_UPDATE.on(&self.table, customer::key(&customer.customer_id));
        let out = customer::Profile::replace(change, customer)
            .request(&self.client)?
            .return_values(ReturnValue::UpdatedOld)
            .send()
            .await?;
        (cart_version::MARK_PROFILED.on(&self.table, cart_version::key(&customer.customer_id)))
            .set(&cart_version::PROFILED, &true)
            .request(&self.client)?
            .send()
            .await?;
        // Only the old name and email come back (UPDATED_OLD): none for a new customer. An
        // engine that hands back the bare key (dynoxide 3.2 does for ALL_OLD) means the same.
        Ok(out
            .attributes
            .is_none_or(|old| old.keys().all(|name| name == PK || name == SK)))
    }
}
