//! template.yaml's stack around the functions: the table keeps its data and streams both
//! images, the consumer reports partial failures, every route is authorized and throttled, and
//! every function gets a status shard count the code accepts.

use serde_yaml::Value;
use template_tests as template;
use template_tests::functions;

#[test]
fn the_table_keeps_its_data_and_streams_both_images() {
    let template = template::parse().expect("template");
    let table = &template["Resources"]["AppTable"];
    assert_eq!(table["DeletionPolicy"].as_str(), Some("Retain"));
    assert_eq!(table["UpdateReplacePolicy"].as_str(), Some("Retain"));
    let props = &table["Properties"];
    assert_eq!(
        props["StreamSpecification"]["StreamViewType"].as_str(),
        Some("NEW_AND_OLD_IMAGES")
    );
    assert_eq!(
        props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"].as_bool(),
        Some(true)
    );
    assert_eq!(
        props["TimeToLiveSpecification"]["AttributeName"].as_str(),
        Some("expiresAt")
    );
    let globals = &template["Globals"]["Function"];
    assert_eq!(globals["Runtime"].as_str(), Some("provided.al2023"));
    assert_eq!(
        template["Parameters"]["Architecture"]["Default"].as_str(),
        Some("arm64")
    );
}

#[test]
fn the_stream_consumer_reports_partial_failures_and_keeps_what_it_gives_up_on() {
    let template = template::parse().expect("template");
    let events = &template["Resources"]["OrderStatsFunction"]["Properties"]["Events"];
    let stream = &events["Stream"]["Properties"];
    assert_eq!(
        stream["FunctionResponseTypes"][0].as_str(),
        Some("ReportBatchItemFailures")
    );
    assert_eq!(stream["BisectBatchOnFunctionError"].as_bool(), Some(true));
    assert!(stream["MaximumRetryAttempts"].as_u64().is_some());
    assert_eq!(
        stream["MaximumRecordAgeInSeconds"].as_u64(),
        Some(86_400),
        "the stream's own retention"
    );
    assert_eq!(
        stream["DestinationConfig"]["OnFailure"]["Type"].as_str(),
        Some("SQS")
    );
    assert!(
        stream["FilterCriteria"]["Filters"][0]["Pattern"]
            .as_str()
            .is_some()
    );
}

#[test]
fn every_route_is_behind_the_jwt_authorizer_and_throttled() {
    let template = template::parse().expect("template");
    let api = &template["Resources"]["HttpApi"]["Properties"];
    assert_eq!(api["Auth"]["DefaultAuthorizer"].as_str(), Some("StoreJwt"));
    let authorizer = &api["Auth"]["Authorizers"]["StoreJwt"];
    assert_eq!(
        authorizer["IdentitySource"].as_str(),
        Some("$request.header.Authorization")
    );
    for field in ["issuer", "audience"] {
        assert!(!authorizer["JwtConfiguration"][field].is_null(), "{field}");
    }
    for setting in ["ThrottlingBurstLimit", "ThrottlingRateLimit"] {
        assert!(!api["DefaultRouteSettings"][setting].is_null(), "{setting}");
    }
    let mut routes = 0;
    for (name, function) in functions(&template) {
        for event in function["Properties"]["Events"]
            .as_mapping()
            .expect("events")
            .values()
            .filter(|e| e["Type"].as_str() == Some("HttpApi"))
        {
            // A route's own Auth could opt out (Authorizer: NONE); only the route table's routes
            // that need no token do: the payment webhook, which its signature guards, and the
            // storefront's catalog reads.
            let key = format!(
                "{} {}",
                event["Properties"]["Method"]
                    .as_str()
                    .unwrap_or_default()
                    .to_ascii_uppercase(),
                event["Properties"]["Path"].as_str().unwrap_or_default()
            );
            let signed =
                shared::http::routes::find(&key).is_some_and(|r| r.admits.needs_no_token());
            if signed {
                assert_eq!(
                    event["Properties"]["Auth"]["Authorizer"].as_str(),
                    Some("NONE"),
                    "{name}"
                );
            } else {
                assert!(
                    event["Properties"]["Auth"].is_null(),
                    "{name} overrides the authorizer"
                );
            }
            routes += 1;
        }
    }
    assert_eq!(
        routes,
        shared::http::routes::ROUTES.len(),
        "every route of the route table"
    );
    // The staff group the functions look for is the one the pool defines.
    assert_eq!(
        template["Resources"]["StaffGroup"]["Properties"]["GroupName"].as_str(),
        Some(shared::domain::access::STAFF_GROUP)
    );
}

#[test]
fn every_function_gets_the_status_shard_count_the_code_accepts() {
    use shared::dynamo::keys::StatusShards;
    let template = template::parse().expect("template");
    let parameter = &template["Parameters"]["StatusShards"];
    assert_eq!(
        parameter["Default"].as_u64(),
        Some(1),
        "the source design's keys"
    );
    assert_eq!(parameter["MinValue"].as_u64(), Some(1));
    assert_eq!(
        parameter["MaxValue"].as_u64(),
        Some(u64::from(StatusShards::MAX))
    );
    let variable = &template["Globals"]["Function"]["Environment"]["Variables"]["STATUS_SHARDS"];
    match variable {
        Value::Tagged(tagged) => {
            assert_eq!(tagged.tag, "Ref");
            assert_eq!(tagged.value.as_str(), Some("StatusShards"));
        }
        other => panic!("STATUS_SHARDS is {other:?}, not !Ref StatusShards"),
    }
}

#[test]
fn gsi2_lists_line_items_under_their_product_projecting_only_what_the_listing_returns() {
    let template = template::parse().expect("template");
    let props = &template["Resources"]["AppTable"]["Properties"];
    let gsi2 = props["GlobalSecondaryIndexes"]
        .as_sequence()
        .expect("indexes")
        .iter()
        .find(|gsi| gsi["IndexName"].as_str() == Some(shared::dynamo::keys::GSI2))
        .expect("GSI2");
    let schema: Vec<(&str, &str)> = gsi2["KeySchema"]
        .as_sequence()
        .expect("schema")
        .iter()
        .map(|k| {
            (
                k["AttributeName"].as_str().unwrap_or(""),
                k["KeyType"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(schema, [("GSI2PK", "HASH"), ("GSI2SK", "RANGE")]);
    assert_eq!(
        gsi2["Projection"]["ProjectionType"].as_str(),
        Some("INCLUDE")
    );
    let projected: Vec<&str> = gsi2["Projection"]["NonKeyAttributes"]
        .as_sequence()
        .expect("attributes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    // Exactly what a product's order line is read from besides the keys.
    use shared::dynamo::entities::line_item;
    assert_eq!(
        projected,
        [
            line_item::CUSTOMER_ID.name,
            line_item::QUANTITY.name,
            line_item::PRICE.name
        ]
    );
    for attribute in ["GSI2PK", "GSI2SK"] {
        assert!(
            props["AttributeDefinitions"]
                .as_sequence()
                .expect("definitions")
                .iter()
                .any(|d| d["AttributeName"].as_str() == Some(attribute)
                    && d["AttributeType"].as_str() == Some("S")),
            "{attribute} is defined as a string"
        );
    }
}

#[test]
fn the_migration_policy_is_for_operators_and_the_only_grant_of_a_scan() {
    let template = template::parse().expect("template");
    let text = |v: &Value| serde_yaml::to_string(v).expect("yaml");
    let policy = &template["Resources"]["StoreMigrationPolicy"];
    assert_eq!(policy["Type"].as_str(), Some("AWS::IAM::ManagedPolicy"));
    let statements = policy["Properties"]["PolicyDocument"]["Statement"]
        .as_sequence()
        .expect("statements");
    // Writes: a line item's GSI2 keys and customer in ORDER#*, and the migration's own items.
    let update = statements
        .iter()
        .find(|s| actions(s) == ["dynamodb:UpdateItem"])
        .expect("the line items' update");
    assert!(text(&update["Condition"]).contains("ORDER#*"));
    let attributes: Vec<&str> =
        update["Condition"]["ForAllValues:StringEquals"]["dynamodb:Attributes"]
            .as_sequence()
            .expect("attributes")
            .iter()
            .filter_map(Value::as_str)
            .collect();
    assert_eq!(attributes, ["PK", "SK", "customerId", "GSI2PK", "GSI2SK"]);
    for statement in statements {
        let writes = actions(statement)
            .iter()
            .any(|a| a.contains("Put") || a.contains("Delete") || a.contains("Update"));
        if writes {
            assert!(
                !text(&statement["Condition"]).is_empty() && statement["Condition"].is_mapping(),
                "every write is conditioned: {statement:?}"
            );
        }
    }
    // No function may Scan: the policy is the one place.
    for (name, function) in functions(&template) {
        assert!(
            !text(&Value::Sequence(template::policy_statements(
                &template, function
            )))
            .contains("dynamodb:Scan"),
            "{name} may Scan"
        );
    }
    assert!(
        statements
            .iter()
            .any(|s| actions(s).contains(&"dynamodb:Scan".to_owned())),
        "the migration may Scan"
    );
}

/// A policy statement's actions, one or a list.
fn actions(statement: &Value) -> Vec<String> {
    match &statement["Action"] {
        Value::Sequence(list) => list
            .iter()
            .filter_map(|a| a.as_str().map(str::to_owned))
            .collect(),
        other => other.as_str().map(str::to_owned).into_iter().collect(),
    }
}

#[test]
fn the_operator_policy_reads_with_partiql_and_never_scans() {
    let template = template::parse().expect("template");
    let policy = &template["Resources"]["StoreOperatorPolicy"];
    assert_eq!(policy["Type"].as_str(), Some("AWS::IAM::ManagedPolicy"));
    let statements = policy["Properties"]["PolicyDocument"]["Statement"]
        .as_sequence()
        .expect("statements");
    let text = |v: &Value| serde_yaml::to_string(v).expect("yaml");
    let full_table_scan = |s: &Value| {
        s["Condition"]["Bool"]["dynamodb:FullTableScan"]
            .as_str()
            .map(str::to_owned)
    };
    for statement in statements {
        // SELECT only: no PartiQL write, no Query, no Scan.
        assert_eq!(
            actions(statement),
            ["dynamodb:PartiQLSelect"],
            "{statement:?}"
        );
        // The table and its indexes, nothing else.
        let resources = text(&statement["Resource"]);
        assert!(
            resources.contains("AppTable.Arn") && resources.contains("/index/*"),
            "{resources}"
        );
    }
    // Allowed only when not a scan; a scan denied whatever else allows it.
    let effects: Vec<(Option<&str>, Option<String>)> = statements
        .iter()
        .map(|s| (s["Effect"].as_str(), full_table_scan(s)))
        .collect();
    assert_eq!(
        effects,
        [
            (Some("Allow"), Some("false".to_owned())),
            (Some("Deny"), Some("true".to_owned()))
        ]
    );
    // An operator's grant, not a function's: no function may run PartiQL.
    for (name, function) in functions(&template) {
        assert!(
            !text(&Value::Sequence(template::policy_statements(
                &template, function
            )))
            .contains("PartiQL"),
            "{name} may run PartiQL"
        );
    }
    assert_eq!(
        template["Outputs"]["StoreOperatorPolicyArn"]["Value"],
        serde_yaml::from_str::<Value>("!Ref StoreOperatorPolicy").expect("yaml")
    );
}

#[test]
fn the_machine_client_signs_in_no_user() {
    let template = template::parse().expect("template");
    let client = &template["Resources"]["MachineClient"]["Properties"];
    let flows: Vec<&str> = client["ExplicitAuthFlows"]
        .as_sequence()
        .expect("explicit flows: without them Cognito enables user SRP and custom auth")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(flows, ["ALLOW_REFRESH_TOKEN_AUTH"]);
    let oauth: Vec<&str> = client["AllowedOAuthFlows"]
        .as_sequence()
        .expect("oauth flows")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(oauth, ["client_credentials"]);
}

#[test]
fn every_grant_on_the_table_or_an_index_is_held_to_its_partitions() {
    let template = template::parse().expect("template");
    for (name, function) in functions(&template) {
        for statement in &template::policy_statements(&template, function) {
            let resource = serde_yaml::to_string(&statement["Resource"]).expect("yaml");
            if !resource.contains("AppTable.Arn") {
                continue;
            }
            let condition = serde_yaml::to_string(&statement["Condition"]).expect("yaml");
            assert!(
                condition.contains("dynamodb:LeadingKeys"),
                "{name}: {resource} without dynamodb:LeadingKeys"
            );
        }
    }
}

#[test]
fn only_known_machine_clients_make_the_admin_scope_staff() {
    let template = template::parse().expect("template");
    let parameter = &template["Parameters"]["StaffClientIds"];
    assert_eq!(
        parameter["Default"].as_str(),
        Some(""),
        "by default: the stack's machine client"
    );
    // Every function is told which clients those are; by default the machine client, if any.
    let variable = serde_yaml::to_string(
        &template["Globals"]["Function"]["Environment"]["Variables"]["STAFF_CLIENT_IDS"],
    )
    .expect("yaml");
    for part in [
        "HasStaffClientIds",
        "StaffClientIds",
        "HasMachineClient",
        "MachineClient",
    ] {
        assert!(variable.contains(part), "STAFF_CLIENT_IDS: {variable}");
    }
}

#[test]
fn every_function_is_told_the_cap_on_open_orders() {
    let template = template::parse().expect("template");
    let parameter = &template["Parameters"]["MaxOpenOrders"];
    assert_eq!(parameter["Default"].as_u64(), Some(10));
    assert_eq!(parameter["MinValue"].as_u64(), Some(1));
    let variable = serde_yaml::to_string(
        &template["Globals"]["Function"]["Environment"]["Variables"]["MAX_OPEN_ORDERS"],
    )
    .expect("yaml");
    assert!(variable.contains("MaxOpenOrders"), "{variable}");
}

#[test]
fn the_functions_checkov_skips_are_one_list_whose_reasons_hold() {
    // .checkov.yaml skips four function checks once for every function, each with its reason;
    // a function of its own skips nothing (a copy per function is what the list replaced).
    let config =
        std::fs::read_to_string(format!("{}/../.checkov.yaml", env!("CARGO_MANIFEST_DIR")))
            .expect(".checkov.yaml");
    let parsed: Value = serde_yaml::from_str(&config).expect("yaml");
    let skipped: Vec<&str> = parsed["skip-check"]
        .as_sequence()
        .expect("skip-check")
        .iter()
        .map(|id| id.as_str().expect("an id"))
        .collect();
    assert_eq!(
        skipped,
        ["CKV_AWS_115", "CKV_AWS_116", "CKV_AWS_117", "CKV_AWS_173"]
    );
    for id in &skipped {
        assert!(
            config.contains(&format!("# {id}: ")),
            "{id} is skipped without its reason"
        );
    }
    let template = template::parse().expect("template");
    let all: Vec<(&str, &Value)> = functions(&template).collect();
    assert!(all.len() >= 20, "{} functions", all.len());
    for (name, function) in &all {
        assert!(
            function["Metadata"].get("checkov").is_none(),
            "{name} skips checks of its own: the functions' skips are .checkov.yaml's"
        );
        // CKV_AWS_173's reason: no variable holds a secret. A secret's variable is for sam
        // local only and empty; the deployed function reads the secret from Secrets Manager,
        // whose ID it is given instead.
        let variables = function["Properties"]["Environment"]["Variables"]
            .as_mapping()
            .cloned()
            .unwrap_or_default();
        for (variable, value) in &variables {
            let variable = variable.as_str().expect("a name");
            let secret = ["KEY", "SECRET", "PASSWORD", "TOKEN"]
                .iter()
                .any(|word| variable.ends_with(word));
            if secret {
                assert_eq!(
                    value.as_str(),
                    Some(""),
                    "{name}'s {variable} would hold a secret: read it from Secrets Manager"
                );
                let ids = [format!("{variable}_ID"), format!("{variable}_SECRET_ID")];
                assert!(
                    ids.iter().any(|id| variables.contains_key(id.as_str())),
                    "{name} has {variable} but neither of {ids:?}, the secret to read it from"
                );
            }
        }
    }
    // CKV_AWS_116's reason: nothing invokes a function asynchronously but a schedule, whose
    // runs make each other good (the API, the stream and the queue invoke synchronously).
    for (name, function) in &all {
        for (_, event) in function["Properties"]["Events"]
            .as_mapping()
            .into_iter()
            .flatten()
        {
            let kind = event["Type"].as_str().expect("an event type");
            assert!(
                ["HttpApi", "DynamoDB", "SQS", "Schedule"].contains(&kind),
                "{name} is invoked by {kind}: does .checkov.yaml's reason for CKV_AWS_116 still hold?"
            );
        }
    }
}

#[test]
fn every_function_is_granted_the_warm_up_once_through_the_one_policy() {
    let template = template::parse().expect("template");
    let warm_up = serde_yaml::from_str::<Value>("!Ref WarmUpPolicy").expect("yaml");
    let text = |v: &Value| serde_yaml::to_string(v).expect("yaml");
    for (name, function) in functions(&template) {
        let (inline, managed) = template::attached_policies(&template, function);
        let attached: Vec<&Value> = managed
            .into_iter()
            .filter(|policy| **policy == warm_up)
            .collect();
        assert_eq!(attached.len(), 1, "{name}");
        assert!(
            !text(&Value::Sequence(inline)).contains("WARMUP"),
            "{name} writes the warm-up grant again inline"
        );
    }
}
