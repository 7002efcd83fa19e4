//! template.yaml for whoever runs the store: alarms on what can go wrong, each notifying the
//! optional topic, traces, API access logs and a dashboard of the functions' own metrics.

use serde_yaml::Value;
use shared::metrics::{Metric, NAMESPACE};
use template_tests as template;

fn yaml(value: &Value) -> String {
    serde_yaml::to_string(value).expect("yaml")
}

fn alarms(template: &Value) -> Vec<(String, &Value)> {
    template_tests::resources_of(template, "AWS::CloudWatch::Alarm")
        .map(|(name, r)| (name.to_owned(), r))
        .collect()
}

/// The metrics an alarm reads: `(namespace, name, dimension values)`, from its metric math or
/// its single metric.
fn alarm_metrics(alarm: &Value) -> Vec<(String, String, String)> {
    let p = &alarm["Properties"];
    let one = |namespace: &Value, name: &Value, dimensions: &Value| {
        (
            namespace.as_str().unwrap_or_default().to_owned(),
            name.as_str().unwrap_or_default().to_owned(),
            yaml(dimensions),
        )
    };
    match p["Metrics"].as_sequence() {
        Some(metrics) => metrics
            .iter()
            .filter(|m| !m["MetricStat"].is_null())
            .map(|m| {
                let metric = &m["MetricStat"]["Metric"];
                one(
                    &metric["Namespace"],
                    &metric["MetricName"],
                    &metric["Dimensions"],
                )
            })
            .collect(),
        None => vec![one(&p["Namespace"], &p["MetricName"], &p["Dimensions"])],
    }
}

#[test]
fn every_alarm_notifies_the_optional_topic_when_it_fires_and_when_it_clears() {
    let template = template::parse().expect("template");
    assert_eq!(
        template["Parameters"]["AlarmTopicArn"]["Default"].as_str(),
        Some(""),
        "the topic is optional"
    );
    let alarms = alarms(&template);
    assert!(alarms.len() >= 17, "{} alarms", alarms.len());
    for (name, alarm) in alarms {
        for actions in ["AlarmActions", "OKActions"] {
            let text = yaml(&alarm["Properties"][actions]);
            assert!(
                text.contains("HasAlarmTopic") && text.contains("AlarmTopicArn"),
                "{name}.{actions}: {text}"
            );
        }
        assert_eq!(
            alarm["Properties"]["TreatMissingData"].as_str(),
            Some("notBreaching"),
            "{name}: no data is no failure"
        );
    }
}

#[test]
fn the_templates_generated_functions_roles_and_alarms_are_current() {
    // Written by `make template` from the declarations (template_tests::generated): a function
    // declared, changed or removed without running it fails here, before CloudFormation.
    let text = local_engine::template::TEMPLATE;
    let written = template_tests::generated::regenerate(text).expect("the generated part");
    assert!(
        written == text,
        "template.yaml's generated part is not current: run `make template`"
    );
}

#[test]
fn every_function_has_an_alarm_on_its_errors_and_throttles() {
    let template = template::parse().expect("template");
    let functions: Vec<&str> = template_tests::functions(&template)
        .map(|(name, _)| name)
        .collect();
    // One function per binary of the route table, and the stream consumer.
    let mut binaries: Vec<&str> = shared::http::routes::ROUTES
        .iter()
        .map(|r| r.binary)
        .collect();
    binaries.sort();
    binaries.dedup();
    // ...and the holds' expiry and the refunds payer, on their schedules; the event publisher,
    // on the stream; the customers' emails and the pictures' check, on their queues.
    assert_eq!(functions.len(), binaries.len() + 6);
    let alarms = alarms(&template);
    for function in functions {
        let watching: Vec<(String, String)> = alarms
            .iter()
            .flat_map(|(name, alarm)| {
                alarm_metrics(alarm)
                    .into_iter()
                    .filter(|(namespace, _, dimensions)| {
                        namespace == "AWS/Lambda"
                            && dimensions.contains(&format!("!Ref {function}\n"))
                    })
                    .map(|(_, metric, _)| (name.clone(), metric))
                    .collect::<Vec<_>>()
            })
            .collect();
        for metric in ["Errors", "Throttles"] {
            assert!(
                watching.iter().any(|(_, m)| m == metric),
                "{function}: no alarm on its {metric} ({watching:?})"
            );
        }
    }
}

#[test]
fn the_api_the_stream_the_failure_queue_and_the_table_are_watched() {
    let template = template::parse().expect("template");
    let watched: Vec<(String, String, String)> = alarms(&template)
        .iter()
        .flat_map(|(_, alarm)| alarm_metrics(alarm))
        .collect();
    let has = |namespace: &str, metric: &str, dimension: &str| {
        watched
            .iter()
            .any(|(n, m, d)| n == namespace && m == metric && d.contains(dimension))
    };
    assert!(has("AWS/ApiGateway", "5xx", "HttpApi"));
    assert!(has("AWS/ApiGateway", "Count", "HttpApi"), "5xx as a rate");
    for consumer in ["OrderStatsFunction", "PublishEventsFunction"] {
        assert!(has("AWS/Lambda", "IteratorAge", consumer), "{consumer}");
    }
    for queue in [
        "OrderStatsFailureQueue",
        "PublishEventsFailureQueue",
        "CustomerEmailDeadLetterQueue",
    ] {
        assert!(
            has(
                "AWS/SQS",
                "ApproximateNumberOfMessagesVisible",
                &format!("{queue}.QueueName")
            ),
            "{queue}"
        );
    }
    for metric in ["EventEntriesFailed", "EmailsRefused"] {
        assert!(has("OnlineStore", metric, ""), "{metric}");
    }
    for metric in ["ReadThrottleEvents", "WriteThrottleEvents"] {
        assert!(has("AWS/DynamoDB", metric, "AppTable"), "{metric}");
    }
    assert!(
        has("AWS/DynamoDB", "WriteThrottleEvents", "GSI1"),
        "GSI1's writes"
    );
}

#[test]
fn functions_are_traced_and_the_api_logs_each_request_as_json_with_its_caller() {
    let template = template::parse().expect("template");
    assert_eq!(
        template["Globals"]["Function"]["Tracing"].as_str(),
        Some("Active")
    );
    let api = &template["Resources"]["HttpApi"]["Properties"];
    let format = api["AccessLogSettings"]["Format"]
        .as_str()
        .expect("an access log format");
    let fields: serde_json::Value = serde_json::from_str(format).expect("one JSON object a line");
    for (field, variable) in [
        ("requestId", "$context.requestId"),
        ("caller", "$context.authorizer.claims.sub"),
        ("status", "$context.status"),
        ("routeKey", "$context.routeKey"),
    ] {
        assert_eq!(fields[field], variable, "{field}");
    }
    assert!(yaml(&api["AccessLogSettings"]["DestinationArn"]).contains("ApiAccessLogGroup"));
}

#[test]
fn the_dashboard_shows_only_metrics_the_functions_emit() {
    let template = template::parse().expect("template");
    let body = yaml(&template["Resources"]["Dashboard"]["Properties"]["DashboardBody"]);
    let emitted = Metric::ALL;
    for chunk in body.split(&format!("\"{NAMESPACE}\", \"")).skip(1) {
        let name = chunk.split('"').next().unwrap_or_default();
        assert!(
            emitted.iter().any(|m| m.name() == name),
            "the dashboard shows {name}, which no function emits"
        );
    }
    for metric in emitted {
        assert!(
            body.contains(&format!("\"{}\"", metric.name())),
            "{} is not on the dashboard",
            metric.name()
        );
    }
}

#[test]
fn every_binary_of_the_functions_crate_is_declared_and_every_declaration_is_built() {
    // A binary without a declaration would never be deployed (its resource is written from
    // it), and a declaration without a binary would deploy a function SAM cannot build.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../functions/src/bin");
    let mut built: Vec<String> = std::fs::read_dir(dir)
        .expect("functions/src/bin")
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".rs").map(str::to_owned)
        })
        .collect();
    built.sort();
    let mut declared: Vec<String> = shared::permissions::FUNCTIONS
        .iter()
        .map(|f| f.binary.to_owned())
        .collect();
    declared.sort();
    assert_eq!(built, declared);
}
