//! A way to ship, `SHIPPING` / `OPTION#<optionId>`: its name, the places it serves, its rate and
//! the subtotal above which it is free. Every option shares one partition, so one Query reads
//! them all ([`crate::domain::shipping::MAX_OPTIONS`] keep it far inside a page) and the store
//! picks those that serve an address.

use crate::domain::ids::ShippingOptionId;
use crate::domain::money::Money;
use crate::domain::shipping::{Rate, ShippingOption, Zone};
use crate::dynamo::codec::{Attr, BadItem, Item, SK, primary_key};
use crate::dynamo::keys::{self, Entity, MalformedKey, OPTION_PREFIX, SHIPPING_PK, malformed};
use crate::dynamo::update::PutSpec;

/// What customers read.
pub const NAME: Attr<String> = Attr::new("name");
/// Where it ships.
pub const ZONES: Attr<Vec<Zone>> = Attr::new("zones");
/// What it charges.
pub const RATE: Attr<Rate> = Attr::new("rate");
/// Free from this subtotal on.
pub const FREE_ABOVE: Attr<Money> = Attr::new("freeAbove");

/// What staff's write puts: the option whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::ShippingOption,
    attributes: &[
        keys::PK,
        keys::SK,
        NAME.name,
        ZONES.name,
        RATE.name,
        FREE_ABOVE.name,
    ],
};

/// The partition every option is in.
pub const PK: &str = SHIPPING_PK;

/// The option's sort key.
pub fn sk(option: &ShippingOptionId) -> String {
    format!("{OPTION_PREFIX}{option}")
}

/// The option a sort key names.
pub fn parse_sk(sk: &str) -> Result<ShippingOptionId, MalformedKey> {
    sk.strip_prefix(OPTION_PREFIX)
        .and_then(|raw| ShippingOptionId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// The option's key.
pub fn key(option: &ShippingOptionId) -> Item {
    primary_key(PK.to_owned(), sk(option))
}

/// The option's item.
pub fn to_item(option: &ShippingOption) -> Item {
    let mut item = key(&option.option_id);
    NAME.put(&mut item, &option.name);
    ZONES.put(&mut item, &option.zones);
    RATE.put(&mut item, &option.rate);
    FREE_ABOVE.put_optional(&mut item, option.free_above.as_ref());
    item
}

/// The option an item holds.
pub fn from_item(mut item: Item) -> Result<ShippingOption, BadItem> {
    Ok(ShippingOption {
        option_id: parse_sk(&SK.take(&mut item)?)?,
        name: NAME.take(&mut item)?,
        zones: ZONES.take(&mut item)?,
        rate: RATE.take(&mut item)?,
        free_above: FREE_ABOVE.take_optional(&mut item)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::address::Country;
    use crate::domain::shipping::Band;
    use crate::dynamo::entities::test_support::{pairs, shape};

    #[test]
    fn an_option_is_kept_in_the_shipping_partition_and_reads_back() {
        let us = Country::parse("US").expect("us");
        let option = ShippingOption {
            option_id: ShippingOptionId::parse("standard").expect("id"),
            name: "Standard".into(),
            zones: vec![Zone {
                regions: vec![us.region("CA").expect("ca")],
                country: us,
            }],
            rate: Rate::ByWeight(vec![Band {
                up_to_grams: 1_000,
                price: Money::parse_number("4").expect("money"),
            }]),
            free_above: Money::parse_number("50"),
        };
        let item = to_item(&option);
        assert_eq!(
            shape(&item)
                .into_iter()
                .filter(|(name, _)| name == "PK" || name == "SK" || name == "freeAbove")
                .collect::<Vec<_>>(),
            pairs(&[
                ("PK", "S SHIPPING"),
                ("SK", "S OPTION#standard"),
                ("freeAbove", "N 50.00"),
            ])
        );
        assert_eq!(
            Entity::of("SHIPPING", "OPTION#standard"),
            Some(Entity::ShippingOption)
        );
        assert_eq!(from_item(item).expect("reads"), option);
    }
}
