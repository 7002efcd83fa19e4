//! template.yaml: each function holds only the DynamoDB permissions its access pattern uses.

use std::collections::BTreeMap;

use serde_yaml::Value;
use shared::permissions::{self, Sends};
use template_tests as template;
use template_tests::functions;
use template_tests::needs::{Needed, TABLE, needed};

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
    for statement in template::policy_statements(template, function) {
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
                let mut values: Vec<String> = match values {
                    Value::Sequence(many) => many
                        .iter()
                        .map(|v| v.as_str().expect("string").to_owned())
                        .collect(),
                    // One value, as written (`ses:FromAddress: !Ref EmailSender`).
                    one => vec![serde_yaml::to_string(one).expect("value").trim().to_owned()],
                };
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
        let warm_ups: Vec<Value> = template::policy_statements(&template, function)
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

/// Whether `grant` allows what `need` asks: the same action on the same resource, the
/// partitions named as the declaration derives them, and every attribute allowed.
pub(crate) fn allows(grant: &Grant, need: &Needed) -> bool {
    let keys = grant.conditions.get(LEADING_KEYS);
    let attributes = grant.conditions.get(ATTRIBUTES);
    grant.action == need.action
        && grant.resource == need.resource
        && match &need.leading_keys {
            Some(pattern) => keys.is_some_and(|keys| keys.contains(pattern)),
            None => grant.conditions == need.conditions,
        }
        && match (&need.attributes, attributes) {
            (Some(wanted), Some(allowed)) => wanted.iter().all(|a| allowed.contains(a)),
            (None, None) => true,
            _ => false,
        }
}

/// The warm-up read every function makes at init: the one grant on an exact key.
fn is_warm_up(grant: &Grant) -> bool {
    grant
        .conditions
        .contains_key("ForAllValues:StringEquals dynamodb:LeadingKeys")
}

/// Why `granted` is not exactly what `sends` needs: a need no grant allows, a grant's partition
/// or attribute no need uses, a grant nothing needs.
pub(crate) fn mismatches(granted: &[Grant], sends: &[Sends]) -> Vec<String> {
    let needs: Vec<Needed> = sends.iter().flat_map(|s| needed(*s)).collect();
    let mut wrong = Vec::new();
    for need in &needs {
        if !granted.iter().any(|g| allows(g, need)) {
            wrong.push(format!("no grant allows {need:?}"));
        }
    }
    for grant in granted.iter().filter(|g| !is_warm_up(g)) {
        let served: Vec<&Needed> = needs.iter().filter(|n| allows(grant, n)).collect();
        if served.is_empty() {
            wrong.push(format!("nothing declared needs {grant:?}"));
            continue;
        }
        for key in grant.conditions.get(LEADING_KEYS).into_iter().flatten() {
            if !served.iter().any(|n| n.leading_keys.as_ref() == Some(key)) {
                wrong.push(format!(
                    "{} on {key}: nothing declared reads or writes it",
                    grant.action
                ));
            }
        }
        if let Some(allowed) = grant.conditions.get(ATTRIBUTES) {
            let used: std::collections::BTreeSet<&String> = served
                .iter()
                .flat_map(|n| n.attributes.iter().flatten())
                .collect();
            let allowed: std::collections::BTreeSet<&String> = allowed.iter().collect();
            if used != allowed {
                wrong.push(format!(
                    "{} on {:?} allows {allowed:?}, the declared writes name {used:?}",
                    grant.action,
                    grant.conditions.get(LEADING_KEYS)
                ));
            }
        }
    }
    wrong
}

/// The template's functions with their binaries' declarations.
fn declared(template: &Value) -> Vec<(&str, &Value, &'static permissions::Function)> {
    functions(template)
        .map(|(name, resource)| {
            let binary = resource["Metadata"]["BuildProperties"]["Binary"]
                .as_str()
                .unwrap_or_else(|| panic!("{name} names no binary"));
            let declaration = permissions::of(binary)
                .unwrap_or_else(|| panic!("{name}: {binary} declares nothing it sends"));
            (name, resource, declaration)
        })
        .collect()
}

#[test]
fn each_functions_grants_are_exactly_what_its_declaration_needs() {
    let template = template::parse().expect("template");
    let declared = declared(&template);
    assert_eq!(
        declared.len(),
        permissions::FUNCTIONS.len(),
        "a declared binary the template does not deploy"
    );
    for (name, resource, declaration) in declared {
        let grants = grants(&template, resource);
        let wrong = mismatches(&grants, declaration.sends);
        assert!(wrong.is_empty(), "{name}:\n{}", wrong.join("\n"));
        for grant in &grants {
            // The one wildcard: a bucket's objects under the pictures' prefix (S3 grants on
            // objects name keys; the store's keys are chosen per upload).
            let objects =
                grant.resource.ends_with("/media/*") && grant.resource.matches('*').count() == 1;
            assert!(
                !grant.action.contains('*') && (!grant.resource.contains('*') || objects),
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
    }
}

/// The check catches each way a policy can drift from the declarations: a grant removed, a read
/// grant nothing uses, an attribute nothing writes, a partition too many.
#[test]
fn a_missing_unused_or_too_broad_grant_is_caught() {
    let template = template::parse().expect("template");
    let declared = declared(&template);
    let (_, webhook, declaration) = declared
        .iter()
        .find(|(name, ..)| *name == "PaymentWebhookFunction")
        .expect("the webhook");
    let grants = grants(&template, webhook);
    assert!(mismatches(&grants, declaration.sends).is_empty());

    let mut removed = grants.clone();
    removed.retain(|g| g.action != "dynamodb:GetItem" || is_warm_up(g));
    assert!(
        mismatches(&removed, declaration.sends)
            .iter()
            .any(|w| w.starts_with("no grant allows"))
    );

    let mut unused_read = grants.clone();
    // The webhook reads orders (a canceled hold's lines), never a product.
    unused_read.push(grant("dynamodb:Query", TABLE, &["PRODUCT#*"], &[]));
    assert!(
        mismatches(&unused_read, declaration.sends)
            .iter()
            .any(|w| w.starts_with("nothing declared needs"))
    );

    let mut extra_key = grants.clone();
    for g in &mut extra_key {
        if g.action == "dynamodb:GetItem" && !is_warm_up(g) {
            g.conditions
                .get_mut(LEADING_KEYS)
                .expect("keys")
                .push("PAYMENT_EVENT#*".to_owned());
        }
    }
    assert!(
        mismatches(&extra_key, declaration.sends)
            .iter()
            .any(|w| w.contains("PAYMENT_EVENT#*: nothing declared"))
    );

    let mut extra_attribute = grants;
    for g in &mut extra_attribute {
        if g.action == "dynamodb:PutItem" {
            g.conditions
                .get_mut(ATTRIBUTES)
                .expect("attributes")
                .push("note".to_owned());
        }
    }
    assert!(
        mismatches(&extra_attribute, declaration.sends)
            .iter()
            .any(|w| w.contains("allows"))
    );
}
