//! The table's stream delivered the way Lambda's event source mapping delivers it: poll each
//! shard, drop what the function's FilterCriteria reject, hand batches of up to BatchSize
//! records to the handler as the Lambda event, and retry from the first sequence number the
//! handler reports, up to MaximumRetryAttempts; then the batch goes to the on-failure
//! destination (here: the log) and the shard moves on.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use dynoxide::Database;
use serde_json::{Value, json};

use crate::Error;

/// What template.yaml says about a stream-triggered function.
#[derive(Debug, Clone)]
pub struct Consumer {
    pub function: String,
    pub binary: String,
    pub batch_size: usize,
    pub max_retries: usize,
    /// FilterCriteria patterns: a record is delivered if it matches any.
    pub filters: Vec<Value>,
}

/// Every function with a DynamoDB event on the table's stream.
pub fn consumers(template: &serde_yaml::Value) -> Result<Vec<Consumer>, Error> {
    let resources = template["Resources"].as_mapping().ok_or("no Resources")?;
    let mut out = Vec::new();
    for (name, resource) in resources {
        if resource["Type"].as_str() != Some("AWS::Serverless::Function") {
            continue;
        }
        let Some(events) = resource["Properties"]["Events"].as_mapping() else {
            continue;
        };
        for event in events.values() {
            if event["Type"].as_str() != Some("DynamoDB") {
                continue;
            }
            let props = &event["Properties"];
            let function = name.as_str().unwrap_or_default().to_owned();
            let mut filters = Vec::new();
            if let Some(list) = props["FilterCriteria"]["Filters"].as_sequence() {
                for filter in list {
                    let pattern = filter["Pattern"]
                        .as_str()
                        .ok_or("a filter Pattern must be a JSON string")?;
                    let pattern: Value = serde_json::from_str(pattern)?;
                    check_pattern(&pattern)?;
                    filters.push(pattern);
                }
            }
            out.push(Consumer {
                binary: resource["Metadata"]["BuildProperties"]["Binary"]
                    .as_str()
                    .ok_or_else(|| format!("{function}: no Metadata.BuildProperties.Binary"))?
                    .to_owned(),
                function,
                batch_size: props["BatchSize"].as_u64().unwrap_or(100) as usize,
                max_retries: props["MaximumRetryAttempts"].as_u64().unwrap_or(3) as usize,
                filters,
            });
        }
    }
    Ok(out)
}

/// The stream consumer built from `binary`.
pub fn consumer(template: &serde_yaml::Value, binary: &str) -> Result<Consumer, Error> {
    consumers(template)?
        .into_iter()
        .find(|consumer| consumer.binary == binary)
        .ok_or_else(|| format!("template.yaml has no stream consumer {binary}").into())
}

/// Refuses filter operators this emulation does not implement, rather than misapplying them.
fn check_pattern(pattern: &Value) -> Result<(), Error> {
    match pattern {
        Value::Object(fields) => fields.values().try_for_each(check_pattern),
        Value::Array(rules) => rules.iter().try_for_each(|rule| match rule {
            Value::Object(op) => match op.keys().next().map(String::as_str) {
                Some("prefix" | "anything-but" | "exists") if op.len() == 1 => Ok(()),
                _ => Err(format!("unsupported filter rule {rule}").into()),
            },
            _ => Ok(()),
        }),
        other => Err(format!("a filter value must be an array or an object, not {other}").into()),
    }
}

/// Whether `record` (the event record's JSON) matches `pattern`, by Lambda's filter rules.
pub fn matches(pattern: &Value, record: &Value) -> bool {
    match pattern {
        Value::Object(fields) => fields.iter().all(|(name, sub)| {
            let value = record.get(name);
            match sub {
                Value::Object(_) => value.is_some_and(|v| matches(sub, v)),
                Value::Array(rules) => rules.iter().any(|rule| rule_matches(rule, value)),
                _ => false,
            }
        }),
        _ => false,
    }
}

fn rule_matches(rule: &Value, value: Option<&Value>) -> bool {
    match rule {
        Value::Object(op) => match op.iter().next() {
            Some((name, arg)) if name == "prefix" => value
                .and_then(Value::as_str)
                .zip(arg.as_str())
                .is_some_and(|(v, p)| v.starts_with(p)),
            Some((name, arg)) if name == "anything-but" => {
                let excluded = match arg {
                    Value::Array(list) => list.clone(),
                    one => vec![one.clone()],
                };
                value.is_some_and(|v| !excluded.contains(v))
            }
            Some((name, arg)) if name == "exists" => {
                value.is_some() == arg.as_bool().unwrap_or(true)
            }
            _ => false,
        },
        literal => value == Some(literal),
    }
}

/// How far a shard has been delivered.
#[derive(Debug, Default)]
struct Shard {
    iterator: Option<String>,
    closed: bool,
}

/// The stream of one table, read for one consumer.
pub struct StreamSource {
    db: Database,
    stream_arn: String,
    consumer: Consumer,
    shards: BTreeMap<String, Shard>,
    /// The last sequence number delivered per shard, kept in a file so `make dev` resumes.
    checkpoint: Option<PathBuf>,
    delivered: BTreeMap<String, String>,
    /// Set when no shard is known or one closed: only then is DescribeStream called (it reads
    /// every stream record in dynoxide 3.2, and the poller drains four times a second).
    discover: bool,
    describe_calls: usize,
}

/// What a drain did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Drained {
    pub batches: usize,
    pub records: usize,
    pub retries: usize,
    /// Records given up on after MaximumRetryAttempts (sent to the on-failure destination).
    pub abandoned: usize,
}

fn call<Req: serde::de::DeserializeOwned>(request: Value) -> Result<Req, Error> {
    Ok(serde_json::from_value(request)?)
}

impl StreamSource {
    /// The table's stream, for `consumer`, from the oldest record (or from `checkpoint`).
    pub fn open(
        db: &Database,
        table: &str,
        consumer: Consumer,
        checkpoint: Option<PathBuf>,
    ) -> Result<Self, Error> {
        let listed = serde_json::to_value(db.list_streams(call(json!({ "TableName": table }))?)?)?;
        let stream_arn = listed["Streams"][0]["StreamArn"]
            .as_str()
            .ok_or_else(|| format!("table {table} has no stream"))?
            .to_owned();
        let delivered = match &checkpoint {
            Some(path) if path.exists() => serde_json::from_str(&std::fs::read_to_string(path)?)?,
            _ => BTreeMap::new(),
        };
        Ok(Self {
            db: db.clone(),
            stream_arn,
            consumer,
            shards: BTreeMap::new(),
            checkpoint,
            delivered,
            discover: true,
            describe_calls: 0,
        })
    }

    /// How many times DescribeStream has been asked since `open`.
    pub fn describe_calls(&self) -> usize {
        self.describe_calls
    }

    fn discover_shards(&mut self) -> Result<(), Error> {
        if !self.discover && !self.shards.is_empty() {
            return Ok(());
        }
        self.discover = false;
        self.describe_calls += 1;
        let described = serde_json::to_value(
            self.db
                .describe_stream(call(json!({ "StreamArn": self.stream_arn }))?)?,
        )?;
        for shard in described["StreamDescription"]["Shards"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let Some(id) = shard["ShardId"].as_str() else {
                continue;
            };
            if self.shards.contains_key(id) {
                continue;
            }
            let start = match self.delivered.get(id) {
                Some(seq) => {
                    json!({"StreamArn": self.stream_arn, "ShardId": id, "ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": seq})
                }
                None => {
                    json!({"StreamArn": self.stream_arn, "ShardId": id, "ShardIteratorType": "TRIM_HORIZON"})
                }
            };
            let iterator = serde_json::to_value(self.db.get_shard_iterator(call(start)?)?)?;
            self.shards.insert(
                id.to_owned(),
                Shard {
                    iterator: iterator["ShardIterator"].as_str().map(str::to_owned),
                    closed: false,
                },
            );
        }
        Ok(())
    }

    /// The next records of a shard, as Lambda event records, with those the filters reject
    /// already dropped (Lambda drops them too, and moves past them); and how many records the
    /// shard gave, filtered or not (0: nothing more there now).
    fn read(&mut self, shard_id: &str) -> Result<(Vec<EventRecord>, usize), Error> {
        let Some(shard) = self.shards.get_mut(shard_id) else {
            return Ok((Vec::new(), 0));
        };
        let Some(iterator) = shard.iterator.take() else {
            shard.closed = true;
            return Ok((Vec::new(), 0));
        };
        let out = serde_json::to_value(self.db.get_records(call(json!({
            "ShardIterator": iterator,
            "Limit": self.consumer.batch_size,
        }))?)?)?;
        shard.iterator = out["NextShardIterator"].as_str().map(str::to_owned);
        let mut records = Vec::new();
        let raw_records = out["Records"].as_array().cloned().unwrap_or_default();
        let given = raw_records.len();
        for mut raw in raw_records {
            raw["eventSourceARN"] = json!(self.stream_arn);
            let wanted = self.consumer.filters.is_empty()
                || self.consumer.filters.iter().any(|f| matches(f, &raw));
            if let Some(seq) = raw["dynamodb"]["SequenceNumber"].as_str() {
                self.delivered.insert(shard_id.to_owned(), seq.to_owned());
            }
            if wanted {
                records.push(serde_json::from_value(raw)?);
            }
        }
        Ok((records, given))
    }

    /// Every record there is now, filtered, in stream order (shard by shard), without
    /// delivering anything: for tests that deliver batches their own way.
    pub fn read_all(&mut self) -> Result<Vec<EventRecord>, Error> {
        self.discover_shards()?;
        let ids: Vec<String> = self.shards.keys().cloned().collect();
        let mut all = Vec::new();
        for id in ids {
            loop {
                let (records, given) = self.read(&id)?;
                if given == 0 {
                    break;
                }
                all.extend(records);
            }
        }
        Ok(all)
    }

    /// Delivers everything there is now to `handler`, batch by batch, retrying each from the
    /// first record it reports.
    pub async fn drain<F, Fut>(&mut self, mut handler: F) -> Result<Drained, Error>
    where
        F: FnMut(Event) -> Fut,
        Fut: Future<Output = DynamoDbEventResponse>,
    {
        self.discover_shards()?;
        let mut drained = Drained::default();
        let ids: Vec<String> = self.shards.keys().cloned().collect();
        for id in ids {
            loop {
                let (mut batch, given) = self.read(&id)?;
                if given == 0 {
                    break;
                }
                if batch.is_empty() {
                    continue;
                }
                drained.batches += 1;
                drained.records += batch.len();
                let mut attempts = 0;
                loop {
                    let mut event = Event::default();
                    event.records = batch.clone();
                    let response = handler(event).await;
                    let Some(first) = first_failed(&batch, &response) else {
                        break;
                    };
                    if attempts == self.consumer.max_retries {
                        drained.abandoned += batch.len() - first;
                        tracing::error!(
                            function = %self.consumer.function,
                            records = batch.len() - first,
                            first_sequence_number = batch[first].change.sequence_number.as_deref().unwrap_or("?"),
                            "retries exhausted; the records go to the on-failure destination"
                        );
                        break;
                    }
                    attempts += 1;
                    drained.retries += 1;
                    batch.drain(..first);
                }
            }
        }
        let before = self.shards.len();
        self.shards.retain(|_, shard| !shard.closed);
        // A closed shard has children to find.
        self.discover |= self.shards.len() < before;
        self.save_checkpoint()?;
        Ok(drained)
    }

    fn save_checkpoint(&self) -> Result<(), Error> {
        if let Some(path) = &self.checkpoint {
            crate::files::replace(
                path,
                serde_json::to_string(&self.delivered)?.as_bytes(),
                false,
            )?;
        }
        Ok(())
    }
}

/// The position in `batch` of the lowest sequence number `response` reports, if any.
fn first_failed(batch: &[EventRecord], response: &DynamoDbEventResponse) -> Option<usize> {
    let reported: Vec<&str> = response
        .batch_item_failures
        .iter()
        .filter_map(|f| f.item_identifier.as_deref())
        .collect();
    if reported.is_empty() {
        return None;
    }
    // A reported identifier that names no record of the batch fails the whole batch, as in Lambda.
    batch
        .iter()
        .position(|r| {
            r.change
                .sequence_number
                .as_deref()
                .is_some_and(|s| reported.contains(&s))
        })
        .or(Some(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(event: &str, sk: &str) -> Value {
        json!({"eventName": event, "dynamodb": {"Keys": {"PK": {"S": "CUSTOMER#c1"}, "SK": {"S": sk}}}})
    }

    #[test]
    fn filters_follow_lambdas_rules() {
        let pattern = json!({"eventName": ["INSERT", "MODIFY"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "ORDER#"}]}}}});
        assert!(matches(
            &pattern,
            &record("INSERT", "ORDER#2026-10-08T14:30:00Z#o100")
        ));
        assert!(matches(&pattern, &record("MODIFY", "ORDER#x")));
        assert!(!matches(&pattern, &record("REMOVE", "ORDER#x")));
        assert!(!matches(&pattern, &record("MODIFY", "PROFILE")));
        assert!(!matches(&pattern, &json!({"eventName": "INSERT"})));
        let but = json!({"eventName": [{"anything-but": ["REMOVE"]}]});
        assert!(matches(&but, &record("INSERT", "x")));
        assert!(!matches(&but, &record("REMOVE", "x")));
        assert!(check_pattern(&json!({"a": [{"numeric": [">", 1]}]})).is_err());
    }

    #[test]
    fn the_templates_consumers_are_read_with_their_filters() {
        let template = crate::template::parse().expect("template");
        let binaries: Vec<String> = consumers(&template)
            .expect("consumers")
            .into_iter()
            .map(|c| c.binary)
            .collect();
        assert_eq!(binaries, ["order-stats", "publish-events"]);
        let c = &consumer(&template, "order-stats").expect("order-stats");
        assert!(!c.filters.is_empty());
        for event in ["INSERT", "MODIFY", "REMOVE"] {
            assert!(
                c.filters
                    .iter()
                    .any(|f| matches(f, &record(event, "ORDER#t#o1"))),
                "{event}"
            );
        }
        for (event, sk) in [
            ("INSERT", "PROFILE"),
            ("MODIFY", "PROFILE"),
            ("MODIFY", "HEADER"),
            ("INSERT", "ITEM#sku-1"),
            ("INSERT", "RESPONSE"),
            ("INSERT", "COUNTED#o1"),
            ("MODIFY", "COUNTED#o1"),
        ] {
            assert!(
                !c.filters.iter().any(|f| matches(f, &record(event, sk))),
                "{event} {sk}"
            );
        }
    }

    /// The publisher hears exactly the entities whose changes are events
    /// (`shared::dynamo::events::EVENTFUL`), inserted or modified: its filter is held to the
    /// key design, entity by entity.
    #[test]
    fn the_publisher_hears_exactly_the_entities_whose_changes_are_events() {
        use shared::dynamo::events::EVENTFUL;
        use shared::dynamo::keys::Entity;
        let template = crate::template::parse().expect("template");
        let publisher = consumer(&template, "publish-events").expect("the publisher");
        let keys = |entity: Entity| -> (String, String) {
            // Each variable part of a key shape written as `x1`; a fixed key as it is.
            let filled = |shape: &str| match shape.find('<') {
                Some(at) => format!("{}x1", &shape[..at]),
                None => shape.to_owned(),
            };
            let (pk, sk) = entity.keys();
            (filled(pk), filled(sk.split(',').next().unwrap_or_default()))
        };
        for entity in Entity::ALL {
            let (pk, sk) = keys(entity);
            assert_eq!(Entity::of(&pk, &sk), Some(entity), "{pk} {sk}");
            for event in ["INSERT", "MODIFY", "REMOVE"] {
                let record = json!({"eventName": event, "dynamodb": {"Keys": {"PK": {"S": pk}, "SK": {"S": sk}}}});
                let heard = publisher.filters.iter().any(|f| matches(f, &record));
                let eventful = EVENTFUL.contains(&entity) && event != "REMOVE";
                assert_eq!(heard, eventful, "{entity:?} {event} ({pk} {sk})");
            }
        }
    }
}
