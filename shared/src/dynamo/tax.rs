//! Countries' tax: staff's write of one, and the one for an address, each one request.

use aws_sdk_dynamodb::types::ReturnValue;

use crate::AppError;
use crate::domain::address::Country;
use crate::domain::tax::TaxRate;
use crate::dynamo::entities::tax_rate;
use crate::dynamo::store::Store;

impl Store {
    /// Creates or replaces `rate` (one PutItem); whether it is new.
    pub async fn put_tax_rate(&self, rate: &TaxRate) -> Result<bool, AppError> {
        let out = tax_rate::PUT
            .put(&self.table, tax_rate::to_item(rate))
            .request(&self.client)?
            .return_values(ReturnValue::AllOld)
            .send()
            .await?;
        Ok(out.attributes.is_none_or(|old| old.is_empty()))
    }

    /// `country`'s tax (one GetItem); `None` where none is set (no tax there).
    pub async fn tax_rate(&self, country: &Country) -> Result<Option<TaxRate>, AppError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(tax_rate::key(country)))
            .send()
            .await?;
        Ok(out.item.map(tax_rate::from_item).transpose()?)
    }
}
