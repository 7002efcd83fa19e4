//! Each function's declaration (`shared::permissions`) enforced where its requests are sent.
//! While a handler runs [`as_function`], every request its store sends (one action of a
//! transaction, one key of a BatchGetItem at a time) must be one its binary declares: the
//! operation, the entity its key names or the index partition it reads, and for a write the
//! attributes it names. A request outside the declaration is refused before it is sent, as IAM
//! would refuse it in AWS, and fails the test that sent it. Every engine client carries the
//! check ([`Enforce`]); outside a scope (a test's own setup and reads) it does nothing.
//!
//! Which declared requests were sent is written to `STORE_SENDS_USED` (a folder) when it is
//! set, so `make test` can list the declarations no test ever sends: grants that can go.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::BeforeTransmitInterceptorContextMut;
use aws_smithy_runtime_api::client::orchestrator::Metadata;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;
use serde_json::Value;
use shared::dynamo::keys::{self, Entity};
use shared::dynamo::query::Index;
use shared::permissions::{self, Function, Sends};

/// The folder the declared requests sent are written to, one file per process.
pub const USED_DIR: &str = "STORE_SENDS_USED";

tokio::task_local! {
    static SERVING: Serving;
}

/// The function a scope runs as, and what its requests did.
#[derive(Clone)]
struct Serving {
    function: &'static Function,
    seen: Arc<Mutex<Seen>>,
}

#[derive(Default)]
struct Seen {
    /// Requests no line of the declaration covers.
    outside: Vec<String>,
    /// The declaration's lines that covered a request, by position.
    used: BTreeSet<usize>,
}

/// Runs `work` as the Lambda built from `binary`: each request it sends is held to that
/// binary's declaration. Panics (failing the test) when a request was outside it, and when
/// `binary` declares nothing at all.
pub async fn as_function<F: Future>(binary: &str, work: F) -> F::Output {
    let (output, outside) = serving(binary, work).await;
    assert!(
        outside.is_empty(),
        "{binary} sent what shared::permissions does not declare for it (IAM would refuse it):\n  {}",
        outside.join("\n  ")
    );
    output
}

/// [`as_function`] for make dev: the requests refused are returned, for the log.
pub async fn serving<F: Future>(binary: &str, work: F) -> (F::Output, Vec<String>) {
    let function = permissions::of(binary)
        .unwrap_or_else(|| panic!("{binary} has no line in shared::permissions::FUNCTIONS"));
    let serving = Serving {
        function,
        seen: Arc::default(),
    };
    let output = SERVING.scope(serving.clone(), work).await;
    let seen = std::mem::take(&mut *serving.seen.lock().unwrap_or_else(PoisonError::into_inner));
    note_used(binary, &seen.used);
    (output, seen.outside)
}

/// Appends `binary`'s declared lines that were sent to this process's file in
/// [`USED_DIR`], when it is set.
fn note_used(binary: &str, used: &BTreeSet<usize>) {
    let Some(dir) = std::env::var_os(USED_DIR) else {
        return;
    };
    if used.is_empty() {
        return;
    }
    let dir = std::path::PathBuf::from(dir);
    let lines: String = used.iter().map(|at| format!("{binary}\t{at}\n")).collect();
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(format!("{}.tsv", std::process::id())))?
            .write_all(lines.as_bytes())
    });
    if let Err(error) = written {
        panic!(
            "cannot note the declared requests sent in {}: {error}",
            dir.display()
        );
    }
}

/// The declared lines no request in `dir`'s notes used, as `binary: line`: what a whole test
/// run never sent, so its grant can go (or a test is missing). An unreadable note is an error.
pub fn unused(dir: &std::path::Path) -> std::io::Result<Vec<String>> {
    let mut used = BTreeSet::new();
    for entry in std::fs::read_dir(dir)? {
        let text = std::fs::read_to_string(entry?.path())?;
        for line in text.lines() {
            if let Some((binary, at)) = line.split_once('\t') {
                let at: usize = at.parse().map_err(|_| {
                    std::io::Error::new(std::io::ErrorKind::InvalidData, line.to_owned())
                })?;
                used.insert((binary.to_owned(), at));
            }
        }
    }
    Ok(permissions::FUNCTIONS
        .iter()
        .flat_map(|function| {
            let used = &used;
            function
                .sends
                .iter()
                .enumerate()
                .filter_map(move |(at, sends)| {
                    let sent = used.contains(&(function.binary.to_owned(), at))
                    // The stream is read by the event source mapping, not by the code.
                    || *sends == Sends::ReadStream
                    // Other services' requests are not the engine's to see.
                    || sends.entity().is_none() && !matches!(sends, Sends::QueryIndex(..));
                    (!sent).then(|| format!("{}: {sends:?}", function.binary))
                })
        })
        .collect())
}

/// The check, on every engine client.
#[derive(Debug, Clone, Copy, Default)]
pub struct Enforce;

impl Intercept for Enforce {
    fn name(&self) -> &'static str {
        "Enforce"
    }

    fn modify_before_signing(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Ok(serving) = SERVING.try_with(Serving::clone) else {
            return Ok(());
        };
        let operation = cfg.load::<Metadata>().map_or("unknown", Metadata::name);
        let body = context
            .request()
            .body()
            .bytes()
            .and_then(|bytes| serde_json::from_slice(bytes).ok())
            .unwrap_or(Value::Null);
        let mut seen = serving.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let mut refused = Vec::new();
        for request in requests_of(operation, &body) {
            let lines = covering(serving.function, &request);
            if lines.is_empty() {
                refused.push(format!("{request:?}"));
            }
            seen.used.extend(lines);
        }
        if refused.is_empty() {
            return Ok(());
        }
        seen.outside.extend(refused.iter().cloned());
        Err(format!(
            "AccessDenied: {} does not declare {}",
            serving.function.binary,
            refused.join("; ")
        )
        .into())
    }
}

/// What a request asks of the table, as IAM authorizes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    GetItem,
    BatchGetItem,
    Query,
    PutItem,
    UpdateItem,
    DeleteItem,
    /// A transaction's ConditionCheck: nothing declares one.
    ConditionCheck,
    /// An operation the declarations cannot say (Scan, PartiQL, ...).
    Other,
}

/// One request as a declaration covers it.
#[derive(Debug, Clone)]
pub struct Request {
    pub action: Action,
    pub index: Index,
    pub pk: String,
    /// The sort key, for an item.
    pub sk: Option<String>,
    /// The attributes a write names, keys included, as IAM's `dynamodb:Attributes` counts them.
    pub attributes: BTreeSet<String>,
}

/// The requests of one call: a read, a write, each key of a BatchGetItem, or each action of a
/// TransactWriteItems (which IAM authorizes as the PutItem, UpdateItem, ... it holds).
pub fn requests_of(operation: &str, body: &Value) -> Vec<Request> {
    let item = |action, request: &Value, keys: &Value| {
        let text = |name: &str| keys[name]["S"].as_str().map(str::to_owned);
        let mut attributes: BTreeSet<String> = keys
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, _)| name.clone())
            .collect();
        attributes.extend(top_level_names(request));
        Request {
            action,
            index: Index::Table,
            pk: text(keys::PK).unwrap_or_default(),
            sk: Some(text(keys::SK).unwrap_or_default()),
            attributes,
        }
    };
    match operation {
        "GetItem" => vec![item(Action::GetItem, body, &body["Key"])],
        "PutItem" => vec![item(Action::PutItem, body, &body["Item"])],
        "UpdateItem" => vec![item(Action::UpdateItem, body, &body["Key"])],
        "DeleteItem" => vec![item(Action::DeleteItem, body, &body["Key"])],
        "BatchGetItem" => body["RequestItems"]
            .as_object()
            .into_iter()
            .flatten()
            .flat_map(|(_, table)| table["Keys"].as_array().cloned().unwrap_or_default())
            .map(|keys| item(Action::BatchGetItem, &Value::Null, &keys))
            .collect(),
        "Query" => vec![Request {
            action: Action::Query,
            index: match body["IndexName"].as_str() {
                None => Index::Table,
                Some(keys::GSI1) => Index::Gsi1,
                Some(keys::GSI2) => Index::Gsi2,
                Some(keys::GSI3) => Index::Gsi3,
                // An index the declarations cannot name: covered by nothing.
                Some(_) => return vec![other(operation)],
            },
            pk: body["ExpressionAttributeValues"][":pk"]["S"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            sk: None,
            attributes: BTreeSet::new(),
        }],
        "TransactWriteItems" => body["TransactItems"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|action| {
                for (kind, iam, keys) in [
                    ("Put", Action::PutItem, "Item"),
                    ("Update", Action::UpdateItem, "Key"),
                    ("Delete", Action::DeleteItem, "Key"),
                    ("ConditionCheck", Action::ConditionCheck, "Key"),
                ] {
                    if !action[kind].is_null() {
                        return item(iam, &action[kind], &action[kind][keys]);
                    }
                }
                other("an empty transaction action")
            })
            .collect(),
        _ => vec![other(operation)],
    }
}

fn other(what: &str) -> Request {
    Request {
        action: Action::Other,
        index: Index::Table,
        pk: what.to_owned(),
        sk: None,
        attributes: BTreeSet::new(),
    }
}

/// The attributes a request's expressions name: the first name of each document path
/// (`#held.#held_0` names `held`; the entry's key is no attribute).
fn top_level_names(request: &Value) -> Vec<String> {
    let names: HashMap<String, String> = request["ExpressionAttributeNames"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(alias, name)| Some((alias.clone(), name.as_str()?.to_owned())))
        .collect();
    let mut out = Vec::new();
    for field in [
        "UpdateExpression",
        "ConditionExpression",
        "ProjectionExpression",
    ] {
        let text = request[field].as_str().unwrap_or_default();
        let mut previous = ' ';
        for (at, c) in text.char_indices() {
            if c == '#' && previous != '.' {
                let rest = &text[at..];
                let end = rest[1..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(rest.len(), |end| end + 1);
                // An unbound alias names an attribute nobody declared.
                out.push(
                    names
                        .get(&rest[..end])
                        .cloned()
                        .unwrap_or_else(|| rest[..end].to_owned()),
                );
            }
            previous = c;
        }
    }
    out
}

/// `pk` is one that a LeadingKeys pattern (`CUSTOMER#*`) admits.
fn admits(pattern: &str, pk: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => pk.starts_with(prefix),
        None => pk == pattern,
    }
}

/// The positions of `function`'s declared lines that cover `request` (none: IAM would refuse
/// it). The warm-up read every function makes at init is declared by all of them, at a
/// position of its own past their lines.
pub fn covering(function: &Function, request: &Request) -> Vec<usize> {
    if request.action == Action::GetItem && request.pk == keys::warm_up::PK {
        return vec![function.sends.len()];
    }
    (0..function.sends.len())
        .filter(|&at| covers(function.sends[at], request))
        .collect()
}

/// Whether one declared line covers `request`.
pub fn covers(sends: Sends, request: &Request) -> bool {
    let entity = || Entity::of(&request.pk, request.sk.as_deref().unwrap_or_default());
    let on_table = request.index == Index::Table;
    let writes = |entity_declared: Entity| {
        on_table
            && entity() == Some(entity_declared)
            && sends.attributes().is_some_and(|names| {
                request
                    .attributes
                    .iter()
                    .all(|a| names.contains(&a.as_str()))
            })
    };
    match (sends, request.action) {
        (Sends::GetItem(declared), Action::GetItem)
        | (Sends::BatchGetItem(declared), Action::BatchGetItem) => {
            on_table && entity() == Some(declared)
        }
        (Sends::Query(declared), Action::Query) => {
            on_table && admits(&permissions::leading_keys(declared), &request.pk)
        }
        (Sends::QueryIndex(index, partitions), Action::Query) => {
            request.index == index && admits(&partitions.leading_keys(), &request.pk)
        }
        (Sends::PutItem(spec), Action::PutItem) => writes(spec.entity),
        (Sends::DeleteItem(spec), Action::DeleteItem) => writes(spec.entity),
        (Sends::UpdateItem(_), Action::UpdateItem) => sends.entity().is_some_and(writes),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn get_customer() -> &'static Function {
        permissions::of("get-customer").expect("declared")
    }

    #[test]
    fn a_read_of_the_declared_entity_is_covered_and_of_another_is_not() {
        let profile = json!({"Key": {"PK": {"S": "CUSTOMER#c1"}, "SK": {"S": "PROFILE"}}});
        let [read] = requests_of("GetItem", &profile).try_into().expect("one");
        assert_eq!(covering(get_customer(), &read), [0]);
        let header = json!({"Key": {"PK": {"S": "ORDER#o1"}, "SK": {"S": "HEADER"}}});
        let [read] = requests_of("GetItem", &header).try_into().expect("one");
        assert_eq!(covering(get_customer(), &read), [0usize; 0]);
    }

    #[test]
    fn a_write_naming_an_undeclared_attribute_is_not_covered() {
        let put = permissions::of("put-customer").expect("declared");
        let update = |names: Value| {
            json!({
                "Key": {"PK": {"S": "CUSTOMER#c1"}, "SK": {"S": "PROFILE"}},
                "UpdateExpression": "SET #a = :a",
                "ExpressionAttributeNames": names,
            })
        };
        let [named] = requests_of("UpdateItem", &update(json!({"#a": "name"})))
            .try_into()
            .expect("one");
        assert!(!covering(put, &named).is_empty(), "{named:?}");
        let [fax] = requests_of("UpdateItem", &update(json!({"#a": "fax"})))
            .try_into()
            .expect("one");
        assert_eq!(covering(put, &fax), [0usize; 0]);
        // A write its declaration does not make at all.
        let delete = json!({"Key": {"PK": {"S": "CUSTOMER#c1"}, "SK": {"S": "PROFILE"}}});
        let [gone] = requests_of("DeleteItem", &delete).try_into().expect("one");
        assert_eq!(covering(put, &gone), [0usize; 0]);
    }

    #[test]
    fn each_action_of_a_transaction_is_held_on_its_own_and_a_scan_by_nothing() {
        let place = permissions::of("place-order").expect("declared");
        let transaction = json!({"TransactItems": [
            {"Put": {"Item": {"PK": {"S": "ORDER#o1"}, "SK": {"S": "HEADER"}}}},
            {"ConditionCheck": {"Key": {"PK": {"S": "CUSTOMER#c1"}, "SK": {"S": "PROFILE"}}}},
        ]});
        let actions = requests_of("TransactWriteItems", &transaction);
        assert_eq!(actions.len(), 2);
        assert!(!covering(place, &actions[0]).is_empty(), "{:?}", actions[0]);
        assert_eq!(covering(place, &actions[1]), [0usize; 0]);
        let [scan] = requests_of("Scan", &json!({})).try_into().expect("one");
        assert_eq!(covering(place, &scan), [0usize; 0]);
    }

    #[test]
    fn a_query_is_held_to_its_index_and_partitions() {
        let by_status = permissions::of("list-orders-by-status").expect("declared");
        let query = |index: Option<&str>, pk: &str| {
            let mut body = json!({"ExpressionAttributeValues": {":pk": {"S": pk}}});
            if let Some(index) = index {
                body["IndexName"] = json!(index);
            }
            requests_of("Query", &body).remove(0)
        };
        assert!(!covering(by_status, &query(Some("GSI1"), "STATUS#PLACED#3")).is_empty());
        assert_eq!(
            covering(by_status, &query(Some("GSI1"), "REFUNDS#x")),
            [0usize; 0]
        );
        assert_eq!(
            covering(by_status, &query(None, "STATUS#PLACED")),
            [0usize; 0]
        );
        assert_eq!(
            covering(by_status, &query(Some("GSI2"), "STATUS#PLACED")),
            [0usize; 0]
        );
    }

    #[test]
    fn a_declared_line_no_note_names_is_listed_unused() {
        let dir = std::env::temp_dir().join(format!("sends-used-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("1.tsv"), "get-customer\t0\nput-customer\t0\n").expect("note");
        let unused = unused(&dir).expect("read");
        assert!(
            !unused.iter().any(|u| u.starts_with("get-customer:")),
            "{unused:?}"
        );
        assert!(
            unused
                .iter()
                .any(|u| u.starts_with("list-customer-orders:")),
            "{unused:?}"
        );
        // The secret checkout reads, and the stream order-stats reads, are not the engine's.
        assert!(
            !unused
                .iter()
                .any(|u| u.contains("GetSecret") || u.contains("ReadStream"))
        );
        std::fs::write(dir.join("2.tsv"), "get-customer\tzero\n").expect("note");
        assert!(super::unused(&dir).is_err());
        std::fs::remove_dir_all(&dir).expect("clean");
    }

    #[tokio::test]
    async fn outside_a_scope_nothing_is_held_and_inside_what_is_refused_is_reported() {
        let engine = crate::Engine::in_memory().await.expect("engine");
        crate::seed::seed_if_empty(&engine.client(), crate::LOCAL_TABLE)
            .await
            .expect("seed");
        let client = engine.client();
        let read = |pk: &'static str, sk: &'static str| {
            client
                .get_item()
                .table_name(crate::LOCAL_TABLE)
                .key(
                    keys::PK,
                    aws_sdk_dynamodb::types::AttributeValue::S(pk.into()),
                )
                .key(
                    keys::SK,
                    aws_sdk_dynamodb::types::AttributeValue::S(sk.into()),
                )
                .send()
        };
        assert!(read("ORDER#o100", "HEADER").await.is_ok());
        let ((profile, header), outside) = serving("get-customer", async {
            (
                read("CUSTOMER#c1", "PROFILE").await,
                read("ORDER#o100", "HEADER").await,
            )
        })
        .await;
        assert!(profile.is_ok(), "{profile:?}");
        assert!(header.is_err(), "the header read was sent");
        assert_eq!(outside.len(), 1, "{outside:?}");
        assert!(outside[0].contains("ORDER#o100"), "{outside:?}");
    }
}
