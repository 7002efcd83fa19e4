//! What a request asks of DynamoDB's partitions: for each action, the partitions it reads or
//! writes and the units it spends there, by the billing rules of [`crate::capacity::rules`],
//! and the items a transaction or a write works on.
//!
//! A write's sizes are the items' as stored (looked up in the engine before the request runs)
//! or as a Put sends them; an Update is counted at the size of the item it finds. A read
//! (GetItem, BatchGetItem, Query) is admitted with the smallest read of each key and spends
//! the rest once it has answered, by the sizes of the items it returned ([`after_reads`]), as
//! DynamoDB, which does not know an item's size before reading it, counts a read. A write spends in
//! the table's partition of its key and in each index partition the item is in, before or
//! after (a Put names its index keys; an Update or Delete is counted in the index partitions
//! of the item it finds), one write there, never doubled by a transaction.

use serde_json::Value;

use super::ledger::{Charge, ItemKey, Partition};
use crate::capacity::rules;
use crate::faults::consistent;

/// The table's key attributes and its indexes' partition key attributes.
#[derive(Debug, Clone)]
pub(crate) struct Schema {
    pub(crate) pk: String,
    pub(crate) sk: Option<String>,
    /// `(index name, its partition key attribute)`.
    pub(crate) indexes: Vec<(String, String)>,
}

impl Schema {
    /// Read from a CreateTable request (`template::table_requests`).
    pub(crate) fn of_create_table(create: &Value) -> Self {
        let hash = |schema: &Value, kind: &str| {
            schema.as_array().and_then(|keys| {
                keys.iter()
                    .find(|k| k["KeyType"] == kind)
                    .and_then(|k| k["AttributeName"].as_str())
                    .map(str::to_owned)
            })
        };
        let indexes = create["GlobalSecondaryIndexes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|index| {
                Some((
                    index["IndexName"].as_str()?.to_owned(),
                    hash(&index["KeySchema"], "HASH")?,
                ))
            })
            .collect();
        Self {
            pk: hash(&create["KeySchema"], "HASH").unwrap_or_else(|| "PK".to_owned()),
            sk: hash(&create["KeySchema"], "RANGE"),
            indexes,
        }
    }

    fn item_key(&self, key: &Value) -> ItemKey {
        let sk = self.sk.as_ref().map(|sk| key[sk].to_string());
        (key[&self.pk].to_string(), sk.unwrap_or_default())
    }

    fn index_pk(&self, index: &str) -> Option<&str> {
        self.indexes
            .iter()
            .find(|(name, _)| name == index)
            .map(|(_, pk)| pk.as_str())
    }
}

/// What a request asks for.
#[derive(Debug, Default, Clone)]
pub(crate) struct Demand {
    pub(crate) charges: Vec<Charge>,
    /// Items it writes (a transaction: also those it reads), by action.
    pub(crate) items: Vec<(usize, ItemKey)>,
    /// A transaction: it holds its items while it runs.
    pub(crate) transaction: bool,
    /// A Query: the partition its further units are spent in once it has answered.
    pub(crate) query: Option<Partition>,
    /// A GetItem or BatchGetItem: its further units are spent once it has answered, in the
    /// partitions of the items it returned ([`after_reads`]).
    pub(crate) reads_items: bool,
}

/// The stored item under `key`, if any (DynamoDB JSON).
pub(crate) type Lookup<'a> = &'a dyn Fn(&Value) -> Option<Value>;

/// What `operation` with `body` asks for. Operations the store never sends on a hot path
/// (Scan, PartiQL, the table's management) ask for nothing.
pub(crate) fn of(operation: &str, body: &Value, schema: &Schema, lookup: Lookup<'_>) -> Demand {
    let mut d = Demand::default();
    match operation {
        "GetItem" => d.read_unseen(schema, 0, &body["Key"], consistent(body)),
        "BatchGetItem" => {
            let tables = body["RequestItems"].as_object().into_iter().flatten();
            for (_, table) in tables {
                let keys = table["Keys"].as_array().into_iter().flatten();
                for (i, key) in keys.enumerate() {
                    d.read_unseen(schema, i, key, consistent(table));
                }
            }
        }
        "TransactGetItems" => {
            d.transaction = true;
            let actions = body["TransactItems"].as_array().into_iter().flatten();
            for (i, action) in actions.enumerate() {
                let key = &action["Get"]["Key"];
                d.read(schema, lookup, i, key, true, 2.0);
                d.items.push((i, schema.item_key(key)));
            }
        }
        "Query" => d.query(schema, body),
        "PutItem" => d.write(schema, lookup, 0, &body["Item"], Some(&body["Item"]), 1.0),
        "UpdateItem" | "DeleteItem" => d.write(schema, lookup, 0, &body["Key"], None, 1.0),
        "BatchWriteItem" => {
            let tables = body["RequestItems"].as_object().into_iter().flatten();
            let writes = tables.flat_map(|(_, writes)| writes.as_array().into_iter().flatten());
            for (i, write) in writes.enumerate() {
                let put = &write["PutRequest"]["Item"];
                if put.is_object() {
                    d.write(schema, lookup, i, put, Some(put), 1.0);
                } else {
                    d.write(schema, lookup, i, &write["DeleteRequest"]["Key"], None, 1.0);
                }
            }
        }
        "TransactWriteItems" => {
            d.transaction = true;
            let actions = body["TransactItems"].as_array().into_iter().flatten();
            for (i, action) in actions.enumerate() {
                d.transact_write(schema, lookup, i, action);
            }
        }
        _ => {}
    }
    d
}

impl Demand {
    /// The smallest read of the item under `key`: what the read must find in its partition
    /// before it runs (the rest is spent once it has answered).
    fn read_unseen(&mut self, schema: &Schema, action: usize, key: &Value, consistent: bool) {
        self.charges.push(Charge {
            partition: table_partition(schema, key, false),
            units: rules::read(0, consistent),
            action,
        });
        self.reads_items = true;
    }

    fn read(
        &mut self,
        schema: &Schema,
        lookup: Lookup<'_>,
        action: usize,
        key: &Value,
        consistent: bool,
        factor: f64,
    ) {
        let size = lookup(key).map_or(0, |item| item_size(&item));
        self.charges.push(Charge {
            partition: table_partition(schema, key, false),
            units: factor * rules::read(size, consistent),
            action,
        });
    }

    fn transact_write(&mut self, schema: &Schema, lookup: Lookup<'_>, i: usize, action: &Value) {
        if action["Put"].is_object() {
            let item = &action["Put"]["Item"];
            self.write(schema, lookup, i, item, Some(item), 2.0);
        } else if action["ConditionCheck"].is_object() {
            let key = &action["ConditionCheck"]["Key"];
            let before = lookup(key).map(|item| item_size(&item));
            self.charges.push(Charge {
                partition: table_partition(schema, key, true),
                units: rules::transactional(rules::write(before, None)),
                action: i,
            });
            self.items.push((i, schema.item_key(key)));
        } else {
            let write = if action["Update"].is_object() {
                &action["Update"]
            } else {
                &action["Delete"]
            };
            self.write(schema, lookup, i, &write["Key"], None, 2.0);
        }
    }

    /// A write of the item under `key` (a Put: `put`, the item it sends), `factor` times its
    /// units in the table (2 in a transaction), once in each index partition it is in.
    fn write(
        &mut self,
        schema: &Schema,
        lookup: Lookup<'_>,
        action: usize,
        key: &Value,
        put: Option<&Value>,
        factor: f64,
    ) {
        let before = lookup(key);
        let after = put.cloned().or_else(|| before.clone());
        let size = |item: &Option<Value>| item.as_ref().map(item_size);
        let units = rules::write(size(&before), size(&after));
        self.charges.push(Charge {
            partition: table_partition(schema, key, true),
            units: factor * units,
            action,
        });
        for (index, pk) in &schema.indexes {
            let mut partitions: Vec<String> = [&before, &after]
                .into_iter()
                .flatten()
                .filter(|item| !item[pk].is_null())
                .map(|item| item[pk].to_string())
                .collect();
            partitions.dedup();
            for key in partitions {
                let partition = Partition {
                    index: Some(index.clone()),
                    key,
                    write: true,
                };
                self.charges.push(Charge {
                    partition,
                    units,
                    action,
                });
            }
        }
        self.items.push((action, schema.item_key(key)));
    }

    /// A Query: the partition its key condition names; it must find at least the smallest
    /// read there (the rest is spent once it has answered).
    fn query(&mut self, schema: &Schema, body: &Value) {
        let index = body["IndexName"].as_str();
        let pk = match index {
            Some(index) => schema.index_pk(index),
            None => Some(schema.pk.as_str()),
        };
        let Some(value) = pk.and_then(|pk| key_condition_value(body, pk)) else {
            return;
        };
        let partition = Partition {
            index: index.map(str::to_owned),
            key: value.to_string(),
            write: false,
        };
        self.charges.push(Charge {
            partition: partition.clone(),
            units: rules::read(0, consistent(body)),
            action: 0,
        });
        self.query = Some(partition);
    }
}

/// The units a GetItem's or BatchGetItem's `answer` to `body` spent beyond the smallest read
/// of each key, by partition: an item larger than 4 KB reads more than one unit.
pub(crate) fn after_reads(schema: &Schema, body: &Value, answer: &Value) -> Vec<(Partition, f64)> {
    let beyond = |item: &Value, consistent: bool| {
        let units = rules::read(item_size(item), consistent) - rules::read(0, consistent);
        (units > 0.0).then(|| (table_partition(schema, item, false), units))
    };
    let got = answer["Item"]
        .is_object()
        .then(|| (&answer["Item"], consistent(body)));
    let batch = answer["Responses"].as_object().into_iter().flatten();
    let batch = batch.flat_map(|(table, items)| {
        let consistent = consistent(&body["RequestItems"][table]);
        items
            .as_array()
            .into_iter()
            .flatten()
            .map(move |item| (item, consistent))
    });
    got.into_iter()
        .chain(batch)
        .filter_map(|(item, consistent)| beyond(item, consistent))
        .collect()
}

fn table_partition(schema: &Schema, key: &Value, write: bool) -> Partition {
    Partition {
        index: None,
        key: key[&schema.pk].to_string(),
        write,
    }
}

/// The value a Query's `KeyConditionExpression` gives the attribute `pk` (`#pk = :pk`, in
/// either order, names and values through the request's placeholders).
fn key_condition_value<'a>(body: &'a Value, pk: &str) -> Option<&'a Value> {
    let expression = body["KeyConditionExpression"].as_str()?;
    let name = |token: &str| -> String {
        let token = token.trim().trim_matches(|c| c == '(' || c == ')').trim();
        match body["ExpressionAttributeNames"][token].as_str() {
            Some(name) if token.starts_with('#') => name.to_owned(),
            _ => token.to_owned(),
        }
    };
    expression
        .split(" AND ")
        .flat_map(|clause| clause.split(" and "))
        .filter(|clause| !clause.contains("<=") && !clause.contains(">="))
        .filter_map(|clause| clause.split_once('='))
        .find_map(|(left, right)| {
            let (left, right) = (name(left), name(right));
            let value = |placeholder: &str| body["ExpressionAttributeValues"].get(placeholder);
            if left == pk {
                value(&right)
            } else if right == pk {
                value(&left)
            } else {
                None
            }
        })
}

/// An item's size as DynamoDB counts it, from its DynamoDB JSON: each attribute's name and
/// value (a string's or number's text, a binary's bytes, 1 for a boolean or null, 3 more for
/// a list or map around what it holds).
pub(crate) fn item_size(item: &Value) -> usize {
    item.as_object().map_or(0, |attributes| {
        attributes
            .iter()
            .map(|(name, value)| name.len() + value_size(value))
            .sum()
    })
}

fn value_size(value: &Value) -> usize {
    let Some((kind, inner)) = value.as_object().and_then(|v| v.iter().next()) else {
        return 0;
    };
    let text = |v: &Value| v.as_str().map_or(0, str::len);
    match kind.as_str() {
        "S" | "N" => text(inner),
        "B" => text(inner) * 3 / 4,
        "BOOL" | "NULL" => 1,
        "SS" | "NS" => inner.as_array().map_or(0, |a| a.iter().map(text).sum()),
        "BS" => inner
            .as_array()
            .map_or(0, |a| a.iter().map(|b| text(b) * 3 / 4).sum()),
        "L" => {
            3 + inner
                .as_array()
                .map_or(0, |a| a.iter().map(value_size).sum())
        }
        "M" => 3 + item_size(inner),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Schema {
        Schema {
            pk: "PK".to_owned(),
            sk: Some("SK".to_owned()),
            indexes: vec![("GSI3".to_owned(), "GSI3PK".to_owned())],
        }
    }

    fn variant() -> Value {
        json!({"PK": {"S": "PRODUCT#sku-1"}, "SK": {"S": "PRODUCT"}, "stock": {"N": "5"},
               "GSI3PK": {"S": "PRODUCT#p1"}, "GSI3SK": {"S": "VARIANT#sku-1"}})
    }

    fn stored(key: &Value) -> Option<Value> {
        (key["PK"] == json!({"S": "PRODUCT#sku-1"})).then(variant)
    }

    fn spent(d: &Demand) -> Vec<(Option<&str>, &str, bool, f64)> {
        d.charges
            .iter()
            .map(|c| {
                let p = &c.partition;
                (p.index.as_deref(), p.key.as_str(), p.write, c.units)
            })
            .collect()
    }

    #[test]
    fn a_transactional_update_spends_twice_in_the_table_once_in_the_index() {
        let body = json!({"TransactItems": [
            {"Update": {"TableName": "AppTable", "Key": {"PK": {"S": "PRODUCT#sku-1"}, "SK": {"S": "PRODUCT"}},
                        "UpdateExpression": "ADD stock :n"}},
            {"Put": {"TableName": "AppTable", "Item": {"PK": {"S": "ORDER#o1"}, "SK": {"S": "ITEM#sku-1"}}}}
        ]});
        let d = of("TransactWriteItems", &body, &schema(), &stored);
        assert!(d.transaction);
        let sku = r#"{"S":"PRODUCT#sku-1"}"#;
        let product = r#"{"S":"PRODUCT#p1"}"#;
        let order = r#"{"S":"ORDER#o1"}"#;
        assert_eq!(
            spent(&d),
            vec![
                (None, sku, true, 2.0),
                (Some("GSI3"), product, true, 1.0),
                (None, order, true, 2.0)
            ]
        );
        let held: Vec<usize> = d.items.iter().map(|(i, _)| *i).collect();
        assert_eq!(held, vec![0, 1]);
    }

    #[test]
    fn a_write_spends_a_unit_per_kilobyte_of_the_larger_image() {
        let big = json!({"PK": {"S": "X"}, "SK": {"S": "Y"}, "blob": {"S": "a".repeat(2500)}});
        let d = of("PutItem", &json!({"Item": big}), &schema(), &|_| None);
        assert_eq!(spent(&d), vec![(None, r#"{"S":"X"}"#, true, 3.0)]);
    }

    #[test]
    fn reads_spend_by_consistency_and_batches_per_key() {
        let key = json!({"PK": {"S": "PRODUCT#sku-1"}, "SK": {"S": "PRODUCT"}});
        let strong = of(
            "GetItem",
            &json!({"Key": key, "ConsistentRead": true}),
            &schema(),
            &stored,
        );
        assert_eq!(strong.charges[0].units, 1.0);
        assert!(!strong.charges[0].partition.write);
        let eventual = of("GetItem", &json!({"Key": key}), &schema(), &stored);
        assert_eq!(eventual.charges[0].units, 0.5);
        let batch =
            json!({"RequestItems": {"AppTable": {"Keys": [key, key], "ConsistentRead": true}}});
        let d = of("BatchGetItem", &batch, &schema(), &stored);
        let actions: Vec<usize> = d.charges.iter().map(|c| c.action).collect();
        assert_eq!(actions, vec![0, 1]);
    }

    #[test]
    fn a_read_is_admitted_with_one_unit_a_key_and_spends_the_rest_by_what_it_found() {
        let big = json!({"PK": {"S": "PRODUCT#big"}, "SK": {"S": "PRODUCT"},
                         "blob": {"S": "a".repeat(9000)}});
        let stored_big = |_: &Value| Some(big.clone());
        let key = json!({"PK": {"S": "PRODUCT#big"}, "SK": {"S": "PRODUCT"}});
        let get = json!({"Key": key, "ConsistentRead": true});
        let d = of("GetItem", &get, &schema(), &stored_big);
        assert_eq!(
            spent(&d),
            vec![(None, r#"{"S":"PRODUCT#big"}"#, false, 1.0)]
        );
        assert!(d.reads_items);
        // 9,000 bytes and more: three 4 KB units strongly consistent, half that eventually.
        let after = after_reads(&schema(), &get, &json!({"Item": big}));
        assert_eq!(after.len(), 1);
        assert_eq!(
            (after[0].0.key.as_str(), after[0].1),
            (r#"{"S":"PRODUCT#big"}"#, 2.0)
        );
        assert!(after_reads(&schema(), &get, &json!({})).is_empty());
        let batch = json!({"RequestItems": {"AppTable": {"Keys": [key]}}});
        let found = json!({"Responses": {"AppTable": [big, variant()]}});
        let after = after_reads(&schema(), &batch, &found);
        let units: Vec<f64> = after.iter().map(|(_, units)| *units).collect();
        assert_eq!(
            units,
            vec![1.0],
            "the small item took no more than it was admitted with"
        );
    }

    #[test]
    fn a_query_reads_the_partition_its_key_condition_names() {
        let body = json!({
            "IndexName": "GSI3",
            "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
            "ExpressionAttributeNames": {"#pk": "GSI3PK", "#sk": "GSI3SK"},
            "ExpressionAttributeValues": {":pk": {"S": "PRODUCT#p1"}, ":prefix": {"S": "V"}}
        });
        let d = of("Query", &body, &schema(), &|_| None);
        let partition = d.query.expect("a partition");
        assert_eq!(partition.index.as_deref(), Some("GSI3"));
        assert_eq!(partition.key, r#"{"S":"PRODUCT#p1"}"#);
        let table = json!({"KeyConditionExpression": "PK = :p",
                           "ExpressionAttributeValues": {":p": {"S": "CUSTOMER#c1"}}});
        let d = of("Query", &table, &schema(), &|_| None);
        assert_eq!(d.query.expect("a partition").key, r#"{"S":"CUSTOMER#c1"}"#);
    }

    #[test]
    fn an_item_is_sized_as_dynamodb_counts_it() {
        let item = json!({"ab": {"S": "xyz"}, "n": {"N": "12"}, "ok": {"BOOL": true},
                          "m": {"M": {"k": {"S": "v"}}}, "l": {"L": [{"S": "q"}]}});
        assert_eq!(
            item_size(&item),
            (2 + 3) + (1 + 2) + (2 + 1) + (1 + 3 + 2) + (1 + 3 + 1)
        );
    }
}
