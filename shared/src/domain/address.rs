//! Where an order goes: a customer's shipping address, checked when it is given. Its country is
//! an ISO 3166-1 alpha-2 code and its region, where given, an ISO 3166-2 subdivision of that
//! country (`US-CA`; `CA` alone is read as that), both from the standard's own lists; shipping
//! options and tax rates are chosen by them.

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::text;

/// The most characters of a postal code (the longest in use are 10).
pub const MAX_POSTAL_CODE_CHARS: usize = 16;

/// A country: its ISO 3166-1 alpha-2 code, upper case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Country(String);

impl Country {
    /// `raw` (any case) if ISO 3166-1 assigns it as an alpha-2 code.
    pub fn parse(raw: &str) -> Result<Self, AppError> {
        let code = raw.trim().to_ascii_uppercase();
        if code.len() == 2 && rust_iso3166::from_alpha2(&code).is_some() {
            Ok(Self(code))
        } else {
            Err(AppError::invalid(format!(
                "country must be an ISO 3166-1 alpha-2 code (US, DE, FR), not {raw:?}"
            )))
        }
    }

    /// The code.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `raw` as one of this country's ISO 3166-2 subdivisions: its full code (`US-CA`), or the
    /// part after the country's (`CA`), any case.
    pub fn region(&self, raw: &str) -> Result<Region, AppError> {
        let raw = raw.trim().to_ascii_uppercase();
        let code = if raw.starts_with(&format!("{}-", self.0)) {
            raw
        } else {
            format!("{}-{raw}", self.0)
        };
        match rust_iso3166::iso3166_2::from_code(&code) {
            Some(found) if found.code == code => Ok(Region(code)),
            _ => Err(AppError::invalid(format!(
                "region must be an ISO 3166-2 subdivision of {} (such as {}), not {code:?}",
                self.0,
                self.example_region().unwrap_or("none: it has none")
            ))),
        }
    }

    fn example_region(&self) -> Option<&'static str> {
        rust_iso3166::from_alpha2(&self.0)?
            .subdivisions()?
            .first()
            .map(|s| s.code)
    }
}

impl<'de> Deserialize<'de> for Country {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Self::parse(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Region {
    /// A region read back from what the store wrote (a replayed answer): trusted, as stored.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Self)
    }
}

impl std::fmt::Display for Country {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A subdivision of a country: its full ISO 3166-2 code (`US-CA`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Region(String);

impl Region {
    /// The full code.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The region as stored, trusted (written by [`Country::region`]).
    pub fn stored(code: String) -> Self {
        Self(code)
    }
}

/// An address as a client sends it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AddressBody {
    /// Whom it goes to.
    pub name: String,
    /// The street and number.
    pub line1: String,
    /// A flat, a floor, a building.
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub line2: Option<String>,
    /// The town or city.
    pub city: String,
    /// The postal code.
    pub postal_code: String,
    /// ISO 3166-1 alpha-2.
    pub country: String,
    /// ISO 3166-2, of that country.
    #[serde(default, deserialize_with = "crate::domain::present::present")]
    pub region: Option<String>,
}

/// A checked address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    /// Whom it goes to.
    pub name: String,
    /// The street and number.
    pub line1: String,
    /// A flat, a floor, a building.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line2: Option<String>,
    /// The town or city.
    pub city: String,
    /// The postal code.
    pub postal_code: String,
    /// The country.
    pub country: Country,
    /// The region, where given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
}

impl AddressBody {
    /// The address, or a 400 naming what is wrong.
    pub fn check(self) -> Result<Address, AppError> {
        let field = |what: &str, raw: &str| {
            text::name(raw).map_err(|_| {
                AppError::invalid(format!(
                    "{what} must be 1-{} characters without control characters",
                    text::MAX_NAME_CHARS
                ))
            })
        };
        let country = Country::parse(&self.country)?;
        let region = self
            .region
            .as_deref()
            .map(|r| country.region(r))
            .transpose()?;
        let postal_code = self.postal_code.trim().to_owned();
        if postal_code.is_empty()
            || postal_code.chars().count() > MAX_POSTAL_CODE_CHARS
            || !postal_code
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '-')
        {
            return Err(AppError::invalid(format!(
                "postalCode must be 1-{MAX_POSTAL_CODE_CHARS} letters, digits, spaces or hyphens"
            )));
        }
        Ok(Address {
            name: field("name", &self.name)?,
            line1: field("line1", &self.line1)?,
            line2: self
                .line2
                .as_deref()
                .map(|l| field("line2", l))
                .transpose()?,
            city: field("city", &self.city)?,
            postal_code,
            country,
            region,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(country: &str, region: Option<&str>) -> AddressBody {
        AddressBody {
            name: "Ana Torres".into(),
            line1: "1 Main St".into(),
            line2: None,
            city: "Springfield".into(),
            postal_code: "94107".into(),
            country: country.into(),
            region: region.map(str::to_owned),
        }
    }

    #[test]
    fn countries_and_regions_are_the_standards_own() {
        let us = body("us", Some("ca")).check().expect("valid");
        assert_eq!(
            (us.country.as_str(), us.region.as_ref().map(Region::as_str)),
            ("US", Some("US-CA"))
        );
        let full = body("US", Some("US-NY")).check().expect("valid");
        assert_eq!(full.region.as_ref().map(Region::as_str), Some("US-NY"));
        assert!(body("DE", None).check().is_ok(), "a region is optional");
        for (country, region) in [
            ("XX", None),
            ("USA", None),
            ("", None),
            ("US", Some("ZZ")),
            ("US", Some("DE-BY")),
            ("DE", Some("CA")),
        ] {
            assert!(
                body(country, region).check().is_err(),
                "{country} {region:?}"
            );
        }
    }

    #[test]
    fn its_text_is_checked_as_names_are() {
        let mut bad = body("FR", None);
        bad.city = "Paris\u{202E}".into();
        assert!(bad.check().is_err());
        let mut bad = body("FR", None);
        bad.postal_code = "75<01>".into();
        assert!(bad.check().is_err());
    }
}
