//! Ways to ship: staff's write of one, and the ones serving an address, read by one Query of the
//! shipping partition.

use crate::AppError;
use crate::domain::address::{Country, Region};
use crate::domain::shipping::{MAX_OPTIONS, ShippingOption};
use crate::dynamo::entities::shipping_option;
use crate::dynamo::query::{Index, KeyQuery};
use crate::dynamo::store::Store;

impl Store {
    /// Every way to ship, by ID (one strongly consistent Query when `consistent`).
    async fn shipping_options(&self, consistent: bool) -> Result<Vec<ShippingOption>, AppError> {
        let items = KeyQuery::on(Index::Table, shipping_option::PK.to_owned())
            .read_all(self, consistent)
            .await?;
        let mut options = Vec::with_capacity(items.len());
        for item in items {
            options.push(shipping_option::from_item(item)?);
        }
        Ok(options)
    }

    /// The ways to ship to `country` (and `region`), by name; every one without a country.
    pub async fn list_shipping_options(
        &self,
        place: Option<(&Country, Option<&Region>)>,
    ) -> Result<Vec<ShippingOption>, AppError> {
        let mut options = self.shipping_options(false).await?;
        if let Some((country, region)) = place {
            options.retain(|option| option.serves(country, region));
        }
        options.sort_by(|a, b| a.name.cmp(&b.name).then(a.option_id.cmp(&b.option_id)));
        Ok(options)
    }

    /// Creates or replaces `option`; whether it is new. A store holds at most [`MAX_OPTIONS`]
    /// (a 409 past it).
    pub async fn put_shipping_option(&self, option: &ShippingOption) -> Result<bool, AppError> {
        let existing = self.shipping_options(true).await?;
        let new = !existing.iter().any(|o| o.option_id == option.option_id);
        if new && existing.len() >= MAX_OPTIONS {
            return Err(AppError::CapReached(format!(
                "a store has at most {MAX_OPTIONS} shipping options: replace one"
            )));
        }
        shipping_option::PUT
            .put(&self.table, shipping_option::to_item(option))
            .request(&self.client)?
            .send()
            .await?;
        Ok(new)
    }
}
