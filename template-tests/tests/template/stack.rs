//! template.yaml's stack around the functions: the table keeps its data and streams both
//! images, the consumer reports partial failures, every route is authorized and throttled, and
//! every function gets a status shard count the code accepts.

use serde_yaml::Value;
use template_tests as template;

fn functions(template: &Value) -> impl Iterator<Item = (&str, &Value)> {
    template_tests::resources_of(template, "AWS::Serverless::Function")
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
            // A route's own Auth could opt out (Authorizer: NONE); none may.
            assert!(
                event["Properties"]["Auth"].is_null(),
                "{name} overrides the authorizer"
            );
            routes += 1;
        }
    }
    assert_eq!(routes, 12);
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
