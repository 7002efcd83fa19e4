//! Ways to ship: each serves some countries (or some of their regions) and charges a rate — flat,
//! or by the cart's weight in bands — free above a subtotal when staff say so. A storefront
//! lists those that serve an address; the price of a cart takes the one the customer chose.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::address::{Country, Region};
use crate::domain::ids::ShippingOptionId;
use crate::domain::money::{Decimal, Money};
use crate::domain::pricing::cents::{self, Cents};
use crate::domain::product;

/// The most ways to ship a store has: one Query reads them all, far inside a page.
pub const MAX_OPTIONS: usize = 50;
/// The most places one option serves.
pub const MAX_ZONES: usize = 50;
/// The most regions of one country a zone names.
pub const MAX_REGIONS: usize = 100;
/// The most weight bands of one rate.
pub const MAX_BANDS: usize = 20;

/// Where an option ships: a country, whole or some of its regions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    /// The country.
    pub country: Country,
    /// Its regions served (none: all of it).
    pub regions: Vec<Region>,
}

/// One weight band: up to and including `up_to_grams`, this price.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Band {
    /// The heaviest cart in the band, in grams.
    pub up_to_grams: u64,
    /// Its price.
    #[serde(rename = "amount")]
    pub price: Money,
}

/// What an option charges.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Rate {
    /// The same whatever the cart weighs.
    Flat(Money),
    /// By the cart's weight: the first band it fits (a heavier cart is not served).
    ByWeight(Vec<Band>),
}

/// A way to ship, answered as staff write it: the countries served whole in `countries`, the
/// others' regions in `regions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShippingOption {
    /// Its ID.
    pub option_id: ShippingOptionId,
    /// What customers read.
    pub name: String,
    /// Where it ships.
    #[serde(flatten, serialize_with = "zones_as_written")]
    pub zones: Vec<Zone>,
    /// What it charges.
    pub rate: Rate,
    /// Free from this subtotal (after discounts) on, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free_above: Option<Money>,
}

/// `zones` as `"countries": [...], "regions": {"US": ["US-CA"]}`.
fn zones_as_written<S: serde::Serializer>(zones: &[Zone], out: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let countries: Vec<&Country> = zones
        .iter()
        .filter(|z| z.regions.is_empty())
        .map(|z| &z.country)
        .collect();
    let regions: BTreeMap<&Country, &Vec<Region>> = zones
        .iter()
        .filter(|z| !z.regions.is_empty())
        .map(|z| (&z.country, &z.regions))
        .collect();
    let mut map = out.serialize_map(Some(2))?;
    map.serialize_entry("countries", &countries)?;
    map.serialize_entry("regions", &regions)?;
    map.end()
}

impl ShippingOption {
    /// Whether it ships to `country` (and `region`, where it serves only some).
    pub fn serves(&self, country: &Country, region: Option<&Region>) -> bool {
        self.zones.iter().any(|zone| {
            zone.country == *country
                && (zone.regions.is_empty() || region.is_some_and(|r| zone.regions.contains(r)))
        })
    }

    /// What it charges a cart of `weight_grams` whose subtotal after discounts is `subtotal`;
    /// `None` when the cart is heavier than its last band.
    pub fn charge(&self, weight_grams: u64, subtotal: Cents) -> Result<Option<Cents>, AppError> {
        if let Some(free) = self.free_above
            && subtotal >= cents::cents(free)?
        {
            return Ok(Some(0));
        }
        match &self.rate {
            Rate::Flat(price) => Ok(Some(cents::cents(*price)?)),
            Rate::ByWeight(bands) => bands
                .iter()
                .find(|band| weight_grams <= band.up_to_grams)
                .map(|band| cents::cents(band.price))
                .transpose(),
        }
    }
}

/// An option as staff send it: `PUT /shipping-options/{optionId}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ShippingOptionBody {
    /// What customers read.
    pub name: String,
    /// Countries served whole (ISO 3166-1 alpha-2).
    #[serde(default)]
    pub countries: Vec<String>,
    /// Countries served in some regions only: country to its ISO 3166-2 codes (or the part
    /// after the country's).
    #[serde(default)]
    pub regions: BTreeMap<String, Vec<String>>,
    /// What it charges.
    pub rate: RateBody,
    /// Free from this subtotal on (a decimal string).
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub free_above: Option<String>,
}

/// A rate as staff send it: exactly one of the two.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RateBody {
    /// A flat price (a decimal string).
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub flat: Option<String>,
    /// Weight bands, lightest first.
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub by_weight: Option<Vec<BandBody>>,
}

/// A band as staff send it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BandBody {
    /// Up to this many grams, included.
    pub up_to_grams: u64,
    /// This price (a decimal string).
    pub amount: String,
}

/// An amount a client gives: a price, or 0.
pub(crate) fn amount(raw: &str) -> Result<Money, AppError> {
    if raw.trim_end_matches('0').trim_end_matches('.') == "0" || raw == "0" {
        return Ok(Money::new(Decimal::ZERO));
    }
    product::price(raw)
}

/// The zones `countries` (whole) and `regions` (some of a country's) name, each country once.
fn zones(
    countries: &[String],
    regions: &BTreeMap<String, Vec<String>>,
) -> Result<Vec<Zone>, AppError> {
    let count = countries.len() + regions.len();
    if count == 0 || count > MAX_ZONES {
        return Err(AppError::invalid(format!(
            "countries and regions must name 1-{MAX_ZONES} countries between them"
        )));
    }
    let mut zones: Vec<Zone> = Vec::with_capacity(count);
    let whole = countries.iter().map(|c| (c, None));
    let partly = regions.iter().map(|(c, r)| (c, Some(r)));
    for (country, named) in whole.chain(partly) {
        let country = Country::parse(country)?;
        if zones.iter().any(|z| z.country == country) {
            return Err(AppError::invalid(format!(
                "{country} is named twice: either whole in countries or by its regions"
            )));
        }
        if named.is_some_and(|r| r.is_empty() || r.len() > MAX_REGIONS) {
            return Err(AppError::invalid(format!(
                "regions names 1-{MAX_REGIONS} regions of each country it lists"
            )));
        }
        let named = named.map(Vec::as_slice).unwrap_or_default();
        let mut regions = named
            .iter()
            .map(|r| country.region(r))
            .collect::<Result<Vec<_>, _>>()?;
        regions.sort();
        regions.dedup();
        zones.push(Zone { country, regions });
    }
    zones.sort_by(|a, b| a.country.cmp(&b.country));
    Ok(zones)
}

impl ShippingOptionBody {
    /// The option, or a 400 naming what is wrong.
    pub fn check(self, option_id: ShippingOptionId) -> Result<ShippingOption, AppError> {
        let name = product::product_name(&self.name)?;
        let zones = zones(&self.countries, &self.regions)?;
        let rate = match (self.rate.flat, self.rate.by_weight) {
            (Some(flat), None) => Rate::Flat(amount(&flat)?),
            (None, Some(bands)) => Rate::ByWeight(check_bands(bands)?),
            _ => {
                return Err(AppError::invalid(
                    "rate must be exactly one of {\"flat\": amount} or {\"byWeight\": [bands]}",
                ));
            }
        };
        Ok(ShippingOption {
            option_id,
            name,
            zones,
            rate,
            free_above: self.free_above.as_deref().map(product::price).transpose()?,
        })
    }
}

fn check_bands(bands: Vec<BandBody>) -> Result<Vec<Band>, AppError> {
    if bands.is_empty() || bands.len() > MAX_BANDS {
        return Err(AppError::invalid(format!(
            "byWeight must have 1-{MAX_BANDS} bands"
        )));
    }
    let mut checked: Vec<Band> = Vec::with_capacity(bands.len());
    for band in bands {
        if checked
            .last()
            .is_some_and(|last| band.up_to_grams <= last.up_to_grams)
        {
            return Err(AppError::invalid(
                "byWeight's bands must go from the lightest up, each heavier than the last",
            ));
        }
        checked.push(Band {
            up_to_grams: band.up_to_grams,
            price: amount(&band.amount)?,
        });
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(json: serde_json::Value) -> Result<ShippingOption, AppError> {
        let body: ShippingOptionBody = serde_json::from_value(json).expect("shape");
        body.check(ShippingOptionId::parse("standard").expect("id"))
    }

    #[test]
    fn an_option_serves_its_zones_and_charges_by_weight_or_free_above() {
        let option = body(serde_json::json!({
            "name": "Standard",
            "countries": ["de"],
            "regions": {"US": ["CA", "US-NY"]},
            "rate": {"byWeight": [{"upToGrams": 1000, "amount": "4.00"}, {"upToGrams": 5000, "amount": "9.50"}]},
            "freeAbove": "100.00",
        }))
        .expect("valid");
        let us = Country::parse("US").expect("us");
        let de = Country::parse("DE").expect("de");
        let ca = us.region("CA").expect("ca");
        let tx = us.region("TX").expect("tx");
        assert!(option.serves(&us, Some(&ca)));
        assert!(!option.serves(&us, Some(&tx)));
        assert!(!option.serves(&us, None), "a region it names must be given");
        assert!(option.serves(&de, None));
        assert_eq!(
            serde_json::to_value(&option).expect("json"),
            serde_json::json!({
                "optionId": "standard", "name": "Standard",
                "countries": ["DE"], "regions": {"US": ["US-CA", "US-NY"]},
                "rate": {"byWeight": [{"upToGrams": 1000, "amount": "4.00"}, {"upToGrams": 5000, "amount": "9.50"}]},
                "freeAbove": "100.00",
            }),
            "answered as written"
        );
        assert_eq!(option.charge(800, 2_000).expect("rate"), Some(400));
        assert_eq!(option.charge(1_000, 2_000).expect("rate"), Some(400));
        assert_eq!(option.charge(1_001, 2_000).expect("rate"), Some(950));
        assert_eq!(
            option.charge(6_000, 2_000).expect("rate"),
            None,
            "too heavy"
        );
        assert_eq!(
            option.charge(6_000, 10_000).expect("rate"),
            Some(0),
            "free above"
        );
    }

    #[test]
    fn a_broken_option_is_refused() {
        for bad in [
            serde_json::json!({"name": "X", "rate": {"flat": "1.00"}}),
            serde_json::json!({"name": "X", "countries": ["XX"], "rate": {"flat": "1.00"}}),
            serde_json::json!({"name": "X", "regions": {"US": ["BY"]}, "rate": {"flat": "1.00"}}),
            serde_json::json!({"name": "X", "regions": {"US": []}, "rate": {"flat": "1.00"}}),
            serde_json::json!({"name": "X", "countries": ["US", "us"], "rate": {"flat": "1.00"}}),
            serde_json::json!({"name": "X", "countries": ["US"], "regions": {"US": ["CA"]}, "rate": {"flat": "1.00"}}),
            serde_json::json!({"name": "X", "countries": ["US"], "rate": {}}),
            serde_json::json!({"name": "X", "countries": ["US"], "rate": {"flat": "1.00", "byWeight": []}}),
            serde_json::json!({"name": "X", "countries": ["US"], "rate": {"byWeight": [{"upToGrams": 500, "amount": "2.00"}, {"upToGrams": 500, "amount": "3.00"}]}}),
            serde_json::json!({"name": "X", "countries": ["US"], "rate": {"flat": "-1.00"}}),
        ] {
            assert!(body(bad.clone()).is_err(), "{bad}");
        }
        let free =
            body(serde_json::json!({"name": "Pickup", "countries": ["FR"], "rate": {"flat": "0"}}))
                .expect("a free option");
        assert_eq!(free.charge(0, 0).expect("rate"), Some(0));
    }
}
