//! template.yaml: each function holds only the DynamoDB permissions its access pattern uses.

use std::collections::BTreeMap;

use local_engine::template;
use serde_yaml::Value;

/// The statements of a function's policies: its inline `Policies`, or those of the role it
/// names.
fn statements(template: &Value, function: &Value) -> Vec<Value> {
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
    documents
        .iter()
        .flat_map(|policy| {
            policy["Statement"]
                .as_sequence()
                .unwrap_or_else(|| {
                    panic!("only inline policies, no SAM policy templates: {policy:?}")
                })
                .clone()
        })
        .collect()
}

/// Every IAM action a function's policies grant, with the resources they apply to.
fn grants(template: &Value, function: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for statement in statements(template, function) {
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
    out
}

fn functions(template: &Value) -> impl Iterator<Item = (&str, &Value)> {
    template["Resources"]
        .as_mapping()
        .expect("resources")
        .iter()
        .filter(|(_, r)| r["Type"].as_str() == Some("AWS::Serverless::Function"))
        .map(|(name, r)| (name.as_str().expect("name"), r))
}

#[test]
fn the_warm_up_grant_reads_the_reserved_key_and_nothing_else() {
    let template = template::parse().expect("template");
    let mut seen = 0;
    for (name, function) in functions(&template) {
        let warm_ups: Vec<Value> = statements(&template, function)
            .into_iter()
            .filter(|s| {
                s["Condition"]["ForAllValues:StringEquals"]["dynamodb:LeadingKeys"]
                    .as_sequence()
                    .is_some()
            })
            .collect();
        assert_eq!(warm_ups.len(), 1, "{name}");
        let grant = &warm_ups[0];
        assert_eq!(grant["Action"].as_str(), Some("dynamodb:GetItem"), "{name}");
        let keys = grant["Condition"]["ForAllValues:StringEquals"]["dynamodb:LeadingKeys"]
            .as_sequence()
            .expect("keys");
        assert_eq!(keys.len(), 1, "{name}");
        assert_eq!(
            keys[0].as_str(),
            Some(shared::dynamo::keys::warm_up::PK),
            "{name}"
        );
        seen += 1;
    }
    assert_eq!(seen, 9);
}

#[test]
fn functions_are_granted_only_the_requests_they_make() {
    let template = template::parse().expect("template");
    const TABLE: &str = "!GetAtt AppTable.Arn";
    const STREAM: &str = "!GetAtt AppTable.StreamArn";
    // Every function reads the reserved warm-up key at init (checked below).
    const WARM_UP: (&str, &str) = ("dynamodb:GetItem", TABLE);
    let expected: BTreeMap<&str, Vec<(&str, &str)>> = [
        (
            "GetCustomerFunction",
            vec![WARM_UP, ("dynamodb:GetItem", TABLE)],
        ),
        (
            "ListCustomerOrdersFunction",
            vec![WARM_UP, ("dynamodb:Query", TABLE)],
        ),
        (
            "GetOrderItemsFunction",
            vec![WARM_UP, ("dynamodb:Query", TABLE)],
        ),
        (
            "ListOrdersByStatusFunction",
            vec![
                WARM_UP,
                ("dynamodb:Query", "!Sub ${AppTable.Arn}/index/GSI1"),
            ],
        ),
        (
            "PutCustomerFunction",
            vec![WARM_UP, ("dynamodb:UpdateItem", TABLE)],
        ),
        (
            "PlaceOrderFunction",
            vec![
                WARM_UP,
                ("dynamodb:ConditionCheckItem", TABLE),
                ("dynamodb:PutItem", TABLE),
                ("dynamodb:GetItem", TABLE),
            ],
        ),
        ("GetOrderFunction", vec![WARM_UP, ("dynamodb:Query", TABLE)]),
        (
            "UpdateOrderStatusFunction",
            vec![
                WARM_UP,
                ("dynamodb:GetItem", TABLE),
                ("dynamodb:UpdateItem", TABLE),
            ],
        ),
        (
            "OrderStatsFunction",
            vec![
                WARM_UP,
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
    let mut seen = 0;
    for (name, resource) in functions(&template) {
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
        max_age < shared::dynamo::stats::MARKER_TTL_SECONDS,
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
