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
    /// Its rate, a fraction (0.2 is 20 %).
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
        let fraction = region
            .and_then(|r| self.regions.get(r))
            .copied()
            .unwrap_or(self.rate);
        TaxRule {
            // Checked when written: from 0 to 1, at most six decimals.
            rate: per_million(fraction * Decimal::ONE_HUNDRED).unwrap_or(0),
            shipping_taxed: self.shipping_taxed,
            prices_include_tax,
        }
    }
}

/// A country's tax as staff send it: `PUT /tax-rates/{country}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaxRateBody {
    /// A fraction, as a decimal string (`"0.2"` is 20 %, `"0.0725"` 7.25 %).
    pub rate: String,
    /// Regions with a rate of their own: ISO 3166-2 code (or the part after the country's) to
    /// a fraction.
    #[serde(default)]
    pub regions: BTreeMap<String, String>,
    /// Whether shipping is taxed there.
    #[serde(default)]
    pub shipping_taxed: bool,
}

/// `raw` as a fraction from 0 to 1 with at most six decimals (a rate per million, exactly),
/// written `0`, `1`, `0.` or `1.` and 1-6 digits.
fn fraction(raw: &str) -> Result<Decimal, AppError> {
    let invalid = || {
        AppError::invalid(format!(
            "a rate is a fraction from 0 to 1 with at most six decimals (\"0.2\" is 20 %, \"0.0725\" 7.25 %), not {raw:?}"
        ))
    };
    let (whole, decimals) = raw.split_once('.').unwrap_or((raw, "0"));
    let written = matches!(whole, "0" | "1")
        && (1..=6).contains(&decimals.len())
        && decimals.bytes().all(|b| b.is_ascii_digit())
        && (whole == "0" || decimals.bytes().all(|b| b == b'0'));
    if !written {
        return Err(invalid());
    }
    let value: Decimal = raw.parse().map_err(|_| invalid())?;
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
                .insert(country.region(region)?, fraction(rate)?)
                .is_some()
            {
                return Err(AppError::invalid(format!("regions name {region} twice")));
            }
        }
        Ok(TaxRate {
            rate: fraction(&self.rate)?,
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
            "rate": "0.05", "regions": {"CA": "0.0725", "US-NY": "0.08875"}, "shippingTaxed": true,
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
            serde_json::json!({"rate": "-0.1"}),
            serde_json::json!({"rate": "1.01"}),
            serde_json::json!({"rate": "19"}),
            serde_json::json!({"rate": "0.1234567"}),
            serde_json::json!({"rate": "1e-2"}),
            serde_json::json!({"rate": ".5"}),
            serde_json::json!({"rate": "00.5"}),
            serde_json::json!({"rate": "1.5"}),
            serde_json::json!({"rate": "0."}),
            serde_json::json!({"rate": ""}),
            serde_json::json!({"rate": "0.05", "regions": {"BY": "0.07"}}),
            serde_json::json!({"rate": "0.05", "regions": {"CA": "0.07", "US-CA": "0.08"}}),
        ] {
            assert!(body(bad.clone()).is_err(), "{bad}");
        }
        assert_eq!(
            body(serde_json::json!({"rate": "0"})).expect("none").rate,
            Decimal::ZERO
        );
    }
}
