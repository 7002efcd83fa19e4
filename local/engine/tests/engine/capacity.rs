//! The engine's reported capacity against DynamoDB's billing rules (`capacity::rules`), for
//! every kind of request the store sends: two independent accounts of the same request must
//! agree, or `make bench`'s units would be wrong.

use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, KeysAndAttributes, Put, TransactWriteItem, Update,
};
use local_engine::capacity::{CapacityMeter, Units, rules};
use local_engine::{Engine, LOCAL_TABLE};
use shared::dynamo::codec::{Item, item_size};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// An item of string attributes only (so its size is exact) of about `bytes` bytes.
fn item(pk: &str, sk: &str, bytes: usize, gsi: Option<&str>) -> Item {
    let mut item = Item::new();
    item.insert("PK".into(), s(pk));
    item.insert("SK".into(), s(sk));
    if let Some(gsi) = gsi {
        item.insert("GSI1PK".into(), s(gsi));
        item.insert("GSI1SK".into(), s("2026-11-30T00:00:00Z"));
    }
    let so_far = item_size(&item) + "pad".len();
    item.insert("pad".into(), s(&"x".repeat(bytes.saturating_sub(so_far))));
    item
}

/// The exact size DynamoDB counts for a string-only item: names plus UTF-8 values.
fn exact(item: &Item) -> usize {
    item.iter()
        .map(|(k, v)| k.len() + v.as_s().map_or(0, String::len))
        .sum()
}

fn units(meter: &CapacityMeter) -> Units {
    meter
        .take_units()
        .expect("every answer reports its capacity")
}

#[tokio::test]
async fn the_engine_bills_every_request_kind_as_dynamodb_does() {
    let engine = Engine::in_memory().await.expect("engine");
    let meter = CapacityMeter::default();
    let client = engine.intercepted_client(meter.clone());
    let table = LOCAL_TABLE;

    // PutItem, no index: 1.5 KB → 2 units.
    let plain = item("P#1", "A", 1500, None);
    client
        .put_item()
        .table_name(table)
        .set_item(Some(plain.clone()))
        .send()
        .await
        .expect("put");
    assert_eq!(units(&meter).write, rules::write(None, Some(exact(&plain))));
    assert_eq!(rules::write(None, Some(exact(&plain))), 2.0);

    // PutItem into GSI1 (projection ALL): the table and the index.
    let listed = item("P#2", "B", 700, Some("STATUS#PLACED"));
    client
        .put_item()
        .table_name(table)
        .set_item(Some(listed.clone()))
        .send()
        .await
        .expect("put");
    let size = exact(&listed);
    assert_eq!(
        units(&meter).write,
        rules::write(None, Some(size)) + rules::index_write(None, Some(size), false)
    );

    // UpdateItem that moves it to another GSI1 key: the table, and a delete and a put in the index.
    client
        .update_item()
        .table_name(table)
        .key("PK", s("P#2"))
        .key("SK", s("B"))
        .update_expression("SET GSI1PK = :k")
        .expression_attribute_values(":k", s("STATUS#SHIPPEDX"))
        .send()
        .await
        .expect("update");
    let after = size + 1;
    assert_eq!(
        units(&meter).write,
        rules::write(Some(size), Some(after)) + rules::index_write(Some(size), Some(after), true)
    );

    // GetItem, eventually and strongly consistent.
    for consistent in [false, true] {
        client
            .get_item()
            .table_name(table)
            .key("PK", s("P#1"))
            .key("SK", s("A"))
            .consistent_read(consistent)
            .send()
            .await
            .expect("get");
        assert_eq!(units(&meter).read, rules::get(&[exact(&plain)], consistent));
    }

    // Query over 30 items of 300 B: rounded over the whole result.
    let mut sizes = Vec::new();
    for i in 0..30 {
        let row = item("Q#1", &format!("R#{i:02}"), 300, None);
        sizes.push(exact(&row));
        client
            .put_item()
            .table_name(table)
            .set_item(Some(row))
            .send()
            .await
            .expect("put");
    }
    meter.take();
    for consistent in [false, true] {
        client
            .query()
            .table_name(table)
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", s("Q#1"))
            .limit(25)
            .consistent_read(consistent)
            .send()
            .await
            .expect("query");
        assert_eq!(
            units(&meter).read,
            rules::query(&sizes[..25], consistent),
            "consistent: {consistent}"
        );
    }

    // BatchGetItem: each item rounded on its own.
    let keys = (0..3)
        .map(|i| {
            [
                ("PK".to_owned(), s("Q#1")),
                ("SK".to_owned(), s(&format!("R#{i:02}"))),
            ]
            .into_iter()
            .collect()
        })
        .collect::<Vec<Item>>();
    client
        .batch_get_item()
        .request_items(
            table,
            KeysAndAttributes::builder()
                .set_keys(Some(keys))
                .consistent_read(true)
                .build()
                .expect("keys"),
        )
        .send()
        .await
        .expect("batch get");
    assert_eq!(units(&meter).read, rules::get(&sizes[..3], true));

    // TransactWriteItems: a ConditionCheck, an Update and a Put into the index, each doubled,
    // the index write not.
    let new = item("P#3", "C", 400, Some("STATUS#PLACED"));
    let actions = vec![
        TransactWriteItem::builder()
            .condition_check(
                ConditionCheck::builder()
                    .table_name(table)
                    .key("PK", s("P#1"))
                    .key("SK", s("A"))
                    .condition_expression("attribute_exists(PK)")
                    .build()
                    .expect("check"),
            )
            .build(),
        TransactWriteItem::builder()
            .update(
                Update::builder()
                    .table_name(table)
                    .key("PK", s("Q#1"))
                    .key("SK", s("R#00"))
                    .update_expression("SET touched = :t")
                    .expression_attribute_values(":t", s("y"))
                    .build()
                    .expect("update"),
            )
            .build(),
        TransactWriteItem::builder()
            .put(
                Put::builder()
                    .table_name(table)
                    .set_item(Some(new.clone()))
                    .build()
                    .expect("put"),
            )
            .build(),
    ];
    client
        .transact_write_items()
        .set_transact_items(Some(actions))
        .send()
        .await
        .expect("transaction");
    let expected = rules::transactional(rules::write(Some(exact(&plain)), Some(exact(&plain))))
        + rules::transactional(rules::write(Some(sizes[0]), Some(sizes[0] + 8)))
        + rules::transactional(rules::write(None, Some(exact(&new))))
        + rules::index_write(None, Some(exact(&new)), false);
    assert_eq!(units(&meter).write, expected);
}
