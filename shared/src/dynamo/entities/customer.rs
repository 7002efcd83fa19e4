//! A customer's profile, `CUSTOMER#<customerId>` / `PROFILE` (access pattern 1, GetItem): name
//! and email as the source design writes them, the shipping address the customer keeps, and the order statistics the stream consumer
//! keeps on it. The consumer may count orders before the customer has a name (the source
//! design's boto3 code writes orders without a profile): such an item holds statistics only and
//! is not yet a customer. The customer's partition also holds their order listings, counted
//! orders and open-order count (`keys::CUSTOMER_PARTITION`).

use crate::domain::address::Address;
use crate::domain::customer::{Customer, CustomerName, CustomerProfile, EmailAddress, OrderStats};
use crate::domain::ids::CustomerId;
use crate::domain::money::{Decimal, Money};
use crate::domain::time::Timestamp;
use crate::dynamo::codec::{Attr, BadItem, Item, PK, primary_key};
use crate::dynamo::keys::{self, CUSTOMER_PREFIX, Entity, MalformedKey, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::UpdateSpec;

/// The profile's sort key.
pub const SORT_KEY: &str = keys::PROFILE_SK;

record! {
    /// What a profile stores of the customer: name and email, as the source design writes
    /// them.
    pub Profile stores Customer beside (customer_id: CustomerId) {
        /// The customer's name.
        name: CustomerName = NAME "name", required, source;
        /// The customer's email address.
        email: EmailAddress = EMAIL "email", required, source;
        /// Where their orders go unless checkout says otherwise.
        address: Address = ADDRESS "address", optional, store;
    }
}

record! {
    /// The order statistics a profile stores, kept by the stream consumer: none (zero orders)
    /// until it has counted one.
    pub Stats stores OrderStats beside () {
        /// How many of the customer's orders count.
        order_count: u64 = ORDER_COUNT "orderCount", default, store;
        /// What those orders came to.
        total_spent: Money = TOTAL_SPENT "totalSpent", default, store;
        /// When the latest of them was placed.
        last_order_at: Timestamp = LAST_ORDER_AT "lastOrderAt", optional, store;
    }
}

/// Set once every order of the customer's partition has been counted (see `dynamo::stats`);
/// from then on the stream keeps the statistics exact by itself.
pub const STATS_COMPLETE: Attr<bool> = Attr::new("statsComplete");
/// What an update adds to the statistics (a change may be negative).
pub const ORDER_COUNT_CHANGE: Attr<i64> = Attr::new("orderCount");
/// What an update adds to (or takes from) `totalSpent`.
pub const TOTAL_SPENT_CHANGE: Attr<Decimal> = Attr::new("totalSpent");

/// Replacing a profile's name and email, keeping its statistics (`put-customer`):
/// [`Profile::replace`].
pub const PROFILE_UPDATE: UpdateSpec = UpdateSpec {
    set: Profile::NAMES,
    remove: Profile::OPTIONAL,
    ..UpdateSpec::of(Entity::Customer)
};
/// The statistics' part of a statistics transaction (`order-stats`): the counts added to, the
/// latest order's time moved forward, and completeness set (or required, in its condition).
pub const STATS_UPDATE: UpdateSpec = UpdateSpec {
    add: &[ORDER_COUNT.name, TOTAL_SPENT.name],
    set: &[LAST_ORDER_AT.name, STATS_COMPLETE.name],
    ..UpdateSpec::of(Entity::Customer)
};

/// The customer's partition key: their profile's, and that of everything else they own.
pub fn pk(id: &CustomerId) -> String {
    format!("{CUSTOMER_PREFIX}{id}")
}

/// The customer a partition key names.
pub fn parse_pk(pk: &str) -> Result<CustomerId, MalformedKey> {
    pk.strip_prefix(CUSTOMER_PREFIX)
        .and_then(|raw| CustomerId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::PK, pk))
}

/// `pk` is byte for byte a customer's partition key as this store writes it.
pub fn is_canonical_pk(pk: &str) -> bool {
    parse_pk(pk).is_ok_and(|customer| pk == self::pk(&customer))
}

/// The profile's key.
pub fn key(customer: &CustomerId) -> Item {
    primary_key(pk(customer), SORT_KEY)
}

/// The profile as the source design writes it: keys, name and email (no statistics yet).
pub fn to_item(customer: &Customer) -> Item {
    let mut item = key(&customer.customer_id);
    Profile::write(&mut item, customer);
    item
}

/// The profile an item holds, statistics included (0 and none while there are none).
pub fn from_item(mut item: Item) -> Result<CustomerProfile, BadItem> {
    let customer_id = parse_pk(&PK.take(&mut item)?)?;
    Ok(CustomerProfile {
        customer: Profile::read(&mut item, customer_id)?,
        stats: Stats::read(&mut item)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{c1, n, pairs, s, shape};
    use crate::dynamo::record::Absent;

    /// Ana's profile as the source design's boto3 code writes it: keys, name and email.
    fn boto3_profile() -> Item {
        Item::from([
            ("PK".into(), s("CUSTOMER#c1")),
            ("SK".into(), s("PROFILE")),
            ("name".into(), s("Ana Torres")),
            ("email".into(), s("ana@example.com")),
        ])
    }

    #[test]
    fn customer_keys_are_the_source_designs() {
        assert_eq!(pk(&c1()), "CUSTOMER#c1");
        assert_eq!(SORT_KEY, "PROFILE");
        assert_eq!(parse_pk("CUSTOMER#c1"), Ok(c1()));
        assert!(parse_pk("ORDER#o100").is_err());
        assert!(parse_pk("CUSTOMER#").is_err());
    }

    #[test]
    fn a_profile_is_written_as_the_source_design_writes_it_and_reads_back() {
        let customer = Customer::new(c1(), "Ana Torres", "ana@example.com").expect("valid");
        let mut item = to_item(&customer);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S CUSTOMER#c1"),
                ("SK", "S PROFILE"),
                ("email", "S ana@example.com"),
                ("name", "S Ana Torres"),
            ])
        );
        let read = from_item(item.clone()).expect("reads");
        assert_eq!(
            (read.customer, read.stats),
            (customer.clone(), OrderStats::default())
        );

        let stats = OrderStats {
            order_count: 3,
            total_spent: Money::parse_number("79.8").expect("money"),
            last_order_at: Some(Timestamp::parse("2026-10-08T14:30:00Z").expect("t")),
        };
        ORDER_COUNT.put(&mut item, &stats.order_count);
        TOTAL_SPENT.put(&mut item, &stats.total_spent);
        LAST_ORDER_AT.put(&mut item, &stats.last_order_at.expect("set"));
        let read = from_item(item).expect("reads");
        assert_eq!((read.customer, read.stats), (customer, stats));
    }

    #[test]
    fn a_profile_the_source_design_wrote_reads_whatever_the_store_adds() {
        // What the boto3 code writes is required; whatever the store adds to a profile must
        // read as absent from an item that code wrote.
        let table = Profile::ATTRIBUTES.iter().chain(Stats::ATTRIBUTES);
        let source: Vec<&str> = table.clone().filter(|a| a.source).map(|a| a.name).collect();
        assert_eq!(source, ["name", "email"]);
        for attribute in table.filter(|a| !a.source) {
            assert_ne!(attribute.absent, Absent::Required, "{attribute:?}");
        }
        assert!(from_item(boto3_profile()).is_ok());
    }

    #[test]
    fn a_profile_reads_with_or_without_statistics() {
        let mut item = boto3_profile();
        let bare = from_item(item.clone()).expect("reads");
        assert_eq!(bare.stats, OrderStats::default());
        item.insert("orderCount".into(), n("3"));
        item.insert("totalSpent".into(), n("79.8"));
        item.insert("lastOrderAt".into(), s("2026-10-08T14:30:00Z"));
        let profile = from_item(item).expect("reads");
        assert_eq!(profile.stats.order_count, 3);
        assert_eq!(profile.stats.total_spent.to_string(), "79.80");
        let json = serde_json::to_value(&profile).expect("json");
        assert_eq!(
            json,
            serde_json::json!({"customerId": "c1", "name": "Ana Torres", "email": "ana@example.com",
                "orderCount": 3, "totalSpent": "79.80", "lastOrderAt": "2026-10-08T14:30:00Z"})
        );
    }

    #[test]
    fn a_profile_without_what_the_source_design_writes_is_refused() {
        let item = Item::from([("PK".into(), s("CUSTOMER#c1")), ("name".into(), s("Ana"))]);
        assert!(from_item(item).is_err());
    }

    #[test]
    fn a_statistic_of_the_wrong_value_is_named() {
        let profile = Item::from([
            ("PK".into(), s("CUSTOMER#c1")),
            ("name".into(), s("Ana")),
            ("email".into(), s("ana@example.com")),
            ("orderCount".into(), n("-1")),
        ]);
        assert_eq!(
            from_item(profile).expect_err("refused").to_string(),
            "attribute orderCount is missing or is not a whole number"
        );
    }
}
