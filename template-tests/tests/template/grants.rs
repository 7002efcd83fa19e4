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
struct Grant {
    action: String,
    resource: String,
    conditions: BTreeMap<String, Vec<String>>,
}

/// Every IAM action a function's policies grant, with the resources and conditions they apply
/// to.
fn grants(template: &Value, function: &Value) -> Vec<Grant> {
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

const LEADING_KEYS: &str = "ForAllValues:StringLike dynamodb:LeadingKeys";
const ATTRIBUTES: &str = "ForAllValues:StringEquals dynamodb:Attributes";

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
    assert_eq!(seen, 14);
}

const TABLE: &str = "!GetAtt AppTable.Arn";
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

/// The attributes a write grant allows are exactly those the code writes there: the entity
/// codecs' items and the names of the update expressions.
#[test]
fn write_grants_allow_exactly_the_attributes_the_codecs_write() {
    use shared::domain::customer::Customer;
    use shared::domain::idempotency::IdempotencyRecord;
    use shared::domain::ids::{CustomerId, IdempotencyKey, OrderId, Sku};
    use shared::domain::money::Money;
    use shared::domain::order::{LineItem, Order};
    use shared::domain::product::{CatalogEntry, Product};
    use shared::domain::status::OrderStatus;
    use shared::domain::time::Timestamp;
    use shared::dynamo::codec;
    use shared::dynamo::entities::{
        catalog_entry, counted_order, customer, idempotency, line_item, open_order_count,
        order_header, order_listing, product,
    };

    let c1 = CustomerId::parse("c1").expect("id");
    let o1 = OrderId::parse("o1").expect("id");
    let order = Order {
        order_id: o1.clone(),
        customer_id: c1.clone(),
        placed_at: Timestamp::parse("2026-10-08T14:30:00Z").expect("t"),
        status: OrderStatus::Placed,
        total: Money::parse_number("1").expect("money"),
    };
    let line = LineItem {
        sku: Sku::parse("s").expect("sku"),
        quantity: 1,
        price: Money::parse_number("1").expect("money"),
    };
    let record = IdempotencyRecord {
        fingerprint: "f".into(),
        order_id: o1.clone(),
        response: "{}".into(),
    };
    let names = |items: &[&codec::Item]| -> Vec<String> {
        let mut names: Vec<String> = items.iter().flat_map(|i| i.keys().cloned()).collect();
        names.sort();
        names.dedup();
        names
    };
    let keys_and = |more: &[&str]| -> Vec<String> {
        let mut names: Vec<String> = [codec::PK.name, codec::SK.name]
            .iter()
            .chain(more)
            .map(|n| (*n).to_owned())
            .collect();
        names.sort();
        names
    };
    let mug = Product {
        sku: Sku::parse("s").expect("sku"),
        name: "Mug".into(),
        price: Money::parse_number("1").expect("money"),
        stock: 1,
    };
    let written: Vec<(&str, &str, &str, Vec<String>)> = vec![
        (
            "PutProductFunction",
            "dynamodb:UpdateItem",
            "PRODUCT#*",
            names(&[&product::to_item(&mug, 1)]),
        ),
        (
            "PutProductFunction",
            "dynamodb:PutItem",
            "CATALOG#*",
            names(&[&catalog_entry::to_item(&CatalogEntry {
                sku: mug.sku.clone(),
                name: mug.name.clone(),
                price: mug.price,
            })]),
        ),
        (
            "AdjustStockFunction",
            "dynamodb:UpdateItem",
            "PRODUCT#*",
            keys_and(&[product::STOCK.name]),
        ),
        (
            "PlaceOrderFunction",
            "dynamodb:UpdateItem",
            "PRODUCT#*",
            keys_and(&[product::STOCK.name, product::PRICE.name]),
        ),
        (
            "UpdateOrderStatusFunction",
            "dynamodb:UpdateItem",
            "PRODUCT#*",
            keys_and(&[product::STOCK.name]),
        ),
        (
            "PutCustomerFunction",
            "dynamodb:UpdateItem",
            "CUSTOMER#*",
            names(&[&customer::to_item(
                &Customer::new(c1.clone(), "Ana", "ana@example.com").expect("customer"),
            )]),
        ),
        (
            "PlaceOrderFunction",
            "dynamodb:PutItem",
            "CUSTOMER#*",
            names(&[&order_listing::to_item(
                &order,
                shared::dynamo::keys::StatusShards::ONE,
            )]),
        ),
        (
            "PlaceOrderFunction",
            "dynamodb:PutItem",
            "ORDER#*",
            names(&[
                &order_header::to_item(&order),
                &line_item::to_item(&order, &line),
            ]),
        ),
        (
            "PlaceOrderFunction",
            "dynamodb:PutItem",
            "IDEMPOTENCY#*",
            names(&[&idempotency::to_item(
                &c1,
                &IdempotencyKey::parse("k").expect("key"),
                &record,
                1,
            )]),
        ),
        (
            "UpdateOrderStatusFunction",
            "dynamodb:UpdateItem",
            "CUSTOMER#*",
            keys_and(&[order_listing::STATUS.name, order_listing::GSI1PK.name]),
        ),
        (
            "UpdateOrderStatusFunction",
            "dynamodb:UpdateItem",
            "CUSTOMER#*",
            keys_and(&[open_order_count::COUNT.name]),
        ),
        (
            "PlaceOrderFunction",
            "dynamodb:UpdateItem",
            "CUSTOMER#*",
            keys_and(&[open_order_count::COUNT.name]),
        ),
        (
            "OrderStatsFunction",
            "dynamodb:UpdateItem",
            "CUSTOMER#*",
            keys_and(&[
                customer::ORDER_COUNT.name,
                customer::TOTAL_SPENT.name,
                customer::LAST_ORDER_AT.name,
                customer::STATS_COMPLETE.name,
            ]),
        ),
        (
            "OrderStatsFunction",
            "dynamodb:PutItem",
            "CUSTOMER#*",
            names(&[&counted_order::to_item(
                &c1,
                &o1,
                Some(&Money::parse_number("1").expect("money").amount()),
                &shared::domain::stats::ShareVersion::parse("1").expect("version"),
            )]),
        ),
    ];
    let expected = expected_grants();
    for (function, action, partition, attributes) in written {
        // A function may hold two grants of one action on a partition (its listing's status,
        // and a customer's count of PLACED orders): the write must match one exactly.
        let grants: Vec<&Grant> = expected[function]
            .iter()
            .filter(|g| {
                g.action == action && g.conditions[LEADING_KEYS].contains(&partition.to_owned())
            })
            .collect();
        assert!(!grants.is_empty(), "{function}: no {action} on {partition}");
        assert!(
            grants
                .iter()
                .any(|g| g.conditions[ATTRIBUTES] == attributes),
            "{function} {action} {partition}: {attributes:?} in none of {grants:?}"
        );
    }
}
