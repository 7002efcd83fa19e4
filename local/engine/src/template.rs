//! The table as template.yaml defines it: one schema for AWS and for the local engine.

use dynoxide::Database;
use serde_json::{Value, json};

use crate::Error;

/// template.yaml, as compiled in.
pub const TEMPLATE: &str = include_str!("../../../template.yaml");

/// The parsed template (CloudFormation tags such as `!Ref` stay tagged values).
pub fn parse() -> Result<serde_yaml::Value, Error> {
    Ok(serde_yaml::from_str(TEMPLATE)?)
}

/// The Cargo binary of every function in `template` (`Metadata.BuildProperties.Binary`), in
/// the template's order.
pub fn binaries(template: &serde_yaml::Value) -> Result<Vec<String>, Error> {
    let resources = template["Resources"].as_mapping().ok_or("no Resources")?;
    resources
        .iter()
        .filter(|(_, r)| r["Type"].as_str() == Some("AWS::Serverless::Function"))
        .map(|(name, r)| {
            r["Metadata"]["BuildProperties"]["Binary"]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("{name:?}: no Metadata.BuildProperties.Binary").into())
        })
        .collect()
}

/// The CreateTable request for `AppTable`'s properties, and its TTL attribute if it has one.
pub fn table_requests(table_name: &str) -> Result<(Value, Option<Value>), Error> {
    let template = parse()?;
    let props: Value = serde_json::to_value(&template["Resources"]["AppTable"]["Properties"])?;
    if props.is_null() {
        return Err("template.yaml defines no AppTable properties".into());
    }
    let mut create = json!({ "TableName": table_name });
    for field in [
        "AttributeDefinitions",
        "KeySchema",
        "GlobalSecondaryIndexes",
        "LocalSecondaryIndexes",
        "BillingMode",
        "ProvisionedThroughput",
    ] {
        if let Some(value) = props.get(field) {
            create[field] = value.clone();
        }
    }
    if let Some(view) = props.pointer("/StreamSpecification/StreamViewType") {
        create["StreamSpecification"] = json!({ "StreamEnabled": true, "StreamViewType": view });
    }
    let ttl = props
        .get("TimeToLiveSpecification")
        .map(|spec| json!({ "TableName": table_name, "TimeToLiveSpecification": spec }));
    Ok((create, ttl))
}

/// Creates the table unless it exists; says whether it did. A table that exists gets the
/// indexes the template has added since it was created ([`add_missing_indexes`]).
pub fn create_table(db: &Database, table_name: &str) -> Result<bool, Error> {
    match db.describe_table(serde_json::from_value(json!({ "TableName": table_name }))?) {
        Ok(_) => {
            for index in add_missing_indexes(db, table_name)? {
                tracing::info!(%index, "index added to the existing table, as a deploy adds it");
            }
            return Ok(false);
        }
        Err(dynoxide::DynoxideError::ResourceNotFoundException(_)) => {}
        Err(err) => return Err(err.into()),
    }
    let (create, ttl) = table_requests(table_name)?;
    db.create_table(serde_json::from_value(create)?)?;
    if let Some(ttl) = ttl {
        db.update_time_to_live(serde_json::from_value(ttl)?)?;
    }
    Ok(true)
}

/// Adds to an existing table each global secondary index the template defines and it lacks,
/// one UpdateTable each, as CloudFormation does on a deploy (the engine, like DynamoDB, fills
/// the new index from the items already there). Returns the indexes added.
pub fn add_missing_indexes(db: &Database, table_name: &str) -> Result<Vec<String>, Error> {
    let described =
        db.describe_table(serde_json::from_value(json!({ "TableName": table_name }))?)?;
    let described = serde_json::to_value(&described)?;
    let present: Vec<&str> = described
        .pointer("/Table/GlobalSecondaryIndexes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|gsi| gsi["IndexName"].as_str())
        .collect();
    let (create, _) = table_requests(table_name)?;
    let mut added = Vec::new();
    for gsi in create["GlobalSecondaryIndexes"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let Some(name) = gsi["IndexName"].as_str() else {
            continue;
        };
        if present.contains(&name) {
            continue;
        }
        let update = json!({
            "TableName": table_name,
            "AttributeDefinitions": create["AttributeDefinitions"],
            "GlobalSecondaryIndexUpdates": [{"Create": {
                "IndexName": name,
                "KeySchema": gsi["KeySchema"],
                "Projection": gsi["Projection"],
            }}],
        });
        db.update_table(serde_json::from_value(update)?)?;
        added.push(name.to_owned());
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_table_is_template_yamls_table() {
        let (create, ttl) = table_requests("AppTable").expect("template parses");
        assert_eq!(create["KeySchema"][0]["AttributeName"], "PK");
        assert_eq!(create["KeySchema"][1]["AttributeName"], "SK");
        assert_eq!(create["GlobalSecondaryIndexes"][0]["IndexName"], "GSI1");
        assert_eq!(
            create["GlobalSecondaryIndexes"][0]["Projection"]["ProjectionType"],
            "ALL"
        );
        assert_eq!(create["BillingMode"], "PAY_PER_REQUEST");
        assert_eq!(
            create["StreamSpecification"]["StreamViewType"],
            "NEW_AND_OLD_IMAGES"
        );
        let ttl = ttl.expect("TTL is defined");
        assert_eq!(ttl["TimeToLiveSpecification"]["AttributeName"], "expiresAt");
    }

    #[test]
    fn an_index_the_template_added_is_added_to_an_existing_table() {
        let db = Database::memory().expect("engine");
        let (mut create, _) = table_requests("AppTable").expect("template parses");
        // The table as it was before GSI2 and GSI3.
        if let Some(gsis) = create["GlobalSecondaryIndexes"].as_array_mut() {
            gsis.retain(|gsi| gsi["IndexName"] == "GSI1");
        }
        if let Some(attributes) = create["AttributeDefinitions"].as_array_mut() {
            attributes.retain(|a| {
                !a["AttributeName"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("GSI2") || n.starts_with("GSI3"))
            });
        }
        db.create_table(serde_json::from_value(create).expect("request"))
            .expect("created");
        assert_eq!(
            add_missing_indexes(&db, "AppTable").expect("updated"),
            ["GSI2", "GSI3"]
        );
        assert!(
            add_missing_indexes(&db, "AppTable")
                .expect("checked")
                .is_empty()
        );
        assert!(!create_table(&db, "AppTable").expect("exists"));
    }

    #[test]
    fn creating_the_table_twice_keeps_the_first() {
        let db = Database::memory().expect("engine");
        assert!(create_table(&db, "AppTable").expect("created"));
        assert!(!create_table(&db, "AppTable").expect("exists"));
    }
}
