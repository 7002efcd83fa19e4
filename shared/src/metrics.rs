//! The store's CloudWatch metrics, in Embedded Metric Format: what an invocation did is
//! recorded while it runs and printed as ONE JSON line on stdout when it ends; CloudWatch Logs
//! turns the line into metrics. No API call, no agent, no dependency, nothing at init.
//!
//! One namespace, [`NAMESPACE`]. Every metric has the dimension `Function` (the function's
//! name: one value per function); `StatusChanges` also has `Function, Status` (the status moved
//! to: four values). Request and trace IDs ride along as properties, searchable in Logs
//! Insights, never dimensions.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::AfterDeserializationInterceptorContextRef;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;
use serde_json::{Map, Value, json};

use crate::domain::money::Money;
use crate::domain::status::OrderStatus;
use crate::dynamo::errors::THROTTLING_CODES;

/// The CloudWatch namespace of every metric the store emits.
pub const NAMESPACE: &str = "OnlineStore";

crate::listed! {
    /// What the store counts and measures.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    pub enum Metric {
        /// Orders placed (not replays).
        OrdersPlaced,
        /// The total of each order placed, in the store's currency.
        OrderValue,
        /// Orders moved to another status (dimension `Status`: the new one).
        StatusChanges,
        /// POSTs answered with an earlier request's answer (`Idempotent-Replayed: true`).
        IdempotentReplays,
        /// DynamoDB transaction attempts cancelled by a concurrent transaction.
        TransactionConflicts,
        /// DynamoDB request attempts throttled.
        Throttles,
        /// Stream records whose change was written.
        RecordsApplied,
        /// Stream records found applied already (a redelivery).
        RecordsSkipped,
        /// Stream records reported failed (Lambda delivers them again).
        RecordsFailed,
        /// Invocations that began with the process's init.
        ColdStarts,
        /// Carts checked out: orders made PENDING_PAYMENT, their stock held.
        HoldsMade,
        /// Holds paid: orders moved PENDING_PAYMENT → PLACED by a signed payment.
        HoldsPaid,
        /// Holds ended unpaid by the expiry: orders moved PENDING_PAYMENT → EXPIRED, stock back.
        HoldsExpired,
        /// Items (or a shard's page) the expiry could not get past: reported by key, the rest
        /// ended all the same.
        HoldsNotEnded,
        /// Webhook calls refused: a missing or bad signature, or a timestamp out of tolerance.
        WebhookRejected,
        /// Signed payments that match no hold (an unknown order, the wrong amount or currency):
        /// recorded for refund.
        PaymentsUnmatched,
        /// Signed payments for a hold that had ended (or was settled already): recorded for refund.
        PaymentsLate,
        /// Stream records of items DynamoDB's TTL deleted (never a customer's action).
        TtlDeletions,
        /// Signed provider events the store could not read: kept as signed, answered 200.
        EventsUnreadable,
        /// PaymentIntents of ended holds the provider did not cancel (down, or the run out of
        /// time): a payment of one is recorded for refund.
        IntentsNotCanceled,
        /// Refunds recorded to be paid back (staff's, cancellations', payments that placed
        /// nothing are counted as PaymentsLate and PaymentsUnmatched).
        RefundsRequested,
        /// Refunds the provider paid back.
        RefundsSucceeded,
        /// Refunds the provider refused: FAILED, with its reason; the money is still the
        /// store's, and a person must act.
        RefundsFailed,
        /// Refunds whose send went unanswered: the next run looks for each before it sends
        /// again.
        RefundsUnsettled,
        /// Refunds PENDING for more than a day.
        RefundsOverdue,
        /// Refunds the provider paid and then reported failed after all: REVERSED, the money
        /// back with the store and the customer still owed it.
        RefundsReversed,
        /// Payments the payer's bank disputes: the order is flagged, and a person must answer
        /// the dispute at the provider before its deadline.
        DisputesOpened,
        /// Store events EventBridge accepted (each redelivery's again: consumers drop
        /// duplicates by `eventId`).
        EventsPublished,
        /// Store event entries EventBridge refused or never answered for, each attempt: the
        /// entry is sent again, and its record reported failed once its attempts are spent.
        EventEntriesFailed,
        /// Stream records the publisher sent to its dead-letter queue with their reason: their
        /// events are not on the bus, and a person must look.
        EventRecordsDeadLettered,
        /// Customer emails the mail service took.
        EmailsSent,
        /// Deliveries of an event whose email was dealt with already (sent, or not to be).
        EmailsDuplicate,
        /// Customer emails the mail service refused for good (an address it will not deliver
        /// to, a sender it does not know): a person must look.
        EmailsRefused,
        /// Customer emails not sent because the customer has no address (or no profile).
        EmailsWithoutAddress,
        /// Fulfilments recorded: some of an order's lines handed to a carrier.
        FulfilmentsShipped,
        /// Fulfilments delivered.
        FulfilmentsDelivered,
        /// Returns asked for by customers.
        ReturnsRequested,
        /// Returns received: their units counted back.
        ReturnsReceived,
    }
}

impl Metric {
    /// The metric's name in CloudWatch.
    pub fn name(self) -> &'static str {
        match self {
            Metric::OrdersPlaced => "OrdersPlaced",
            Metric::OrderValue => "OrderValue",
            Metric::StatusChanges => "StatusChanges",
            Metric::IdempotentReplays => "IdempotentReplays",
            Metric::TransactionConflicts => "TransactionConflicts",
            Metric::Throttles => "Throttles",
            Metric::RecordsApplied => "RecordsApplied",
            Metric::RecordsSkipped => "RecordsSkipped",
            Metric::RecordsFailed => "RecordsFailed",
            Metric::ColdStarts => "ColdStarts",
            Metric::HoldsMade => "HoldsMade",
            Metric::HoldsPaid => "HoldsPaid",
            Metric::HoldsExpired => "HoldsExpired",
            Metric::HoldsNotEnded => "HoldsNotEnded",
            Metric::WebhookRejected => "WebhookRejected",
            Metric::PaymentsUnmatched => "PaymentsUnmatched",
            Metric::PaymentsLate => "PaymentsLate",
            Metric::TtlDeletions => "TtlDeletions",
            Metric::EventsUnreadable => "EventsUnreadable",
            Metric::IntentsNotCanceled => "IntentsNotCanceled",
            Metric::RefundsRequested => "RefundsRequested",
            Metric::RefundsSucceeded => "RefundsSucceeded",
            Metric::RefundsFailed => "RefundsFailed",
            Metric::RefundsUnsettled => "RefundsUnsettled",
            Metric::RefundsOverdue => "RefundsOverdue",
            Metric::RefundsReversed => "RefundsReversed",
            Metric::DisputesOpened => "DisputesOpened",
            Metric::EventsPublished => "EventsPublished",
            Metric::EventEntriesFailed => "EventEntriesFailed",
            Metric::EventRecordsDeadLettered => "EventRecordsDeadLettered",
            Metric::EmailsSent => "EmailsSent",
            Metric::EmailsDuplicate => "EmailsDuplicate",
            Metric::EmailsRefused => "EmailsRefused",
            Metric::EmailsWithoutAddress => "EmailsWithoutAddress",
            Metric::FulfilmentsShipped => "FulfilmentsShipped",
            Metric::FulfilmentsDelivered => "FulfilmentsDelivered",
            Metric::ReturnsRequested => "ReturnsRequested",
            Metric::ReturnsReceived => "ReturnsReceived",
        }
    }

    /// The CloudWatch unit: counts, except an order's value (money has no CloudWatch unit).
    pub fn unit(self) -> &'static str {
        match self {
            Metric::OrderValue => "None",
            _ => "Count",
        }
    }
}

/// What one invocation recorded.
#[derive(Debug, Default)]
struct Recorded {
    /// Counts by metric, in the order first recorded.
    counts: Vec<(Metric, u64)>,
    /// Order values, exact decimal text (a JSON number as written, never a float).
    values: Vec<String>,
    /// The status a status change moved to (a PATCH moves one order): the Status dimension.
    status: Option<OrderStatus>,
}

/// The recorder of the invocation under way, shared with the SDK interceptor.
#[derive(Debug, Clone, Default)]
pub struct Recorder(Arc<Mutex<Recorded>>);

tokio::task_local! {
    static RECORDER: Recorder;
}

/// Whether this process has answered an invocation yet.
static WARM: AtomicBool = AtomicBool::new(false);

fn with(f: impl FnOnce(&mut Recorded)) {
    // Outside an invocation (make dev, a test that does not record) there is nothing to do.
    let _ = RECORDER.try_with(|r| f(&mut r.0.lock().unwrap_or_else(PoisonError::into_inner)));
}

/// Adds `n` to `metric` for this invocation.
pub fn count(metric: Metric, n: u64) {
    if n == 0 {
        return;
    }
    with(|r| match r.counts.iter_mut().find(|(m, _)| *m == metric) {
        Some((_, total)) => *total += n,
        None => r.counts.push((metric, n)),
    });
}

/// An order placed, of `total`.
pub fn order_placed(total: &Money) {
    count(Metric::OrdersPlaced, 1);
    with(|r| r.values.push(total.to_string()));
}

/// An order moved to `status`.
pub fn status_changed(status: OrderStatus) {
    count(Metric::StatusChanges, 1);
    with(|r| r.status = Some(status));
}

/// Whether this is the process's first invocation (the serving loops ask once per event).
pub fn cold_start() -> bool {
    !WARM.swap(true, Ordering::Relaxed)
}

/// Runs `invocation` with a recorder of its own (counting a cold start if it is one); the
/// invocation's output and what it recorded.
pub async fn recorded<F: Future>(cold_start: bool, invocation: F) -> (F::Output, Recorder) {
    let recorder = Recorder::default();
    if cold_start {
        recorder
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .counts
            .push((Metric::ColdStarts, 1));
    }
    // Boxed: the handler's future (the SDK's state machines) is tens of KB, and the runtime
    // moves the invocation's future several times a request; moved inline it cost ~36 k
    // instructions of memcpy per warm request (callgrind, make bench).
    let output = RECORDER.scope(recorder.clone(), Box::pin(invocation)).await;
    (output, recorder)
}

/// Where the order values go in a line before they are written in, digit for digit.
const VALUE_SLOT: &str = "__ORDER_VALUE__";

/// Who the line is about: the function, the invocation's request ID and X-Ray trace ID.
#[derive(Debug, Clone, Copy)]
pub struct Invocation<'a> {
    /// The function's name.
    pub function: &'a str,
    /// The invocation's request ID.
    pub request_id: &'a str,
    /// The X-Ray trace ID, when tracing is on.
    pub trace_id: Option<&'a str>,
    /// Milliseconds since the Unix epoch.
    pub timestamp_ms: i64,
}

impl Recorder {
    /// Nothing recorded: no line to print.
    pub fn is_empty(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .counts
            .is_empty()
    }

    /// The EMF line of what was recorded (`None` when nothing was).
    pub fn line(&self, invocation: Invocation<'_>) -> Option<String> {
        let r = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if r.counts.is_empty() {
            return None;
        }
        let metric = |m: Metric| json!({"Name": m.name(), "Unit": m.unit()});
        let mut root = Map::new();
        let mut all = Vec::new();
        for (m, n) in &r.counts {
            all.push(metric(*m));
            root.insert(m.name().into(), json!(n));
        }
        // The values go in as written, digit for digit: a JSON number through a float could
        // print 44.4 as 44.399999.
        let values = match r.values.as_slice() {
            [] => None,
            [one] => Some(one.clone()),
            many => Some(format!("[{}]", many.join(","))),
        };
        if values.is_some() {
            all.push(metric(Metric::OrderValue));
            root.insert(Metric::OrderValue.name().into(), json!(VALUE_SLOT));
        }
        let mut directives = vec![json!({
            "Namespace": NAMESPACE,
            "Dimensions": [["Function"]],
            "Metrics": all,
        })];
        if let Some(status) = r.status {
            root.insert("Status".into(), json!(status.as_str()));
            directives.push(json!({
                "Namespace": NAMESPACE,
                "Dimensions": [["Function", "Status"]],
                "Metrics": [metric(Metric::StatusChanges)],
            }));
        }
        root.insert("Function".into(), json!(invocation.function));
        root.insert("requestId".into(), json!(invocation.request_id));
        if let Some(trace) = invocation.trace_id {
            root.insert("traceId".into(), json!(trace));
        }
        root.insert(
            "_aws".into(),
            json!({
                "Timestamp": invocation.timestamp_ms,
                "CloudWatchMetrics": directives,
            }),
        );
        let line = Value::Object(root).to_string();
        Some(match values {
            Some(values) => line.replacen(&format!("\"{VALUE_SLOT}\""), &values, 1),
            None => line,
        })
    }
}

/// Prints the invocation's EMF line on stdout (where Lambda sends it to CloudWatch Logs).
pub fn emit(recorder: &Recorder, context: &lambda_runtime::Context) {
    static FUNCTION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let function =
        FUNCTION.get_or_init(|| std::env::var("AWS_LAMBDA_FUNCTION_NAME").unwrap_or_default());
    if recorder.is_empty() {
        return;
    }
    let line = recorder.line(Invocation {
        function,
        request_id: &context.request_id,
        trace_id: context.xray_trace_id.as_deref(),
        timestamp_ms: chrono::Utc::now().timestamp_millis(),
    });
    if let Some(line) = line {
        println!("{line}");
    }
}

/// Counts what DynamoDB answered each attempt with: throttling and transaction conflicts,
/// retried ones included (the SDK and the store retry them, so nothing else would show them).
#[derive(Debug, Clone, Copy, Default)]
pub struct DynamoDbOutcomes;

impl Intercept for DynamoDbOutcomes {
    fn name(&self) -> &'static str {
        "DynamoDbOutcomes"
    }

    fn read_after_deserialization(
        &self,
        context: &AfterDeserializationInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let response = context.response();
        if response.status().is_success() {
            return Ok(());
        }
        let Some(body) = response.body().bytes() else {
            return Ok(());
        };
        let Ok(error) = serde_json::from_slice::<Value>(body) else {
            return Ok(());
        };
        let kind = error["__type"].as_str().unwrap_or_default();
        let kind = kind.rsplit('#').next().unwrap_or(kind);
        if THROTTLING_CODES.contains(&kind) {
            count(Metric::Throttles, 1);
        } else if kind == "TransactionCanceledException"
            && error["CancellationReasons"]
                .as_array()
                .is_some_and(|reasons| {
                    reasons
                        .iter()
                        .any(|r| r["Code"] == json!("TransactionConflict"))
                })
        {
            count(Metric::TransactionConflicts, 1);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invocation() -> Invocation<'static> {
        Invocation {
            function: "place-order",
            request_id: "r-1",
            trace_id: Some("Root=1-5e1b4151-5ac6c58f3b2f2a7b4c3d2e1f"),
            timestamp_ms: 1_764_460_800_000,
        }
    }

    #[tokio::test]
    async fn an_invocation_becomes_one_emf_line_with_exact_values() {
        let ((), recorder) = recorded(false, async {
            order_placed(&Money::parse_number("44.40").expect("money"));
            count(Metric::TransactionConflicts, 2);
            count(Metric::TransactionConflicts, 1);
        })
        .await;
        let text = recorder.line(invocation()).expect("a line");
        let line: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(line["OrdersPlaced"], 1);
        assert_eq!(line["TransactionConflicts"], 3);
        // The decimal as written, not through a float.
        assert!(text.contains(r#""OrderValue":44.40"#), "{text}");
        assert_eq!(line["Function"], "place-order");
        assert_eq!(line["requestId"], "r-1");
        assert_eq!(line["traceId"], "Root=1-5e1b4151-5ac6c58f3b2f2a7b4c3d2e1f");
        let directive = &line["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(directive["Namespace"], NAMESPACE);
        assert_eq!(directive["Dimensions"], json!([["Function"]]));
        let declared: Vec<(String, String)> = directive["Metrics"]
            .as_array()
            .expect("metrics")
            .iter()
            .map(|m| (m["Name"].to_string(), m["Unit"].to_string()))
            .collect();
        for (name, unit) in [
            ("OrdersPlaced", "Count"),
            ("TransactionConflicts", "Count"),
            ("OrderValue", "None"),
        ] {
            assert!(
                declared.contains(&(format!("{name:?}"), format!("{unit:?}"))),
                "{name} {unit}: {declared:?}"
            );
        }
    }

    #[tokio::test]
    async fn a_status_change_carries_the_status_dimension_and_nothing_recorded_prints_nothing() {
        let ((), recorder) = recorded(true, async { status_changed(OrderStatus::Shipped) }).await;
        let line: Value =
            serde_json::from_str(&recorder.line(invocation()).expect("a line")).expect("JSON");
        assert_eq!(line["StatusChanges"], 1);
        assert_eq!(line["ColdStarts"], 1);
        assert_eq!(line["Status"], "SHIPPED");
        assert_eq!(
            line["_aws"]["CloudWatchMetrics"][1]["Dimensions"],
            json!([["Function", "Status"]])
        );
        let ((), quiet) = recorded(false, async {}).await;
        assert_eq!(quiet.line(invocation()), None, "warm and idle: no line");
        // Outside an invocation, recording is a no-op.
        count(Metric::OrdersPlaced, 1);
    }
}
