//! Tax rates by where an order goes: a country's rate, a different one in some of its regions
//! (ISO 3166-2), and whether its shipping is taxed. The price of a cart takes the rule for the
//! address (`pricing::TaxRule`); the store's one setting, whether prices include tax, is the
//! template's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::address::{Country, Region};
use crate::domain::money::Decimal;
use crate::domain::pricing::TaxRule;
use crate::domain::pricing::cents::per_million;

/// The most regions of one country with a rate of their own.
pub const MAX_REGIONS: usize = 100;

/// A country's tax.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaxRate {
    /// The country.
    pub country: Country,
    /// Its rate, a percentage (20 is 20 %).
    pub rate: Decimal,
    /// Regions whose rate is another, by ISO 3166-2 code.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub regions: BTreeMap<Region, Decimal>,
    /// Whether shipping is taxed there.
    pub shipping_taxed: bool,
}

impl TaxRate {
    /// The rule for an order going to `region` of this country (its own rate where it has one),
    /// prices including tax or not as the store says.
    pub fn rule(&self, region: Option<&Region>, prices_include_tax: bool) -> TaxRule {
        let percent = region
            .and_then(|r| self.regions.get(r))
            .copied()
            .unwrap_or(self.rate);
        TaxRule {
            // Checked when written: from 0 to 100, at most four decimals.
            rate: per_million(percent).unwrap_or(0),
            shipping_taxed: self.shipping_taxed,
            prices_include_tax,
        }
    }
}

/// A country's tax as staff send it: `PUT /tax-rates/{country}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaxRateBody {
    /// A percentage, as a decimal string (`"20"`, `"7.25"`).
    pub rate: String,
    /// Regions with a rate of their own: ISO 3166-2 code (or the part after the country's) to
    /// a percentage.
    #[serde(default)]
    pub regions: BTreeMap<String, String>,
    /// Whether shipping is taxed there.
    #[serde(default)]
    pub shipping_taxed: bool,
}

/// `raw` as a percentage from 0 to 100 with at most four decimals.
fn percent(raw: &str) -> Result<Decimal, AppError> {
    let invalid = || {
        AppError::invalid(format!(
            "a rate is a percentage from 0 to 100 with at most four decimals (\"20\", \"7.25\"), not {raw:?}"
        ))
    };
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return Err(invalid());
    }
    let value: Decimal = raw.parse().map_err(|_| invalid())?;
    per_million(value).map_err(|_| invalid())?;
    Ok(value.normalize())
}

impl TaxRateBody {
    /// The country's tax, or a 400 naming what is wrong.
    pub fn check(self, country: Country) -> Result<TaxRate, AppError> {
        if self.regions.len() > MAX_REGIONS {
            return Err(AppError::invalid(format!(
                "at most {MAX_REGIONS} regions have a rate of their own"
            )));
        }
        let mut regions = BTreeMap::new();
        for (region, rate) in &self.regions {
            if regions
                .insert(country.region(region)?, percent(rate)?)
                .is_some()
            {
                return Err(AppError::invalid(format!("regions name {region} twice")));
            }
        }
        Ok(TaxRate {
            rate: percent(&self.rate)?,
            regions,
            shipping_taxed: self.shipping_taxed,
            country,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(json: serde_json::Value) -> Result<TaxRate, AppError> {
        let body: TaxRateBody = serde_json::from_value(json).expect("shape");
        body.check(Country::parse("US").expect("us"))
    }

    #[test]
    fn a_region_has_its_own_rate_where_it_is_given() {
        let us = body(serde_json::json!({
            "rate": "5", "regions": {"CA": "7.25", "US-NY": "8.875"}, "shippingTaxed": true,
        }))
        .expect("valid");
        let country = Country::parse("US").expect("us");
        let ca = country.region("CA").expect("ca");
        let tx = country.region("TX").expect("tx");
        assert_eq!(us.rule(Some(&ca), false).rate, 72_500);
        assert_eq!(us.rule(Some(&tx), false).rate, 50_000);
        assert_eq!(us.rule(None, true).rate, 50_000);
        assert!(us.rule(None, true).prices_include_tax && us.rule(None, true).shipping_taxed);
    }

    #[test]
    fn a_broken_rate_is_refused() {
        for bad in [
            serde_json::json!({"rate": "-1"}),
            serde_json::json!({"rate": "101"}),
            serde_json::json!({"rate": "1.23456"}),
            serde_json::json!({"rate": "1e2"}),
            serde_json::json!({"rate": ""}),
            serde_json::json!({"rate": "5", "regions": {"BY": "7"}}),
            serde_json::json!({"rate": "5", "regions": {"CA": "7", "US-CA": "8"}}),
        ] {
            assert!(body(bad.clone()).is_err(), "{bad}");
        }
        assert_eq!(
            body(serde_json::json!({"rate": "0"})).expect("none").rate,
            Decimal::ZERO
        );
    }
}
