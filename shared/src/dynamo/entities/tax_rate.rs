//! A country's tax, `TAX` / `COUNTRY#<country>`: its rate, the regions with one of their own
//! and whether its shipping is taxed. One GetItem reads the rule for an address.

use std::collections::BTreeMap;

use crate::domain::address::{Country, Region};
use crate::domain::money::Decimal;
use crate::domain::tax::TaxRate;
use crate::dynamo::codec::{Attr, BadItem, Item, SK, primary_key};
use crate::dynamo::keys::{self, COUNTRY_PREFIX, Entity, MalformedKey, TAX_PK, malformed};
use crate::dynamo::update::PutSpec;

/// The country's rate, a percentage.
pub const RATE: Attr<Decimal> = Attr::new("rate");
/// Regions' own rates.
pub const REGIONS: Attr<BTreeMap<Region, Decimal>> = Attr::new("regions");
/// Whether shipping is taxed.
pub const SHIPPING_TAXED: Attr<bool> = Attr::new("shippingTaxed");

/// What staff's write puts: the rate whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::TaxRate,
    attributes: &[
        keys::PK,
        keys::SK,
        RATE.name,
        REGIONS.name,
        SHIPPING_TAXED.name,
    ],
};

/// The partition every rate is in.
pub const PK: &str = TAX_PK;

/// The rate's sort key.
pub fn sk(country: &Country) -> String {
    format!("{COUNTRY_PREFIX}{country}")
}

/// The country a sort key names.
pub fn parse_sk(sk: &str) -> Result<Country, MalformedKey> {
    sk.strip_prefix(COUNTRY_PREFIX)
        .and_then(|raw| Country::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// The rate's key.
pub fn key(country: &Country) -> Item {
    primary_key(PK.to_owned(), sk(country))
}

/// The rate's item.
pub fn to_item(rate: &TaxRate) -> Item {
    let mut item = key(&rate.country);
    RATE.put(&mut item, &rate.rate);
    if !rate.regions.is_empty() {
        REGIONS.put(&mut item, &rate.regions);
    }
    SHIPPING_TAXED.put(&mut item, &rate.shipping_taxed);
    item
}

/// The rate an item holds.
pub fn from_item(mut item: Item) -> Result<TaxRate, BadItem> {
    Ok(TaxRate {
        country: parse_sk(&SK.take(&mut item)?)?,
        rate: RATE.take(&mut item)?,
        regions: REGIONS.take_optional(&mut item)?.unwrap_or_default(),
        shipping_taxed: SHIPPING_TAXED.take_optional(&mut item)?.unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, shape};

    #[test]
    fn a_rate_is_kept_by_its_country_and_reads_back() {
        let us = Country::parse("US").expect("us");
        let rate = TaxRate {
            regions: BTreeMap::from([(us.region("CA").expect("ca"), Decimal::new(725, 2))]),
            country: us,
            rate: Decimal::from(5),
            shipping_taxed: true,
        };
        let item = to_item(&rate);
        let keys: Vec<_> = shape(&item)
            .into_iter()
            .filter(|(name, _)| name == "PK" || name == "SK" || name == "rate")
            .collect();
        assert_eq!(
            keys,
            pairs(&[("PK", "S TAX"), ("SK", "S COUNTRY#US"), ("rate", "N 5")])
        );
        assert_eq!(Entity::of("TAX", "COUNTRY#US"), Some(Entity::TaxRate));
        assert_eq!(from_item(item).expect("reads"), rate);
    }
}
