//! How a list or a map of domain values is stored (`L` and `M` attributes): SKUs and
//! categories, a product's options, a variant's option values, quantities by SKU, what arrived
//! of a return, a fulfilment's tracking history. Each reads back in the order it was written,
//! or in SKU order for a map of SKUs.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::domain::address::{Address, Country, Region};
use crate::domain::fulfilment::{Tracking, TrackingChange};
use crate::domain::ids::{CategoryId, Sku};
use crate::domain::media::Picture;
use crate::domain::order::LineQuantity;
use crate::domain::product::{OptionValues, ProductOption};
use crate::domain::returns::ReceivedLine;
use crate::domain::shipping::{Band, Rate, Zone};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, Item, Stored};

/// A list (`L`) of values of one type, in order.
macro_rules! stored_list {
    ($type:ty, $expected:literal) => {
        impl Stored for Vec<$type> {
            const EXPECTED: &'static str = $expected;
            fn to_attribute(&self) -> AttributeValue {
                AttributeValue::L(self.iter().map(Stored::to_attribute).collect())
            }
            fn from_attribute(value: AttributeValue) -> Option<Self> {
                let AttributeValue::L(list) = value else {
                    return None;
                };
                list.into_iter().map(<$type>::from_attribute).collect()
            }
        }
    };
}

stored_list!(String, "a list of strings");
stored_list!(Sku, "a list of SKUs");
stored_list!(CategoryId, "a list of category ids");

/// A product's options: a list (`L`) of maps of its `name` and its `values` (a list), in the
/// product's order.
impl Stored for Vec<ProductOption> {
    const EXPECTED: &'static str = "a list of options";
    fn to_attribute(&self) -> AttributeValue {
        list_of_maps(self, |map, option| {
            OPTION_NAME.put(map, &option.name);
            OPTION_VALUES.put(map, &option.values);
        })
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        from_list_of_maps(value, |map| {
            Some(ProductOption {
                name: OPTION_NAME.take(map).ok()?,
                values: OPTION_VALUES.take(map).ok()?,
            })
        })
    }
}

/// A product's first picture, kept on it and on its listings: a map (`M`) of its `mediaId`, its
/// `alt` and its `rank`.
impl Stored for Picture {
    const EXPECTED: &'static str = "a picture";
    fn to_attribute(&self) -> AttributeValue {
        let mut map = Item::new();
        PICTURE_ID.put(&mut map, &self.media_id);
        PICTURE_ALT.put(&mut map, &self.alt);
        PICTURE_RANK.put(&mut map, &self.rank);
        AttributeValue::M(map)
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        let AttributeValue::M(mut map) = value else {
            return None;
        };
        Some(Picture {
            media_id: PICTURE_ID.take(&mut map).ok()?,
            alt: PICTURE_ALT.take(&mut map).ok()?,
            rank: PICTURE_RANK.take(&mut map).ok()?,
        })
    }
}

const PICTURE_ID: Attr<crate::domain::ids::MediaId> = Attr::new("mediaId");
const PICTURE_ALT: Attr<String> = Attr::new("alt");
const PICTURE_RANK: Attr<u32> = Attr::new("rank");

/// Where a shipping option ships: a list (`L`) of maps of a `country` and its `regions` (a
/// list, absent for all of it).
impl Stored for Vec<Zone> {
    const EXPECTED: &'static str = "a list of zones";
    fn to_attribute(&self) -> AttributeValue {
        list_of_maps(self, |map, zone| {
            ZONE_COUNTRY.put(map, &zone.country);
            if !zone.regions.is_empty() {
                let regions = zone.regions.iter().map(|r| r.as_str().to_owned()).collect();
                ZONE_REGIONS.put(map, &regions);
            }
        })
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        from_list_of_maps(value, |map| {
            Some(Zone {
                country: ZONE_COUNTRY.take(map).ok()?,
                regions: ZONE_REGIONS
                    .take_optional(map)
                    .ok()?
                    .unwrap_or_default()
                    .into_iter()
                    .map(Region::stored)
                    .collect(),
            })
        })
    }
}

const ZONE_COUNTRY: Attr<Country> = Attr::new("country");
const ZONE_REGIONS: Attr<Vec<String>> = Attr::new("regions");

/// A shipping option's rate: a map (`M`) of `flat` (a number), or of `byWeight` (a list of maps
/// of `upToGrams` and `price`).
impl Stored for Rate {
    const EXPECTED: &'static str = "a shipping rate";
    fn to_attribute(&self) -> AttributeValue {
        let mut map = Item::new();
        match self {
            Rate::Flat(price) => RATE_FLAT.put(&mut map, price),
            Rate::ByWeight(bands) => {
                map.insert(
                    RATE_BY_WEIGHT.to_owned(),
                    list_of_maps(bands, |band_map, band| {
                        BAND_UP_TO.put(band_map, &band.up_to_grams);
                        BAND_PRICE.put(band_map, &band.price);
                    }),
                );
            }
        }
        AttributeValue::M(map)
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        let AttributeValue::M(mut map) = value else {
            return None;
        };
        if let Some(flat) = RATE_FLAT.take_optional(&mut map).ok()? {
            return Some(Rate::Flat(flat));
        }
        let bands = from_list_of_maps(map.remove(RATE_BY_WEIGHT)?, |band| {
            Some(Band {
                up_to_grams: BAND_UP_TO.take(band).ok()?,
                price: BAND_PRICE.take(band).ok()?,
            })
        })?;
        Some(Rate::ByWeight(bands))
    }
}

const RATE_FLAT: Attr<crate::domain::money::Money> = Attr::new("flat");
const RATE_BY_WEIGHT: &str = "byWeight";
const BAND_UP_TO: Attr<u64> = Attr::new("upToGrams");
const BAND_PRICE: Attr<crate::domain::money::Money> = Attr::new("price");

/// Regions' own tax rates: a map (`M`) of ISO 3166-2 code to a number.
impl Stored for std::collections::BTreeMap<Region, crate::domain::money::Decimal> {
    const EXPECTED: &'static str = "a map of regions' rates";
    fn to_attribute(&self) -> AttributeValue {
        AttributeValue::M(
            self.iter()
                .map(|(region, rate)| (region.as_str().to_owned(), rate.to_attribute()))
                .collect(),
        )
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        let AttributeValue::M(map) = value else {
            return None;
        };
        map.into_iter()
            .map(|(region, rate)| {
                Some((
                    Region::stored(region),
                    crate::domain::money::Decimal::from_attribute(rate)?,
                ))
            })
            .collect()
    }
}

/// A shipping address: a map (`M`) of its lines, its `country` and its `region` where given.
impl Stored for Address {
    const EXPECTED: &'static str = "an address";
    fn to_attribute(&self) -> AttributeValue {
        let mut map = Item::new();
        ADDRESS_NAME.put(&mut map, &self.name);
        ADDRESS_LINE1.put(&mut map, &self.line1);
        ADDRESS_LINE2.put_optional(&mut map, self.line2.as_ref());
        ADDRESS_CITY.put(&mut map, &self.city);
        ADDRESS_POSTAL_CODE.put(&mut map, &self.postal_code);
        ZONE_COUNTRY.put(&mut map, &self.country);
        if let Some(region) = &self.region {
            ADDRESS_REGION.put(&mut map, &region.as_str().to_owned());
        }
        AttributeValue::M(map)
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        let AttributeValue::M(mut map) = value else {
            return None;
        };
        Some(Address {
            name: ADDRESS_NAME.take(&mut map).ok()?,
            line1: ADDRESS_LINE1.take(&mut map).ok()?,
            line2: ADDRESS_LINE2.take_optional(&mut map).ok()?,
            city: ADDRESS_CITY.take(&mut map).ok()?,
            postal_code: ADDRESS_POSTAL_CODE.take(&mut map).ok()?,
            country: ZONE_COUNTRY.take(&mut map).ok()?,
            region: ADDRESS_REGION
                .take_optional(&mut map)
                .ok()?
                .map(Region::stored),
        })
    }
}

const ADDRESS_NAME: Attr<String> = Attr::new("name");
const ADDRESS_LINE1: Attr<String> = Attr::new("line1");
const ADDRESS_LINE2: Attr<String> = Attr::new("line2");
const ADDRESS_CITY: Attr<String> = Attr::new("city");
const ADDRESS_POSTAL_CODE: Attr<String> = Attr::new("postalCode");
const ADDRESS_REGION: Attr<String> = Attr::new("region");

/// A variant's options: a list (`L`) of maps of the option's `name` and the variant's `value`,
/// in the product's order of options (a map of name to value would lose it).
impl Stored for OptionValues {
    const EXPECTED: &'static str = "a list of option values";
    fn to_attribute(&self) -> AttributeValue {
        list_of_maps(&self.0, |map, (name, value)| {
            OPTION_NAME.put(map, name);
            OPTION_VALUE.put(map, value);
        })
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        from_list_of_maps(value, |map| {
            Some((OPTION_NAME.take(map).ok()?, OPTION_VALUE.take(map).ok()?))
        })
        .map(OptionValues)
    }
}

/// A list (`L`) of maps, each of `values` written into its own by `write`.
fn list_of_maps<'a, T: 'a>(
    values: impl IntoIterator<Item = &'a T>,
    write: impl Fn(&mut Item, &T),
) -> AttributeValue {
    AttributeValue::L(
        values
            .into_iter()
            .map(|value| {
                let mut map = Item::new();
                write(&mut map, value);
                AttributeValue::M(map)
            })
            .collect(),
    )
}

/// Each map of a list (`L`) read by `read`: `None` unless `value` is a list of maps it reads.
fn from_list_of_maps<T>(
    value: AttributeValue,
    read: impl Fn(&mut Item) -> Option<T>,
) -> Option<Vec<T>> {
    let AttributeValue::L(list) = value else {
        return None;
    };
    list.into_iter()
        .map(|entry| read(&mut Item::from_attribute(entry)?))
        .collect()
}

/// An option's own attributes (inside its map).
const OPTION_NAME: Attr<String> = Attr::new("name");
const OPTION_VALUES: Attr<Vec<String>> = Attr::new("values");
const OPTION_VALUE: Attr<String> = Attr::new("value");

/// Quantities of an order's lines: a map of SKU to quantity (`M` of `N`), read back in SKU
/// order.
impl Stored for Vec<LineQuantity> {
    const EXPECTED: &'static str = "a map of SKU to quantity";
    fn to_attribute(&self) -> AttributeValue {
        AttributeValue::M(
            self.iter()
                .map(|line| (line.sku.to_string(), line.quantity.to_attribute()))
                .collect(),
        )
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        from_sku_map(value, |sku, quantity| {
            Some(LineQuantity {
                sku,
                quantity: u32::from_attribute(quantity)?,
            })
        })
    }
}

/// What arrived of a return's lines: a map of SKU to a map of `received` and `damaged`, read
/// back in SKU order.
impl Stored for Vec<ReceivedLine> {
    const EXPECTED: &'static str = "a map of SKU to what arrived";
    fn to_attribute(&self) -> AttributeValue {
        AttributeValue::M(
            self.iter()
                .map(|line| {
                    let mut counts = Item::new();
                    RECEIVED.put(&mut counts, &line.received);
                    DAMAGED.put(&mut counts, &line.damaged);
                    (line.sku.to_string(), AttributeValue::M(counts))
                })
                .collect(),
        )
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        from_sku_map(value, |sku, counts| {
            let mut counts = Item::from_attribute(counts)?;
            Some(ReceivedLine {
                sku,
                received: RECEIVED.take(&mut counts).ok()?,
                damaged: DAMAGED.take(&mut counts).ok()?,
            })
        })
    }
}

/// Each entry of a map (`M`) of SKU to value read by `read`, in SKU order: `None` unless
/// `value` is such a map whose every key is a SKU and every value one `read` reads.
fn from_sku_map<T>(
    value: AttributeValue,
    read: impl Fn(Sku, AttributeValue) -> Option<T>,
) -> Option<Vec<T>> {
    let AttributeValue::M(map) = value else {
        return None;
    };
    let mut read: Vec<(Sku, T)> = map
        .into_iter()
        .map(|(sku, value)| {
            let sku = Sku::parse(&sku).ok()?;
            Some((sku.clone(), read(sku, value)?))
        })
        .collect::<Option<_>>()?;
    read.sort_by(|a, b| a.0.cmp(&b.0));
    Some(read.into_iter().map(|(_, line)| line).collect())
}

/// A received line's own counts (inside its map).
const RECEIVED: Attr<u32> = Attr::new("received");
const DAMAGED: Attr<u32> = Attr::new("damaged");

/// The tracking a fulfilment's corrections replaced: a list (`L`) of maps holding what each
/// tracking said and when it was replaced.
impl Stored for Vec<TrackingChange> {
    const EXPECTED: &'static str = "a list of tracking changes";
    fn to_attribute(&self) -> AttributeValue {
        list_of_maps(self, |map, change| {
            TRACKING_CARRIER.put_optional(map, change.tracking.carrier.as_ref());
            TRACKING_NUMBER.put_optional(map, change.tracking.tracking_number.as_ref());
            TRACKING_URL.put_optional(map, change.tracking.tracking_url.as_ref());
            REPLACED_AT.put(map, &change.replaced_at);
        })
    }
    fn from_attribute(value: AttributeValue) -> Option<Self> {
        from_list_of_maps(value, |map| {
            Some(TrackingChange {
                tracking: Tracking {
                    carrier: TRACKING_CARRIER.take_optional(map).ok()?,
                    tracking_number: TRACKING_NUMBER.take_optional(map).ok()?,
                    tracking_url: TRACKING_URL.take_optional(map).ok()?,
                },
                replaced_at: REPLACED_AT.take(map).ok()?,
            })
        })
    }
}

/// A tracking change's own attributes (inside its map, named as the fulfilment names its own).
const TRACKING_CARRIER: Attr<String> = Attr::new("carrier");
const TRACKING_NUMBER: Attr<String> = Attr::new("trackingNumber");
const TRACKING_URL: Attr<String> = Attr::new("trackingUrl");
const REPLACED_AT: Attr<Timestamp> = Attr::new("replacedAt");
