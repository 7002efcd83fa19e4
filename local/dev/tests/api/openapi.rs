//! The contract, `api/openapi.yaml`, cannot drift from the code unnoticed: its operations are
//! exactly template.yaml's routes, with their path parameters and the authorizer's security, and
//! its problem types exactly those the one error type produces. (Responses are checked against
//! it, request by generated request, by schemathesis in `make test`.)

use std::collections::BTreeSet;

use local_engine::template;
use serde_json::Value;
use shared::http::problem::problem;

fn document() -> Value {
    local_dev::openapi::document().expect("api/openapi.yaml parses")
}

#[test]
fn the_contract_has_exactly_the_templates_routes_with_their_parameters() {
    let template = template::parse().expect("template");
    let routes: BTreeSet<String> = local_dev::routes::from_template(&template)
        .expect("routes")
        .iter()
        .map(|r| r.key())
        .collect();
    let document = document();
    assert_eq!(document["openapi"], "3.1.0");
    let mut operations = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("path item") {
            if method == "parameters" {
                continue;
            }
            operations.insert(format!("{} {path}", method.to_uppercase()));
            // Every {name} of the path is a required path parameter, and no other.
            let in_path: BTreeSet<&str> = path
                .split('/')
                .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
                .collect();
            let declared: BTreeSet<String> = item["parameters"]
                .as_array()
                .into_iter()
                .chain(operation["parameters"].as_array())
                .flatten()
                .map(|p| resolve(&document, p))
                .filter(|p| p["in"] == "path")
                .map(|p| {
                    assert_eq!(p["required"], true, "{path}");
                    p["name"].as_str().expect("name").to_owned()
                })
                .collect();
            assert_eq!(
                declared,
                in_path.iter().map(|s| (*s).to_owned()).collect(),
                "{method} {path}"
            );
            // Every operation answers the statuses every route can give.
            let responses = operation["responses"].as_object().expect("responses");
            // A route with no authorizer (`security: []`, the payment webhook) has no 401.
            let signed_in = operation.get("security") != Some(&serde_json::json!([]));
            for status in ["400", "401", "404", "429", "500", "503"] {
                if status == "401" && !signed_in {
                    assert!(!responses.contains_key(status), "{method} {path}: 401");
                    continue;
                }
                assert!(responses.contains_key(status), "{method} {path}: {status}");
            }
            if operation.get("requestBody").is_some() {
                for status in ["413", "415"] {
                    assert!(responses.contains_key(status), "{method} {path}: {status}");
                }
            }
        }
    }
    assert_eq!(operations, routes);
    // The authorizer is every route's default in the template; the contract says the same.
    assert_eq!(document["security"][0]["bearer"], serde_json::json!([]));
    assert_eq!(
        document["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
}

fn resolve<'a>(document: &'a Value, value: &'a Value) -> &'a Value {
    match value["$ref"].as_str() {
        Some(reference) => reference
            .trim_start_matches("#/")
            .split('/')
            .fold(document, |node, key| &node[key]),
        None => value,
    }
}

#[test]
fn the_contract_names_every_problem_the_error_type_produces_and_no_other() {
    let errors = shared::http::problem::one_of_each_kind();
    let document = document();
    let problem_schema = &document["components"]["schemas"]["Problem"];
    let documented: BTreeSet<String> = problem_schema["properties"]["type"]["enum"]
        .as_array()
        .expect("enum")
        .iter()
        .map(|v| v.as_str().expect("type").to_owned())
        .collect();
    let fields: BTreeSet<&String> = problem_schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    let mut produced = BTreeSet::new();
    for err in &errors {
        let response = problem(err);
        let body: Value = match response.body() {
            lambda_http::Body::Text(text) => serde_json::from_str(text).expect("json"),
            other => panic!("{other:?}"),
        };
        for key in body.as_object().expect("object").keys() {
            assert!(fields.contains(key), "{key} is not in the Problem schema");
        }
        produced.insert(body["type"].as_str().expect("type").to_owned());
        let status = err.status().to_string();
        let documented_somewhere = document["paths"]
            .as_object()
            .expect("paths")
            .values()
            .flat_map(|item| item.as_object().expect("item").values())
            .any(|op| op["responses"].get(&status).is_some());
        assert!(
            documented_somewhere,
            "{status} is in no operation's responses"
        );
    }
    assert_eq!(produced, documented);
}

/// The values of the contract's schema `name`'s enum (or of its property `property`'s).
fn contract_enum(document: &Value, name: &str, property: Option<&str>) -> Vec<String> {
    let schema = &document["components"]["schemas"][name];
    let schema = property.map_or(schema, |p| &schema["properties"][p]);
    schema["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("{name} has an enum"))
        .iter()
        .map(|v| v.as_str().expect("a text").to_owned())
        .collect()
}

#[test]
fn the_contracts_enumerations_are_the_codes_lists() {
    use shared::domain::payment::EventOutcome;
    use shared::domain::refund::RefundReason;
    use shared::domain::status::OrderStatus;
    let document = document();
    let spelled = |all: &[&str]| all.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        contract_enum(&document, "WebhookReceived", Some("outcome")),
        spelled(&EventOutcome::ALL.map(EventOutcome::as_str))
    );
    assert_eq!(
        contract_enum(&document, "RefundReason", None),
        spelled(&RefundReason::ALL.map(RefundReason::as_str))
    );
    {
        use shared::domain::refund::{RefundKind, RefundStatus};
        assert_eq!(
            contract_enum(&document, "RefundStatus", None),
            spelled(&RefundStatus::ALL.map(RefundStatus::as_str))
        );
        assert_eq!(
            contract_enum(&document, "RefundKind", None),
            spelled(&RefundKind::ALL.map(RefundKind::as_str))
        );
    }
    assert_eq!(
        contract_enum(&document, "Status", None),
        spelled(&OrderStatus::ALL.map(OrderStatus::as_str))
    );
}

/// Every property of every schema in `value`, with where it is.
fn properties<'a>(value: &'a Value, at: &str, found: &mut Vec<(String, String, &'a Value)>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                for (name, schema) in props {
                    found.push((format!("{at}.{name}"), name.clone(), schema));
                }
            }
            for (key, inner) in map {
                properties(inner, &format!("{at}/{key}"), found);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                properties(inner, &format!("{at}/{i}"), found);
            }
        }
        _ => {}
    }
}

/// The schema a property refers to, directly or through `allOf`.
fn referred(schema: &Value) -> Option<&str> {
    schema["$ref"]
        .as_str()
        .or_else(|| schema["allOf"][0]["$ref"].as_str())
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
}

#[test]
fn money_has_two_forms_each_named_by_its_schema() {
    let document = document();
    let mut found = Vec::new();
    properties(&document, "", &mut found);
    let mut checked = 0;
    for (at, name, schema) in found {
        let want: &[&str] = match name.as_str() {
            // A shipping rate's weight band: the contract storefronts are written against
            // names its decimal price `amount` (`{"upToGrams", "amount"}`).
            "amount" if at.contains("/byWeight/") => &["Money", "Amount"],
            // What goes through the payment provider: integers in the smallest unit.
            "amount" | "paid" | "refunded" | "refundable" => &["MinorUnits"],
            // The catalog's and the orders' money: decimal strings (Amount: a price or 0, a
            // shipping rate that is free).
            "price" | "total" | "totalSpent" => &["Money", "Price", "Amount"],
            _ => continue,
        };
        checked += 1;
        assert!(
            referred(schema).is_some_and(|r| want.contains(&r)),
            "{at}: money must refer to {want:?}, not {schema}"
        );
    }
    assert!(checked >= 20, "{checked} money properties");
}
