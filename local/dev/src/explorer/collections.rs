//! The table (or one of its indexes) as item collections: items grouped under their partition
//! key, in sort-key order, each named by its entity. The explorer reads the whole table to draw
//! it — a Scan, which is fine for `make dev`'s file and which the store itself never does.

use std::collections::{BTreeMap, HashMap};
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

/// `?view=<table|index>&prefix=<partition key prefix>&after=<partition key>`: a page of
/// partitions, and the indexes the table has.
pub(super) async fn collections(
    State(app): State<Arc<App>>,
    RawQuery(query): RawQuery,
) -> Response {
    let parameters = parameters(query.as_deref());
    let get = |name: &str| parameters.get(name).cloned().unwrap_or_default();
    match read(&app, &get("view"), &get("prefix"), &get("after")).await {
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

async fn read(app: &App, view: &str, prefix: &str, after: &str) -> Result<Value, String> {
    let views = views(app).await?;
    let chosen = views
        .iter()
        .find(|v| {
            v.index.as_deref().unwrap_or("table") == view || (view.is_empty() && v.index.is_none())
        })
        .ok_or_else(|| format!("the table has no index {view:?}"))?;
    let items = local_engine::scan_all(app.store.client(), app.store.table())
        .await
        .map_err(|err| format!("Scan: {err}"))?;
    let mut partitions: BTreeMap<String, Vec<&Item>> = BTreeMap::new();
    for item in &items {
        if let Some(pk) = item.get(&chosen.pk).and_then(|v| v.as_s().ok())
            && pk.starts_with(prefix)
        {
            partitions.entry(pk.clone()).or_default().push(item);
        }
    }
    let mut page = page(&mut partitions, chosen, after);
    page["views"] = views
        .iter()
        .map(|v| json!({"name": v.name(), "pk": v.pk, "sk": v.sk}))
        .collect();
    Ok(page)
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

/// The partitions after `after`, [`PARTITIONS`] of them, each in the view's sort-key order.
fn page(partitions: &mut BTreeMap<String, Vec<&Item>>, view: &View, after: &str) -> Value {
    let matching = partitions.len();
    let shown: Vec<Value> = partitions
        .iter_mut()
        .filter(|(pk, _)| after.is_empty() || pk.as_str() > after)
        .take(PARTITIONS)
        .map(|(pk, items)| {
            let text = |item: &Item, name: &str| {
                item.get(name).and_then(|v| v.as_s().ok()).cloned().unwrap_or_default()
            };
            items.sort_by_key(|item| (text(item, &view.sk), text(item, keys::PK), text(item, keys::SK)));
            json!({"key": pk, "items": items.iter().map(|item| drawn(item, view)).collect::<Vec<_>>()})
        })
        .collect();
    let next = (shown.len() == PARTITIONS)
        .then(|| {
            shown
                .last()
                .and_then(|p| p["key"].as_str())
                .map(str::to_owned)
        })
        .flatten()
        .filter(|last| partitions.keys().any(|pk| pk.as_str() > last.as_str()));
    json!({
        "view": view.name(),
        "partitionKey": view.pk,
        "sortKey": view.sk,
        "partitions": shown,
        "matching": matching,
        "next": next,
    })
}

/// One item for the page: its table keys, entity, and the attributes the view holds.
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
