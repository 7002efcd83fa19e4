//! `api/openapi.yaml` as every test holds the answers it sees to it: each response the tests'
//! [`dispatch`](crate::testing::dispatch) returns is checked against its operation (the route
//! it came in on): its status is one the operation declares (or `default`), its content type
//! one that status declares, and its body valid under that content's schema. A field the
//! contract does not have, a required one the answer lacks, a value of another type or outside
//! an enumeration, fails the test that sent the request. So does a JSON request body the
//! handler accepted (2xx) that the operation's `requestBody` does not declare: a field the
//! handler takes and the contract does not name is a drift of the contract as surely.
//!
//! The schemas are read as the contract writes them (OpenAPI 3.1, JSON Schema): `$ref` (with
//! siblings), `allOf`, `oneOf`, `anyOf`, `type` (one or a list), `enum`, `const`, `properties`,
//! `required`, `additionalProperties`, `unevaluatedProperties: false` (a field no `properties`
//! of the schema, its `$ref` or its `allOf` names), `items`, `minItems`/`maxItems`, `minLength`/`maxLength`,
//! `minimum`/`maximum`. `pattern` and `format` are left to schemathesis (`make contract`), which
//! checks every operation against the same document.

use std::sync::OnceLock;

use serde_json::Value;

const YAML: &str = include_str!("../../../api/openapi.yaml");

fn document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| serde_yaml::from_str(YAML).expect("api/openapi.yaml parses"))
}

/// What `route`'s answer (`status`, `content_type`, `body`: `Null` when it is not JSON)
/// breaks of the contract; empty when it holds.
pub fn violations(route: &str, status: u16, content_type: &str, body: &Value) -> Vec<String> {
    let document = document();
    let operation = match operation(document, route) {
        Ok(operation) => operation,
        Err(broken) => return vec![broken],
    };
    let responses = &operation["responses"];
    let declared = &responses[status.to_string()];
    let response = resolve(
        document,
        if declared.is_null() {
            &responses["default"]
        } else {
            declared
        },
    );
    if response.is_null() {
        return vec![format!("{route} does not declare a {status}")];
    }
    let media = content_type.split(';').next().unwrap_or_default().trim();
    let Some(content) = response["content"].as_object() else {
        return if body.is_null() {
            Vec::new()
        } else {
            vec![format!("{route} {status} declares no body, and one came")]
        };
    };
    let Some(declared) = content.get(media) else {
        return vec![format!(
            "{route} {status} declares {:?}, not {media:?}",
            content.keys().collect::<Vec<_>>()
        )];
    };
    let mut found = Vec::new();
    validate(document, &declared["schema"], body, "body", &mut found);
    found
        .into_iter()
        .map(|v| format!("{route} {status} {media}: {v}"))
        .collect()
}

/// What a request `route` accepted (answered 2xx) breaks of the contract: its JSON `body`
/// must be one the operation's `requestBody` declares. A field the handler takes and the
/// contract does not name (or one the contract requires and the handler does without) fails
/// the test that sent it, as a drift of the answer does. Bodies refused (4xx) are what the
/// refusals' own tests are about, and are not checked; nor is one the `answer` says was
/// acknowledged unread (the webhook keeps a signed event it cannot read, `"outcome":
/// "unreadable"`, so that the provider stops resending it).
pub fn request_violations(route: &str, status: u16, body: &Value, answer: &Value) -> Vec<String> {
    if !(200..300).contains(&status) || body.is_null() || answer["outcome"] == "unreadable" {
        return Vec::new();
    }
    let document = document();
    let operation = match operation(document, route) {
        Ok(operation) => operation,
        Err(broken) => return vec![broken],
    };
    let declared = resolve(document, &operation["requestBody"]);
    let schema = &declared["content"]["application/json"]["schema"];
    if schema.is_null() {
        return vec![format!(
            "{route} took a JSON body and answered {status}; the contract declares none"
        )];
    }
    let mut found = Vec::new();
    validate(document, schema, body, "request body", &mut found);
    found
        .into_iter()
        .map(|v| format!("{route} (answered {status}): {v}"))
        .collect()
}

/// `api/events.yaml` (AsyncAPI 3), its references into `api/openapi.yaml` followed: the
/// HTTP contract's schemas grafted in under `x-openapi`, every `$ref` rewritten to point
/// there, so one document resolves them all.
const EVENTS_YAML: &str = include_str!("../../../api/events.yaml");

fn events_document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let mut events: Value = serde_yaml::from_str(EVENTS_YAML).expect("api/events.yaml parses");
        let mut openapi = document().clone();
        rebase(&mut openapi, "#/", "#/x-openapi/");
        rebase(&mut events, "openapi.yaml#/", "#/x-openapi/");
        events["x-openapi"] = openapi;
        events
    })
}

/// Every `$ref` under `value` that starts with `from` made to start with `to`.
fn rebase(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                match field {
                    Value::String(reference) if name == "$ref" => {
                        if let Some(rest) = reference.strip_prefix(from) {
                            *reference = format!("{to}{rest}");
                        }
                    }
                    other => rebase(other, from, to),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rebase(item, from, to)),
        _ => {}
    }
}

/// What an event, as a queue on the bus receives it (EventBridge's envelope around the
/// store's event), breaks of `api/events.yaml`: its message is the one its `detail-type`
/// names, and the detail's `type` is that too. Empty when it holds.
pub fn event_violations(envelope: &Value) -> Vec<String> {
    let document = events_document();
    let kind = envelope["detail-type"].as_str().unwrap_or_default();
    let message = document["components"]["messages"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(_, message)| message)
        .find(|message| message["name"] == kind);
    let Some(message) = message else {
        return vec![format!("api/events.yaml has no message {kind:?}")];
    };
    let mut found = Vec::new();
    if envelope["detail"]["type"] != kind {
        found.push(format!(
            "detail.type {} is not the detail-type {kind}",
            envelope["detail"]["type"]
        ));
    }
    validate(document, &message["payload"], envelope, "event", &mut found);
    found.into_iter().map(|v| format!("{kind}: {v}")).collect()
}

/// The operation `route` (`"GET /customers/{customerId}"`) names in the contract.
fn operation<'a>(document: &'a Value, route: &str) -> Result<&'a Value, String> {
    let Some((method, path)) = route.split_once(' ') else {
        return Err(format!("{route:?} is no route key"));
    };
    let operation = &document["paths"][path][method.to_ascii_lowercase()];
    if operation.is_null() {
        return Err(format!("the contract has no operation {route}"));
    }
    Ok(operation)
}

/// `schema` with its `$ref`s followed.
fn resolve<'a>(document: &'a Value, schema: &'a Value) -> &'a Value {
    let mut schema = schema;
    for _ in 0..16 {
        match schema["$ref"].as_str() {
            Some(reference) if schema.as_object().is_some_and(|o| o.len() == 1) => {
                schema = pointer(document, reference);
            }
            _ => break,
        }
    }
    schema
}

fn pointer<'a>(document: &'a Value, reference: &str) -> &'a Value {
    static NULL: Value = Value::Null;
    reference
        .strip_prefix('#')
        .and_then(|path| document.pointer(path))
        .unwrap_or(&NULL)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_type(value: &Value, name: &str) -> bool {
    let kind = kind(value);
    kind == name || (name == "number" && kind == "integer")
}

/// Whether `value` is valid under `schema` (no reasons kept: for `oneOf`/`anyOf`).
fn valid(document: &Value, schema: &Value, value: &Value) -> bool {
    let mut found = Vec::new();
    validate(document, schema, value, "", &mut found);
    found.is_empty()
}

fn validate(document: &Value, schema: &Value, value: &Value, at: &str, found: &mut Vec<String>) {
    let Some(rules) = schema.as_object() else {
        return;
    };
    if let Some(reference) = rules.get("$ref").and_then(Value::as_str) {
        validate(document, pointer(document, reference), value, at, found);
    }
    for all in rules
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        validate(document, all, value, at, found);
    }
    if let Some(one) = rules.get("oneOf").and_then(Value::as_array) {
        let matching = one.iter().filter(|s| valid(document, s, value)).count();
        if matching != 1 {
            found.push(format!(
                "{at}: valid under {matching} of oneOf's {} schemas",
                one.len()
            ));
        }
    }
    if let Some(any) = rules.get("anyOf").and_then(Value::as_array)
        && !any.iter().any(|s| valid(document, s, value))
    {
        found.push(format!("{at}: valid under none of anyOf's schemas"));
    }
    match rules.get("type") {
        Some(Value::String(name)) if !is_type(value, name) => {
            found.push(format!(
                "{at}: {} where the contract says {name}",
                kind(value)
            ));
            return;
        }
        Some(Value::Array(names))
            if !names
                .iter()
                .any(|n| n.as_str().is_some_and(|n| is_type(value, n))) =>
        {
            found.push(format!(
                "{at}: {} where the contract says one of {names:?}",
                kind(value)
            ));
            return;
        }
        _ => {}
    }
    if let Some(allowed) = rules.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        found.push(format!("{at}: {value} is not one of {allowed:?}"));
    }
    if let Some(constant) = rules.get("const")
        && constant != value
    {
        found.push(format!("{at}: {value} is not {constant}"));
    }
    bounds(rules, value, at, found);
    match value {
        Value::Object(fields) => object(document, rules, fields, at, found),
        Value::Array(items) => {
            if let Some(schema) = rules.get("items") {
                for (i, item) in items.iter().enumerate() {
                    validate(document, schema, item, &format!("{at}[{i}]"), found);
                }
            }
        }
        _ => {}
    }
}

/// The sizes and the ranges a schema sets.
fn bounds(
    rules: &serde_json::Map<String, Value>,
    value: &Value,
    at: &str,
    found: &mut Vec<String>,
) {
    let limit = |name: &str| rules.get(name).and_then(Value::as_f64);
    let size = match value {
        Value::String(text) => Some((text.chars().count(), "minLength", "maxLength")),
        Value::Array(items) => Some((items.len(), "minItems", "maxItems")),
        _ => None,
    };
    if let Some((len, min, max)) = size {
        let len = len as f64;
        if limit(min).is_some_and(|m| len < m) || limit(max).is_some_and(|m| len > m) {
            found.push(format!(
                "{at}: {len} long, outside the contract's {min}/{max}"
            ));
        }
    }
    if let Some(number) = value.as_f64()
        && (limit("minimum").is_some_and(|m| number < m)
            || limit("maximum").is_some_and(|m| number > m))
    {
        found.push(format!(
            "{at}: {number} is outside the contract's minimum/maximum"
        ));
    }
}

fn object(
    document: &Value,
    rules: &serde_json::Map<String, Value>,
    fields: &serde_json::Map<String, Value>,
    at: &str,
    found: &mut Vec<String>,
) {
    let properties = rules.get("properties").and_then(Value::as_object);
    for required in rules
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(name) = required.as_str()
            && !fields.contains_key(name)
        {
            found.push(format!("{at}: lacks {name:?}, which the contract requires"));
        }
    }
    // Only a schema refusing unevaluated fields needs what its parts name.
    let evaluated = (rules.get("unevaluatedProperties") == Some(&Value::Bool(false)))
        .then(|| evaluated(document, rules));
    for (name, field) in fields {
        let at = format!("{at}.{name}");
        if evaluated
            .as_ref()
            .is_some_and(|names| !names.contains(name.as_str()))
        {
            found.push(format!("{at}: a field the contract does not have"));
            continue;
        }
        match properties.and_then(|p| p.get(name)) {
            Some(schema) => validate(document, schema, field, &at, found),
            None => match rules.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    found.push(format!("{at}: a field the contract does not have"));
                }
                Some(schema @ Value::Object(_)) => validate(document, schema, field, &at, found),
                _ => {}
            },
        }
    }
}

/// The fields a schema's `properties` name, with those of its `$ref` and its `allOf`'s: what
/// `unevaluatedProperties` counts as evaluated (the contract composes an answer's fields from
/// shared parts this way).
fn evaluated<'a>(
    document: &'a Value,
    rules: &'a serde_json::Map<String, Value>,
) -> std::collections::BTreeSet<&'a str> {
    let mut names: std::collections::BTreeSet<&str> = rules
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys().map(String::as_str))
        .collect();
    let referred = rules
        .get("$ref")
        .and_then(Value::as_str)
        .map(|r| pointer(document, r));
    let parts = rules
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    for part in referred.into_iter().chain(parts) {
        if let Some(part) = part.as_object() {
            names.extend(evaluated(document, part));
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An answer composed of shared parts (`allOf` with `unevaluatedProperties: false`) holds
    /// every part's fields and refuses one no part names, as a schema written out whole would.
    #[test]
    fn a_composed_answer_refuses_a_field_none_of_its_parts_names() {
        let route = "GET /customers/{customerId}";
        let profile = json!({
            "customerId": "c1", "name": "Ada", "email": "ada@example.com",
            "orderCount": 0, "totalSpent": "0.00", "lastOrderAt": null,
        });
        let check = |body: &Value| violations(route, 200, "application/json", body);
        assert_eq!(check(&profile), Vec::<String>::new());
        let mut extra = profile.clone();
        extra["phone"] = json!("+15550100");
        assert!(
            check(&extra).iter().any(|v| v.contains("phone")),
            "{:?}",
            check(&extra)
        );
        let mut partial = profile.clone();
        partial.as_object_mut().expect("object").remove("email");
        assert!(
            check(&partial).iter().any(|v| v.contains("email")),
            "{:?}",
            check(&partial)
        );
        let mut mistyped = profile;
        mistyped["name"] = json!(7);
        assert!(!check(&mistyped).is_empty());
    }

    /// The events contract lists exactly the store's event types, in its messages and in both
    /// enumerations (derived from one list: `EventType::ALL`).
    #[test]
    fn the_events_contract_names_every_event_type_and_no_other() {
        let document = events_document();
        let mut types: Vec<String> = shared::domain::event::EventType::ALL
            .iter()
            .map(|kind| kind.as_str().to_owned())
            .collect();
        types.sort();
        let listed = |values: &Value| -> Vec<String> {
            let mut names: Vec<String> = values
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            names.sort();
            names
        };
        let messages: Vec<Value> = document["components"]["messages"]
            .as_object()
            .expect("messages")
            .values()
            .map(|m| m["name"].clone())
            .collect();
        assert_eq!(listed(&Value::Array(messages)), types, "messages");
        let schemas = &document["components"]["schemas"];
        assert_eq!(listed(&schemas["EventType"]["enum"]), types, "EventType");
        assert_eq!(
            listed(&schemas["Envelope"]["properties"]["detail-type"]["enum"]),
            types,
            "the envelope's detail-type"
        );
        let channel: Vec<String> = document["channels"]["storeEvents"]["messages"]
            .as_object()
            .expect("the channel's messages")
            .keys()
            .cloned()
            .collect();
        assert_eq!(channel.len(), types.len(), "every message on the channel");
    }

    #[test]
    fn an_event_is_held_to_its_message_in_the_events_contract() {
        let envelope = json!({
            "version": "0", "id": "e-1", "detail-type": "order.shipped", "source": "rust-store",
            "account": "123456789012", "time": "2026-12-04T10:00:00Z", "region": "us-east-1",
            "resources": [],
            "detail": {
                "eventId": "order/o1/3", "type": "order.shipped", "version": 1,
                "occurredAt": "2026-12-04T10:00:00Z", "sequence": 3, "orderId": "o1",
                "customerId": "c1", "previousStatus": "PLACED",
                "order": {"orderId": "o1", "customerId": "c1", "placedAt": "2026-12-01T10:00:00Z",
                    "status": "SHIPPED", "total": "39.90"},
            },
        });
        assert_eq!(event_violations(&envelope), Vec::<String>::new());
        let mut unnamed = envelope.clone();
        unnamed["detail"]["fax"] = json!("1");
        assert!(event_violations(&unnamed)[0].contains("fax"));
        let mut no_previous = envelope.clone();
        no_previous["detail"]
            .as_object_mut()
            .expect("object")
            .remove("previousStatus");
        assert!(
            !event_violations(&no_previous).is_empty(),
            "a status change says from what"
        );
        let mut money = envelope.clone();
        money["detail"]["order"]["total"] = json!(39.9);
        assert!(
            !event_violations(&money).is_empty(),
            "money is Money, as the API's"
        );
        let mut other = envelope.clone();
        other["detail-type"] = json!("order.delivered");
        assert!(
            !event_violations(&other).is_empty(),
            "the detail's type is the detail-type"
        );
        let mut unknown = envelope;
        unknown["detail-type"] = json!("order.updated");
        assert!(!event_violations(&unknown).is_empty());
    }

    #[test]
    fn an_answer_is_held_to_its_operations_status_type_and_schema() {
        let route = "GET /customers/{customerId}";
        let profile = json!({"customerId": "c1", "name": "Ana", "email": "a@example.com",
            "orderCount": 1, "totalSpent": "9.00", "lastOrderAt": "2026-10-28T18:42:06Z"});
        assert_eq!(
            violations(route, 200, "application/json", &profile),
            Vec::<String>::new()
        );
        let mut extra = profile.clone();
        extra["fax"] = json!("1");
        assert!(violations(route, 200, "application/json", &extra)[0].contains("fax"));
        let mut lacking = profile.clone();
        lacking.as_object_mut().expect("object").remove("email");
        assert!(violations(route, 200, "application/json", &lacking)[0].contains("email"));
        let mut typed = profile.clone();
        typed["orderCount"] = json!("1");
        assert!(!violations(route, 200, "application/json", &typed).is_empty());
        assert!(!violations(route, 200, "text/plain", &profile).is_empty());
        assert!(!violations(route, 418, "application/json", &profile).is_empty());
        assert!(!violations("GET /nowhere", 200, "application/json", &profile).is_empty());
    }

    #[test]
    fn a_body_accepted_is_held_to_its_operations_request_schema() {
        let route = "PUT /customers/{customerId}";
        let body = json!({"name": "Ana", "email": "a@example.com"});
        let none = Vec::<String>::new();
        assert_eq!(request_violations(route, 200, &body, &body), none);
        let mut extra = body.clone();
        extra["fax"] = json!("+34600000000");
        assert!(request_violations(route, 201, &extra, &body)[0].contains("fax"));
        // A refusal is its own test's business; so is a body acknowledged unread.
        assert_eq!(request_violations(route, 400, &extra, &body), none);
        let unread = json!({"received": true, "outcome": "unreadable"});
        assert_eq!(request_violations(route, 200, &extra, &unread), none);
        // A body where the contract declares none.
        let listing = "GET /customers/{customerId}/orders";
        assert!(!request_violations(listing, 200, &body, &json!({})).is_empty());
    }
}
