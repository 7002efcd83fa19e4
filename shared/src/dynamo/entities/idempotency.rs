//! What an `Idempotency-Key` remembers, `IDEMPOTENCY#<customerId>#<key>` / `RESPONSE`: the
//! first request's fingerprint and answer, scoped to the customer the order is for, until
//! `expiresAt` (the table's TTL attribute).

use crate::domain::idempotency::IdempotencyRecord;
use crate::domain::ids::{CustomerId, IdempotencyKey, OrderId};
use crate::dynamo::codec::{Attr, BadItem, Item, primary_key};
use crate::dynamo::keys::{self, Entity, IDEMPOTENCY_PREFIX};
use crate::dynamo::record::record;
use crate::dynamo::update::PutSpec;

/// The record's sort key.
pub const SORT_KEY: &str = keys::RESPONSE_SK;

record! {
    /// What an idempotency record stores of the first request.
    pub Record stores IdempotencyRecord beside () {
        /// What identifies the first request's body.
        fingerprint: String = FINGERPRINT "fingerprint", required, store;
        /// The order the first request placed.
        order_id: OrderId = ORDER_ID "orderId", required, store;
        /// The first request's answer, as sent.
        response: String = RESPONSE "response", required, store;
    }
}

/// When the record expires (seconds since the epoch): the table's TTL attribute.
pub const EXPIRES_AT: Attr<u64> = Attr::new("expiresAt");

/// What claiming a key puts: the record whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::IdempotencyRecord,
    attributes: &[
        keys::PK,
        keys::SK,
        FINGERPRINT.name,
        ORDER_ID.name,
        RESPONSE.name,
        EXPIRES_AT.name,
    ],
};

/// The record's partition key: the key, scoped to the customer the order is for.
pub fn pk(customer: &CustomerId, key: &IdempotencyKey) -> String {
    format!("{IDEMPOTENCY_PREFIX}{customer}#{key}")
}

/// The record's key.
pub fn key(customer: &CustomerId, idempotency_key: &IdempotencyKey) -> Item {
    primary_key(pk(customer, idempotency_key), SORT_KEY)
}

/// The record of `record`, expiring at `expires_at`.
pub fn to_item(
    customer: &CustomerId,
    idempotency_key: &IdempotencyKey,
    record: &IdempotencyRecord,
    expires_at: u64,
) -> Item {
    let mut item = key(customer, idempotency_key);
    Record::write(&mut item, record);
    EXPIRES_AT.put(&mut item, &expires_at);
    item
}

/// The record and when it expires (0 when the item has no expiry).
pub fn from_item(mut item: Item) -> Result<(IdempotencyRecord, u64), BadItem> {
    let record = Record::read(&mut item)?;
    Ok((record, EXPIRES_AT.take_optional(&mut item)?.unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{c1, o100};
    use aws_sdk_dynamodb::types::AttributeValue;

    #[test]
    fn idempotency_keys() {
        let key = IdempotencyKey::parse("k-1").expect("valid");
        assert_eq!(pk(&c1(), &key), "IDEMPOTENCY#c1#k-1");
        assert_eq!(SORT_KEY, "RESPONSE");
    }

    #[test]
    fn an_idempotency_record_reads_back_with_its_expiry() {
        let record = IdempotencyRecord {
            fingerprint: "f00d".into(),
            order_id: o100(),
            response: r#"{"orderId":"o100"}"#.into(),
        };
        let item = to_item(
            &c1(),
            &IdempotencyKey::parse("k-1").expect("key"),
            &record,
            1_800_000_000,
        );
        assert_eq!(item["PK"], AttributeValue::S("IDEMPOTENCY#c1#k-1".into()));
        assert_eq!(item["expiresAt"], AttributeValue::N("1800000000".into()));
        assert_eq!(from_item(item).expect("reads"), (record, 1_800_000_000));
    }
}
