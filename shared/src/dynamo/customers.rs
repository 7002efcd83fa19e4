//! Customers: access pattern 1 (a profile, by GetItem) and creating or replacing a profile.

use aws_sdk_dynamodb::types::ReturnValue;

use crate::domain::customer::{Customer, CustomerProfile};
use crate::domain::ids::CustomerId;
use crate::dynamo::entities::customer;
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
    /// customer is new, i.e. had no name.
    pub async fn put_customer(&self, customer: &Customer) -> Result<bool, AppError> {
        let change = customer::PROFILE_UPDATE.on(&self.table, customer::key(&customer.customer_id));
        let out = customer::Profile::replace(change, customer)
            .request(&self.client)?
            .return_values(ReturnValue::UpdatedOld)
            .send()
            .await?;
        // Only the old name and email come back (UPDATED_OLD): none for a new customer. An
        // engine that hands back the bare key (dynoxide 3.2 does for ALL_OLD) means the same.
        Ok(out
            .attributes
            .is_none_or(|old| old.keys().all(|name| name == PK || name == SK)))
    }
}
