//! The four access patterns' section: each function's cold starts and warm latencies beside
//! the Python peer's, and in process the handler against the bare SDK request.

use crate::callgrind::{Instructions, count_instructions};
use crate::cli::{Options, PATTERNS, Pattern};
use crate::process::{Model, PROVISIONED, Series, command, measure};
use axum::body::Bytes;
use lambda_http::{Body, Request, Response};
use local_engine::runtime_api::{Error, lambda_environment};
use local_engine::testing::TestApp;
use shared::domain::ids::{CustomerId, OrderId};
use shared::domain::status::OrderStatus;
use shared::dynamo::entities::{customer, line_item, order_header, order_listing};
use shared::dynamo::keys;
use shared::http::gateway::StaffClients;
use shared::http::serve::dispatch;
use shared::{AppError, Store};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::process::Command;

/// Handler/raw request pairs timed in process per function.
pub(crate) const IN_PROCESS_PAIRS: usize = 1000;
/// The one SDK request each pattern is, sent alone: the floor for the handler's latency.
pub(crate) async fn raw_request(store: &Store, binary: &str) -> Result<(), AppError> {
    let client = store.client();
    let s = |v: &str| aws_sdk_dynamodb::types::AttributeValue::S(v.to_owned());
    let c1 = CustomerId::parse("c1")?;
    let o100 = OrderId::parse("o100")?;
    let (lo, hi) = order_listing::sk_range(None, None);
    match binary {
        "get-customer" => {
            client
                .get_item()
                .table_name(store.table())
                .key(keys::PK, s(&customer::pk(&c1)))
                .key(keys::SK, s(customer::SORT_KEY))
                .send()
                .await?;
        }
        "list-customer-orders" => {
            client
                .query()
                .table_name(store.table())
                .key_condition_expression("#pk = :pk AND #sk BETWEEN :lo AND :hi")
                .expression_attribute_names("#pk", keys::PK)
                .expression_attribute_names("#sk", keys::SK)
                .expression_attribute_values(":pk", s(&order_listing::pk(&c1)))
                .expression_attribute_values(":lo", s(&lo))
                .expression_attribute_values(":hi", s(&hi))
                .scan_index_forward(false)
                .limit(6)
                .send()
                .await?;
        }
        "get-order-items" => {
            client
                .query()
                .table_name(store.table())
                // The header (the owner) and the lines; a customer's page reads up to 98 items.
                .key_condition_expression("#pk = :pk AND #sk BETWEEN :from AND :to")
                .expression_attribute_names("#pk", keys::PK)
                .expression_attribute_names("#sk", keys::SK)
                .expression_attribute_values(":pk", s(&line_item::pk(&o100)))
                .expression_attribute_values(":from", s(order_header::SORT_KEY))
                .expression_attribute_values(
                    ":to",
                    s(&keys::ORDER_PARTITION
                        .range(keys::Entity::OrderHeader, keys::Entity::LineItem)
                        .1),
                )
                .limit(98)
                .send()
                .await?;
        }
        "list-orders-by-status" => {
            client
                .query()
                .table_name(store.table())
                .index_name(keys::GSI1)
                .key_condition_expression("#pk = :pk")
                .expression_attribute_names("#pk", keys::GSI1PK)
                .expression_attribute_values(
                    ":pk",
                    s(&order_listing::gsi1pk(OrderStatus::Placed, 0)),
                )
                .limit(11)
                .send()
                .await?;
        }
        other => {
            return Err(AppError::internal(format!(
                "the bench has no bare request for {other}: add its arm"
            )));
        }
    }
    Ok(())
}
pub(crate) async fn handler(store: &Store, binary: &str, req: Request) -> Response<Body> {
    match binary {
        "get-customer" => dispatch(store, req, functions::get_customer::handle).await,
        "list-customer-orders" => {
            dispatch(store, req, functions::list_customer_orders::handle).await
        }
        "get-order-items" => dispatch(store, req, functions::get_order_items::handle).await,
        "list-orders-by-status" => {
            dispatch(store, req, functions::list_orders_by_status::handle).await
        }
        other => panic!("the bench has no handler for {other}: add its arm"),
    }
}
/// What one function's measurements came to.
pub(crate) struct Row {
    pub(crate) name: &'static str,
    pub(crate) rust: Series,
    /// The Python peer, measured the same way.
    pub(crate) python: Option<Series>,
    pub(crate) raw: Vec<Duration>,
    pub(crate) handled: Vec<Duration>,
    pub(crate) requests: BTreeMap<String, usize>,
    /// Instructions under callgrind (`--callgrind` only).
    pub(crate) instructions: Option<Counted>,
}

/// A pattern's instructions: ours in each kind of init, and the peer's.
#[derive(Clone, Copy)]
pub(crate) struct Counted {
    /// An on-demand init: the connection is the first request's to open.
    pub(crate) rust: Instructions,
    /// A provisioned one, which opens the connection ahead of traffic: what the first request
    /// still does beyond a warm one is the work no warm-up moved.
    pub(crate) provisioned: Instructions,
    pub(crate) python: Option<Instructions>,
}

/// The section: each pattern's release binary and its peers, their instructions under
/// callgrind, and the in-process comparison; one row per pattern.
pub(crate) async fn section(
    o: &Options,
    app: &TestApp,
    endpoint: &str,
    home: &Path,
) -> Result<Vec<Row>, Error> {
    let mut rows = Vec::new();
    for p in &PATTERNS {
        let event = p.event_bytes()?;
        let start = Starter {
            o,
            p,
            endpoint,
            home,
        };
        let events = || event.clone();
        let rust = measure(Model::FullCore, o.runs, o.warm, &events, || {
            start.rust(None)
        })
        .await
        .map_err(|e| format!("{}: {e}", p.binary))?;
        let python = match &o.python {
            Some(python) => Some(
                measure(Model::FullCore, o.runs, o.warm, &events, || {
                    start.python(python, None)
                })
                .await
                .map_err(|e| format!("python {}: {e}", p.python))?,
            ),
            None => None,
        };
        let instructions = if o.callgrind {
            let rust = count_instructions(&events, |out| start.rust(Some(out))).await?;
            let provisioned = count_instructions(&events, |out| {
                let mut c = start.rust(Some(out));
                c.env("AWS_LAMBDA_INITIALIZATION_TYPE", PROVISIONED);
                c
            })
            .await?;
            let python = match &o.python {
                Some(python) => {
                    Some(count_instructions(&events, |out| start.python(python, Some(out))).await?)
                }
                None => None,
            };
            Some(Counted {
                rust,
                provisioned,
                python,
            })
        } else {
            None
        };
        let (raw, handled, requests) = in_process(app, p, &event).await?;
        rows.push(Row {
            name: p.binary,
            rust,
            python,
            raw,
            handled,
            requests,
            instructions,
        });
    }
    Ok(rows)
}

/// How a pattern's processes are started: the release binary, or the Python peer.
struct Starter<'a> {
    o: &'a Options,
    p: &'a Pattern,
    endpoint: &'a str,
    home: &'a Path,
}

impl Starter<'_> {
    fn start(
        &self,
        program: &Path,
        args: &[String],
        function: &str,
        out: Option<&Path>,
    ) -> Command {
        let python_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");
        let mut c = command(program, args, out);
        lambda_environment(&mut c, function, self.endpoint, self.home);
        c.env("PYTHONPATH", &python_dir)
            .env("PYTHONDONTWRITEBYTECODE", "1");
        c
    }

    fn rust(&self, out: Option<&Path>) -> Command {
        self.start(&self.o.bin_dir.join(self.p.binary), &[], self.p.binary, out)
    }

    fn python(&self, python: &Path, out: Option<&Path>) -> Command {
        self.start(python, &self.p.python_args(), self.p.python, out)
    }
}

/// In process: the handler (event parsing included) against the bare SDK request, in
/// alternating order so that neither always runs just after the other's engine work; then the
/// requests one handled invocation makes, by operation.
async fn in_process(
    app: &TestApp,
    p: &Pattern,
    event: &Bytes,
) -> Result<(Vec<Duration>, Vec<Duration>, BTreeMap<String, usize>), Error> {
    let text = String::from_utf8_lossy(event).into_owned();
    let staff_clients = StaffClients::from_env();
    let mut raw = Vec::new();
    let mut handled = Vec::new();
    for i in 0..IN_PROCESS_PAIRS {
        for handler_turn in [i % 2 == 1, i % 2 == 0] {
            let t = Instant::now();
            if handler_turn {
                let req = shared::http::gateway::request_from_json(&text, &staff_clients)?;
                let response = handler(&app.store, p.binary, req).await;
                handled.push(t.elapsed());
                assert_eq!(response.status(), 200, "{}", p.binary);
            } else {
                raw_request(&app.store, p.binary).await?;
                raw.push(t.elapsed());
            }
        }
    }
    app.requests.reset();
    let req = shared::http::gateway::request_from_json(&text, &staff_clients)?;
    handler(&app.store, p.binary, req).await;
    raw.sort();
    handled.sort();
    Ok((raw, handled, app.requests.by_operation()))
}
