//! template.yaml: each function holds only the DynamoDB permissions its access pattern uses.

use std::collections::BTreeMap;

use serde_yaml::Value;
use template_tests as template;
use template_tests::functions;

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

/// One granted action: what, on which resource, under which conditions (`operator key` to
/// values, sorted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Grant {
    pub(crate) action: String,
    pub(crate) resource: String,
    pub(crate) conditions: BTreeMap<String, Vec<String>>,
}

/// Every IAM action a function's policies grant, with the resources and conditions they apply
/// to.
pub(crate) fn grants(template: &Value, function: &Value) -> Vec<Grant> {
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
        let mut conditions = BTreeMap::new();
        for (operator, keys) in statement["Condition"].as_mapping().into_iter().flatten() {
            for (key, values) in keys.as_mapping().expect("condition keys") {
                let mut values: Vec<String> = values
                    .as_sequence()
                    .expect("condition values")
                    .iter()
                    .map(|v| v.as_str().expect("string").to_owned())
                    .collect();
                values.sort();
                let name = format!(
                    "{} {}",
                    operator.as_str().expect("operator"),
                    key.as_str().expect("key")
                );
                conditions.insert(name, values);
            }
        }
        for action in actions {
            out.push(Grant {
                action,
                resource: resource.trim().to_owned(),
                conditions: conditions.clone(),
            });
        }
    }
    out
}

pub(crate) const LEADING_KEYS: &str = "ForAllValues:StringLike dynamodb:LeadingKeys";
pub(crate) const ATTRIBUTES: &str = "ForAllValues:StringEquals dynamodb:Attributes";

/// `action` on `resource`, for items whose partition key is like one of `keys` (none: no
/// condition) and, for writes, touching only `attributes`.
fn grant(action: &str, resource: &str, keys: &[&str], attributes: &[&str]) -> Grant {
    let mut conditions = BTreeMap::new();
    let sorted = |values: &[&str]| {
        let mut values: Vec<String> = values.iter().map(|v| (*v).to_owned()).collect();
        values.sort();
        values
    };
    if !keys.is_empty() {
        conditions.insert(LEADING_KEYS.to_owned(), sorted(keys));
    }
    if !attributes.is_empty() {
        conditions.insert(ATTRIBUTES.to_owned(), sorted(attributes));
    }
    Grant {
        action: action.to_owned(),
        resource: resource.to_owned(),
        conditions,
    }
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
    assert_eq!(seen, template_tests::functions(&template).count());
}

pub(crate) const TABLE: &str = "!GetAtt AppTable.Arn";
const STREAM: &str = "!GetAtt AppTable.StreamArn";

/// What each function may do: the requests it makes, each on the partitions it uses and, for
/// writes, the attributes it writes.
fn expected_grants() -> BTreeMap<&'static str, Vec<Grant>> {
    let warm_up = || {
        let mut g = grant("dynamodb:GetItem", TABLE, &[], &[]);
        g.conditions.insert(
            "ForAllValues:StringEquals dynamodb:LeadingKeys".to_owned(),
            vec![shared::dynamo::keys::warm_up::PK.to_owned()],
        );
        g
    };
    [
        (
            "GetCustomerFunction",
            vec![
                warm_up(),
                grant("dynamodb:GetItem", TABLE, &["CUSTOMER#*"], &[]),
            ],
        ),
        (
            "ListCustomerOrdersFunction",
            vec![
                warm_up(),
                grant("dynamodb:Query", TABLE, &["CUSTOMER#*"], &[]),
            ],
        ),
        (
            "GetOrderItemsFunction",
            vec![warm_up(), grant("dynamodb:Query", TABLE, &["ORDER#*"], &[])],
        ),
        (
            "ListOrdersByStatusFunction",
            vec![
                warm_up(),
                grant(
                    "dynamodb:Query",
                    "!Sub ${AppTable.Arn}/index/GSI1",
                    &["STATUS#*"],
                    &[],
                ),
            ],
        ),
        (
            "ListProductOrdersFunction",
            vec![
                warm_up(),
                grant(
                    "dynamodb:Query",
                    "!Sub ${AppTable.Arn}/index/GSI2",
                    &["PRODUCT#*"],
                    &[],
                ),
            ],
        ),
        (
            "GetCartFunction",
            vec![
                warm_up(),
                grant("dynamodb:Query", TABLE, &["CUSTOMER#*"], &[]),
            ],
        ),
        (
            "EditCartFunction",
            vec![
                warm_up(),
                grant("dynamodb:Query", TABLE, &["CUSTOMER#*"], &[]),
                grant("dynamodb:DeleteItem", TABLE, &["CUSTOMER#*"], &["PK", "SK"]),
                grant(
                    "dynamodb:PutItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &["PK", "SK", "quantity", "expiresAt"],
                ),
                grant("dynamodb:GetItem", TABLE, &["PRODUCT#*"], &[]),
            ],
        ),
        (
            "CheckoutFunction",
            vec![
                warm_up(),
                grant("dynamodb:Query", TABLE, &["CUSTOMER#*"], &[]),
                grant(
                    "dynamodb:BatchGetItem",
                    TABLE,
                    &["CUSTOMER#*", "PRODUCT#*", "IDEMPOTENCY#*"],
                    &[],
                ),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["PRODUCT#*"],
                    &["PK", "SK", "stock", "price"],
                ),
                grant(
                    "dynamodb:PutItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &[
                        "PK",
                        "SK",
                        "orderId",
                        "status",
                        "total",
                        "GSI1PK",
                        "GSI1SK",
                        "holdUntil",
                    ],
                ),
                grant(
                    "dynamodb:PutItem",
                    TABLE,
                    &["ORDER#*"],
                    &[
                        "PK",
                        "SK",
                        "customerId",
                        "placedAt",
                        "status",
                        "total",
                        "holdUntil",
                        "quantity",
                        "price",
                        "GSI2PK",
                        "GSI2SK",
                    ],
                ),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &["PK", "SK", "placedCount"],
                ),
                grant(
                    "dynamodb:DeleteItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &["PK", "SK", "quantity", "expiresAt"],
                ),
                grant(
                    "dynamodb:PutItem",
                    TABLE,
                    &["IDEMPOTENCY#*"],
                    &[
                        "PK",
                        "SK",
                        "fingerprint",
                        "orderId",
                        "response",
                        "expiresAt",
                    ],
                ),
            ],
        ),
        (
            "PaymentWebhookFunction",
            vec![
                warm_up(),
                grant(
                    "dynamodb:GetItem",
                    TABLE,
                    &["PAYMENT_EVENT#*", "ORDER#*"],
                    &[],
                ),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["ORDER#*"],
                    &["PK", "SK", "status", "paymentId", "holdUntil"],
                ),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &["PK", "SK", "status", "GSI1PK"],
                ),
                grant(
                    "dynamodb:PutItem",
                    TABLE,
                    &["PAYMENT_EVENT#*"],
                    &["PK", "SK", "outcome", "orderId", "expiresAt"],
                ),
                grant(
                    "dynamodb:PutItem",
                    TABLE,
                    &["REFUND#*"],
                    &[
                        "PK",
                        "SK",
                        "paymentId",
                        "orderId",
                        "amount",
                        "currency",
                        "reason",
                        "eventId",
                        "receivedAt",
                        "GSI1PK",
                        "GSI1SK",
                    ],
                ),
                grant(
                    "secretsmanager:GetSecretValue",
                    "!Ref PaymentWebhookSecret",
                    &[],
                    &[],
                ),
            ],
        ),
        (
            "ExpireHoldsFunction",
            vec![
                warm_up(),
                grant(
                    "dynamodb:Query",
                    "!Sub ${AppTable.Arn}/index/GSI1",
                    &["STATUS#PENDING_PAYMENT*"],
                    &[],
                ),
                grant("dynamodb:Query", TABLE, &["ORDER#*"], &[]),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["ORDER#*", "CUSTOMER#*"],
                    &["PK", "SK", "status", "GSI1PK", "holdUntil"],
                ),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &["PK", "SK", "placedCount"],
                ),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["PRODUCT#*"],
                    &["PK", "SK", "stock"],
                ),
            ],
        ),
        (
            "ListRefundsFunction",
            vec![
                warm_up(),
                grant(
                    "dynamodb:Query",
                    "!Sub ${AppTable.Arn}/index/GSI1",
                    &["REFUNDS_DUE"],
                    &[],
                ),
            ],
        ),
        (
            "PutCustomerFunction",
            vec![
                warm_up(),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &["PK", "SK", "name", "email"],
                ),
            ],
        ),
        (
            "PlaceOrderFunction",
            vec![
                warm_up(),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["PRODUCT#*"],
                    &["PK", "SK", "stock", "price"],
                ),
                grant(
                    "dynamodb:PutItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &["PK", "SK", "orderId", "status", "total", "GSI1PK", "GSI1SK"],
                ),
                grant(
                    "dynamodb:PutItem",
                    TABLE,
                    &["ORDER#*"],
                    &[
                        "PK",
                        "SK",
                        "customerId",
                        "placedAt",
                        "status",
                        "total",
                        "quantity",
                        "price",
                        "GSI2PK",
                        "GSI2SK",
                    ],
                ),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &["PK", "SK", "placedCount"],
                ),
                grant(
                    "dynamodb:PutItem",
                    TABLE,
                    &["IDEMPOTENCY#*"],
                    &[
                        "PK",
                        "SK",
                        "fingerprint",
                        "orderId",
                        "response",
                        "expiresAt",
                    ],
                ),
                grant(
                    "dynamodb:BatchGetItem",
                    TABLE,
                    &["CUSTOMER#*", "PRODUCT#*", "IDEMPOTENCY#*"],
                    &[],
                ),
            ],
        ),
        (
            "GetProductFunction",
            vec![
                warm_up(),
                grant("dynamodb:GetItem", TABLE, &["PRODUCT#*"], &[]),
            ],
        ),
        (
            "ListProductsFunction",
            vec![
                warm_up(),
                grant("dynamodb:Query", TABLE, &["CATALOG#*"], &[]),
            ],
        ),
        (
            "PutProductFunction",
            vec![
                warm_up(),
                grant("dynamodb:GetItem", TABLE, &["PRODUCT#*"], &[]),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["PRODUCT#*"],
                    &["PK", "SK", "name", "price", "version", "stock"],
                ),
                grant(
                    "dynamodb:PutItem",
                    TABLE,
                    &["CATALOG#*"],
                    &["PK", "SK", "name", "price"],
                ),
            ],
        ),
        (
            "AdjustStockFunction",
            vec![
                warm_up(),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["PRODUCT#*"],
                    &["PK", "SK", "stock"],
                ),
            ],
        ),
        (
            "GetOrderFunction",
            vec![warm_up(), grant("dynamodb:Query", TABLE, &["ORDER#*"], &[])],
        ),
        (
            "UpdateOrderStatusFunction",
            vec![
                warm_up(),
                grant("dynamodb:Query", TABLE, &["ORDER#*"], &[]),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &["PK", "SK", "placedCount"],
                ),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["ORDER#*", "CUSTOMER#*"],
                    &["PK", "SK", "status", "GSI1PK"],
                ),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["PRODUCT#*"],
                    &["PK", "SK", "stock"],
                ),
            ],
        ),
        (
            "OrderStatsFunction",
            vec![
                warm_up(),
                grant("dynamodb:DescribeStream", STREAM, &[], &[]),
                grant("dynamodb:GetRecords", STREAM, &[], &[]),
                grant("dynamodb:GetShardIterator", STREAM, &[], &[]),
                grant("dynamodb:ListStreams", STREAM, &[], &[]),
                grant(
                    "dynamodb:UpdateItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &[
                        "PK",
                        "SK",
                        "orderCount",
                        "totalSpent",
                        "lastOrderAt",
                        "statsComplete",
                    ],
                ),
                grant(
                    "dynamodb:PutItem",
                    TABLE,
                    &["CUSTOMER#*"],
                    &["PK", "SK", "countedSpent", "countedVersion"],
                ),
                grant("dynamodb:Query", TABLE, &["CUSTOMER#*"], &[]),
                grant(
                    "sqs:SendMessage",
                    "!GetAtt OrderStatsFailureQueue.Arn",
                    &[],
                    &[],
                ),
                grant(
                    "logs:CreateLogStream",
                    "!GetAtt OrderStatsLogGroup.Arn",
                    &[],
                    &[],
                ),
                grant(
                    "logs:PutLogEvents",
                    "!GetAtt OrderStatsLogGroup.Arn",
                    &[],
                    &[],
                ),
            ],
        ),
    ]
    .into()
}

#[test]
fn functions_are_granted_only_the_requests_they_make_on_the_keys_they_use() {
    let template = template::parse().expect("template");
    let expected = expected_grants();
    let mut seen = 0;
    for (name, resource) in functions(&template) {
        let Some(want) = expected.get(name) else {
            panic!("{name} has no expected permissions in this test");
        };
        let grants = grants(&template, resource);
        assert_eq!(&grants, want, "{name}");
        for grant in &grants {
            assert!(
                !grant.action.contains('*') && !grant.resource.contains('*'),
                "{name}: wildcard"
            );
            assert_ne!(grant.action, "dynamodb:Scan", "{name}");
            // Every grant on the table's items names the partitions it may touch.
            if grant.resource == TABLE {
                assert!(
                    grant
                        .conditions
                        .keys()
                        .any(|k| k.ends_with("dynamodb:LeadingKeys")),
                    "{name}: {} on every partition",
                    grant.action
                );
            }
            // Every write names the attributes it may write.
            if ["dynamodb:PutItem", "dynamodb:UpdateItem"].contains(&grant.action.as_str()) {
                assert!(
                    grant.conditions.contains_key(ATTRIBUTES),
                    "{name}: {grant:?}"
                );
            }
        }
        seen += 1;
    }
    assert_eq!(seen, expected.len());
}
