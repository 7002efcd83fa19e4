//! template.yaml: each function holds only the DynamoDB permissions its access pattern uses.

use std::collections::BTreeMap;

use local_engine::template;
use serde_yaml::Value;

/// Every IAM action a function's policies grant, with the resources they apply to: its
/// inline `Policies`, or those of the role it names.
fn grants(template: &Value, function: &Value) -> Vec<(String, String)> {
    let documents: Vec<Value> = match &function["Properties"]["Role"] {
        Value::Null => function["Properties"]["Policies"]
            .as_sequence()
            .expect("Policies")
            .clone(),
        role => {
            let role = serde_yaml::to_string(role).expect("role");
            let name = role
                .trim()
                .trim_start_matches("!GetAtt ")
                .trim_end_matches(".Arn")
                .to_owned();
            template["Resources"][name.as_str()]["Properties"]["Policies"]
                .as_sequence()
                .expect("role policies")
                .iter()
                .map(|p| p["PolicyDocument"].clone())
                .collect()
        }
    };
    let mut out = Vec::new();
    for policy in &documents {
        let statements = policy["Statement"]
            .as_sequence()
            .unwrap_or_else(|| panic!("only inline policies, no SAM policy templates: {policy:?}"));
        for statement in statements {
            assert_eq!(statement["Effect"].as_str(), Some("Allow"));
            let actions = match &statement["Action"] {
                Value::String(one) => vec![one.clone()],
                Value::Sequence(many) => many
                    .iter()
                    .filter_map(|a| a.as_str().map(str::to_owned))
                    .collect(),
                other => panic!("Action {other:?}"),
            };
            let resource = serde_yaml::to_string(&statement["Resource"]).expect("resource");
            for action in actions {
                out.push((action, resource.trim().to_owned()));
            }
        }
    }
    out
}

#[test]
fn functions_are_granted_only_the_requests_they_make() {
    let template = template::parse().expect("template");
    const TABLE: &str = "!GetAtt AppTable.Arn";
    const STREAM: &str = "!GetAtt AppTable.StreamArn";
    let expected: BTreeMap<&str, Vec<(&str, &str)>> = [
        ("GetCustomerFunction", vec![("dynamodb:GetItem", TABLE)]),
        (
            "ListCustomerOrdersFunction",
            vec![("dynamodb:Query", TABLE)],
        ),
        ("GetOrderItemsFunction", vec![("dynamodb:Query", TABLE)]),
        (
            "ListOrdersByStatusFunction",
            vec![("dynamodb:Query", "!Sub ${AppTable.Arn}/index/GSI1")],
        ),
        ("PutCustomerFunction", vec![("dynamodb:UpdateItem", TABLE)]),
        (
            "PlaceOrderFunction",
            vec![
                ("dynamodb:ConditionCheckItem", TABLE),
                ("dynamodb:PutItem", TABLE),
                ("dynamodb:GetItem", TABLE),
            ],
        ),
        ("GetOrderFunction", vec![("dynamodb:Query", TABLE)]),
        (
            "UpdateOrderStatusFunction",
            vec![("dynamodb:GetItem", TABLE), ("dynamodb:UpdateItem", TABLE)],
        ),
        (
            "OrderStatsFunction",
            vec![
                ("dynamodb:DescribeStream", STREAM),
                ("dynamodb:GetRecords", STREAM),
                ("dynamodb:GetShardIterator", STREAM),
                ("dynamodb:ListStreams", STREAM),
                ("dynamodb:UpdateItem", TABLE),
                ("dynamodb:PutItem", TABLE),
                ("sqs:SendMessage", "!GetAtt OrderStatsFailureQueue.Arn"),
                ("logs:CreateLogStream", "!GetAtt OrderStatsLogGroup.Arn"),
                ("logs:PutLogEvents", "!GetAtt OrderStatsLogGroup.Arn"),
            ],
        ),
    ]
    .into();
    let resources = template["Resources"].as_mapping().expect("resources");
    let mut seen = 0;
    for (name, resource) in resources {
        if resource["Type"].as_str() != Some("AWS::Serverless::Function") {
            continue;
        }
        let name = name.as_str().expect("name");
        let Some(want) = expected.get(name) else {
            panic!("{name} has no expected permissions in this test");
        };
        let grants = grants(&template, resource);
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, r)| (a.to_string(), r.to_string()))
            .collect();
        assert_eq!(grants, want, "{name}");
        for (action, resource) in &grants {
            assert!(
                !action.contains('*') && !resource.contains('*'),
                "{name}: wildcard"
            );
            assert_ne!(action, "dynamodb:Scan", "{name}");
        }
        seen += 1;
    }
    assert_eq!(seen, expected.len());
}

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
    let max_age = stream["MaximumRecordAgeInSeconds"]
        .as_u64()
        .expect("max age");
    assert!(
        max_age < shared::stats::MARKER_TTL_SECONDS,
        "markers outlive every redelivery"
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
