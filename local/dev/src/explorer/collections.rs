//! The table (or one of its indexes) as item collections: items grouped under their partition
//! key, in sort-key order, each named by its entity. A page is a stretch of a Scan (of the table,
//! or of the index), in the engine's order, which keeps each partition's items together: it
//! reads until it holds [`PARTITIONS`] whole partitions, and never more than [`SCAN_BUDGET`]
//! items, then hands back where it stopped as the cursor. The store itself never scans.

use std::collections::HashMap;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};
use shared::dynamo::keys::{self, Entity};

use super::{json_response, parameters};
use crate::state::App;

type Item = HashMap<String, AttributeValue>;

/// Partitions a page shows.
const PARTITIONS: usize = 8;

/// A view: the table, or an index with its key attributes and what it projects.
struct View {
    index: Option<String>,
    pk: String,
    sk: String,
    /// `None`: every attribute.
    projected: Option<Vec<String>>,
}

/// Items one request reads at most, whatever the table holds.
const SCAN_BUDGET: usize = 1_000;

/// Items a Scan request of a page asks for.
const SCAN_PAGE: i32 = 250;

/// `?view=<table|index>&prefix=<partition key prefix>&cursor=<where the last page stopped>`: a
/// page of partitions, and the indexes the table has.
pub(super) async fn collections(
    State(app): State<Arc<App>>,
    RawQuery(query): RawQuery,
) -> Response {
    let parameters = parameters(query.as_deref());
    let get = |name: &str| parameters.get(name).cloned().unwrap_or_default();
    match read(&app, &get("view"), &get("prefix"), &get("cursor")).await {
        Ok(page) => json_response(StatusCode::OK, page),
        Err(err) => {
            tracing::warn!(error = %err, "explorer: the table could not be read");
            json_response(
                StatusCode::BAD_REQUEST,
                json!({"title": "The table could not be read", "detail": err}),
            )
        }
    }
}

async fn read(app: &App, view: &str, prefix: &str, cursor: &str) -> Result<Value, String> {
    let views = views(app).await?;
    let chosen = views
        .iter()
        .find(|v| {
            v.index.as_deref().unwrap_or("table") == view || (view.is_empty() && v.index.is_none())
        })
        .ok_or_else(|| format!("the table has no index {view:?}"))?;
    let start = decode_cursor(cursor)?;
    let stretch = scan_stretch(app, chosen, prefix, start).await?;
    let mut page = page(stretch.partitions, chosen);
    page["next"] = stretch.next.as_ref().map(encode_cursor).into();
    page["scanned"] = stretch.scanned.into();
    page["budget"] = SCAN_BUDGET.into();
    page["views"] = views
        .iter()
        .map(|v| json!({"name": v.name(), "pk": v.pk, "sk": v.sk}))
        .collect();
    Ok(page)
}

/// What one page's Scan read.
struct Stretch {
    /// The partitions whose key starts with the prefix, in Scan order, each with its items.
    partitions: Vec<(String, Vec<Item>)>,
    /// Where the next page starts: the key of the last item this one stands on.
    next: Option<Item>,
    scanned: usize,
}

/// Scans `view` from `start` until [`PARTITIONS`] matching partitions are whole (the next one
/// has begun), the budget is spent, or the view ends.
async fn scan_stretch(
    app: &App,
    view: &View,
    prefix: &str,
    mut start: Option<Item>,
) -> Result<Stretch, String> {
    let mut stretch = Stretch {
        partitions: Vec::new(),
        next: None,
        scanned: 0,
    };
    // The partition being read.
    let mut current: Option<(String, Vec<Item>)> = None;
    loop {
        let out = app
            .store
            .client()
            .scan()
            .table_name(app.store.table())
            .set_index_name(view.index.clone())
            .limit(SCAN_PAGE)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .map_err(|err| {
                format!(
                    "Scan: {}",
                    aws_sdk_dynamodb::error::DisplayErrorContext(err)
                )
            })?;
        for item in out.items.unwrap_or_default() {
            let pk = item
                .get(&view.pk)
                .and_then(|v| v.as_s().ok())
                .cloned()
                .unwrap_or_default();
            if current.as_ref().is_some_and(|(key, _)| *key != pk) {
                let (key, items) = current.take().unwrap_or_default();
                let last = items.last().map(|i| key_of(i, view));
                if key.starts_with(prefix) {
                    stretch.partitions.push((key, items));
                }
                if stretch.partitions.len() == PARTITIONS {
                    stretch.next = last;
                    return Ok(stretch);
                }
            }
            stretch.scanned += 1;
            current.get_or_insert_with(|| (pk, Vec::new())).1.push(item);
        }
        start = out.last_evaluated_key.filter(|key| !key.is_empty());
        if start.is_none() || stretch.scanned >= SCAN_BUDGET {
            // The budget spent: the partition read so far is shown, and the next page goes on
            // from its last item.
            if let Some((key, items)) = current.take() {
                stretch.next = start
                    .is_some()
                    .then(|| items.last().map(|i| key_of(i, view)))
                    .flatten();
                if key.starts_with(prefix) {
                    stretch.partitions.push((key, items));
                }
            }
            return Ok(stretch);
        }
    }
}

/// `item`'s key in `view`: the view's key attributes and the table's.
fn key_of(item: &Item, view: &View) -> Item {
    [keys::PK, keys::SK, view.pk.as_str(), view.sk.as_str()]
        .into_iter()
        .filter_map(|name| item.get(name).map(|v| (name.to_owned(), v.clone())))
        .collect()
}

/// A key as the page's cursor: its attributes as JSON, `{"PK": {"S": "…"}, …}`.
fn encode_cursor(key: &Item) -> String {
    let attributes: serde_json::Map<String, Value> = key
        .iter()
        .filter_map(|(name, value)| {
            let typed = match value {
                AttributeValue::S(s) => json!({"S": s}),
                AttributeValue::N(n) => json!({"N": n}),
                _ => return None,
            };
            Some((name.clone(), typed))
        })
        .collect();
    Value::Object(attributes).to_string()
}

fn decode_cursor(cursor: &str) -> Result<Option<Item>, String> {
    if cursor.is_empty() {
        return Ok(None);
    }
    let invalid = || "the cursor is not one this explorer handed out".to_owned();
    let parsed: serde_json::Map<String, Value> =
        serde_json::from_str(cursor).map_err(|_| invalid())?;
    let mut key = Item::new();
    for (name, typed) in parsed {
        let value = match (typed["S"].as_str(), typed["N"].as_str()) {
            (Some(s), None) => AttributeValue::S(s.to_owned()),
            (None, Some(n)) => AttributeValue::N(n.to_owned()),
            _ => return Err(invalid()),
        };
        key.insert(name, value);
    }
    Ok(Some(key))
}

impl View {
    fn name(&self) -> String {
        self.index.clone().unwrap_or_else(|| "table".into())
    }
}

/// The table and each of its global secondary indexes, as DescribeTable has them.
async fn views(app: &App) -> Result<Vec<View>, String> {
    let described = app
        .store
        .client()
        .describe_table()
        .table_name(app.store.table())
        .send()
        .await
        .map_err(|err| format!("DescribeTable: {err}"))?;
    let description = described.table().ok_or("DescribeTable said nothing")?;
    let mut views = vec![View {
        index: None,
        pk: keys::PK.into(),
        sk: keys::SK.into(),
        projected: None,
    }];
    for index in description.global_secondary_indexes() {
        let key = |kind: &str| {
            index
                .key_schema()
                .iter()
                .find(|k| k.key_type().as_str() == kind)
                .map(|k| k.attribute_name().to_owned())
                .unwrap_or_default()
        };
        let projection = index.projection();
        let projected = match projection
            .and_then(|p| p.projection_type())
            .map(|t| t.as_str())
        {
            Some("ALL") => None,
            _ => Some(
                projection
                    .map(|p| p.non_key_attributes().to_vec())
                    .unwrap_or_default(),
            ),
        };
        views.push(View {
            index: index.index_name().map(str::to_owned),
            pk: key("HASH"),
            sk: key("RANGE"),
            projected,
        });
    }
    Ok(views)
}

/// The page's partitions, each in the view's sort-key order.
fn page(mut partitions: Vec<(String, Vec<Item>)>, view: &View) -> Value {
    let shown: Vec<Value> = partitions
        .iter_mut()
        .map(|(pk, items)| {
            let text = |item: &Item, name: &str| {
                item.get(name).and_then(|v| v.as_s().ok()).cloned().unwrap_or_default()
            };
            items.sort_by_key(|item| (text(item, &view.sk), text(item, keys::PK), text(item, keys::SK)));
            json!({"key": pk, "items": items.iter().map(|item| drawn(item, view)).collect::<Vec<_>>()})
        })
        .collect();
    json!({
        "view": view.name(),
        "partitionKey": view.pk,
        "sortKey": view.sk,
        "partitions": shown,
    })
}

fn drawn(item: &Item, view: &View) -> Value {
    let text = |name: &str| {
        item.get(name)
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default()
    };
    let (pk, sk) = (text(keys::PK), text(keys::SK));
    let entity = Entity::of(&pk, &sk);
    let holds = |name: &str| {
        [keys::PK, keys::SK, view.pk.as_str(), view.sk.as_str()].contains(&name)
            || view
                .projected
                .as_ref()
                .is_none_or(|p| p.iter().any(|a| a == name))
    };
    let mut names: Vec<&String> = item.keys().filter(|name| holds(name)).collect();
    names.sort();
    let attributes: serde_json::Map<String, Value> = names
        .into_iter()
        .map(|name| (name.clone(), Value::String(shown(&item[name]))))
        .collect();
    json!({
        "pk": pk,
        "sk": sk,
        "entity": entity.map(Entity::name),
        "sourceDesign": entity.is_some_and(Entity::from_source_design),
        "indexKey": [text(&view.pk), text(&view.sk)],
        "attributes": attributes,
    })
}

/// A value as the page shows it: strings and numbers as written, the rest in DynamoDB's types.
fn shown(value: &AttributeValue) -> String {
    match value {
        AttributeValue::S(text) => text.clone(),
        AttributeValue::N(number) => number.clone(),
        AttributeValue::Bool(flag) => flag.to_string(),
        AttributeValue::Null(_) => "null".into(),
        AttributeValue::L(list) => format!(
            "[{}]",
            list.iter().map(shown).collect::<Vec<_>>().join(", ")
        ),
        AttributeValue::M(map) => {
            let mut entries: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}: {}", shown(v)))
                .collect();
            entries.sort();
            format!("{{{}}}", entries.join(", "))
        }
        AttributeValue::Ss(set) | AttributeValue::Ns(set) => format!("<<{}>>", set.join(", ")),
        AttributeValue::B(blob) => format!("<{} bytes>", blob.as_ref().len()),
        AttributeValue::Bs(blobs) => format!("<<{} binary values>>", blobs.len()),
        _ => "?".into(),
    }
}
