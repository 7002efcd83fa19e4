//! `POST /orders/{orderId}/refunds` (staff): gives back part of a paid order, by lines and
//! quantities (at the prices ordered, their stock back if `restock`) or by an amount, with a
//! reason. ONE transaction records the refund (REQUESTED: the payer sends it to the provider),
//! draws it on the order's balance on the condition that the balance covers it and that no
//! other refund drew on it since it was read, and counts the lines and their stock back. Units
//! refunded are taken from what was left to ship first: those never ship, and the order's
//! status follows what is left (`docs/fulfilment.md`). Over
//! the balance, a line past its quantity or an order never paid: 409, nothing written. The
//! `Idempotency-Key` is required and names the refund: the same request again answers the same
//! refund, and the key used for another request is a 422.

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::domain::ids::{OrderId, RefundId};
use shared::domain::ledger::{RefundCause, RefundPlan};
use shared::domain::order::LineQuantity;
use shared::domain::order::MAX_LINES;
use shared::domain::order::distinct_lines;
use shared::domain::refund::{Refund, RefundAsk, RefundKind, staff_reason};
use shared::domain::text;
use shared::dynamo::orders::{GiveBack, GivenBack};
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param, required_key};
use shared::http::response::json_response;
use shared::metrics::{self, Metric};
use shared::retry::{Attempt, while_changed};
use shared::{AppError, Store};

const MAX_BODY_BYTES: usize = 16 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    #[serde(default)]
    amount: Option<i64>,
    #[serde(default)]
    lines: Option<Vec<LineQuantity>>,
    reason: String,
    /// Staff's note, for staff: the customer reads `reason`, never this.
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    restock: bool,
}

impl Body {
    /// What staff ask for, checked: an amount or lines (not both), a reason and a note.
    fn ask(self) -> Result<(RefundAsk, Said), AppError> {
        let said = Said {
            reason: staff_reason(&self.reason)?,
            note: text::note(self.note.as_deref())?,
        };
        let ask = match (self.amount, self.lines) {
            (Some(_), None) if self.restock => {
                return Err(AppError::invalid(
                    "restock needs lines: an amount says nothing of which stock goes back",
                ));
            }
            (Some(amount), None) if amount > 0 => RefundAsk::Amount(amount),
            (Some(_), None) => {
                return Err(AppError::invalid(
                    "amount must be a whole number of the currency's smallest unit above 0",
                ));
            }
            (None, Some(lines)) => RefundAsk::Lines {
                lines: distinct_lines(lines, MAX_LINES)?,
                restock: self.restock,
            },
            _ => {
                return Err(AppError::invalid(
                    "give either amount or lines, not both and not neither",
                ));
            }
        };
        Ok((ask, said))
    }
}

/// What staff say of a refund: why (the customer reads it), and a note for staff alone.
struct Said {
    reason: String,
    note: Option<String>,
}

/// Whether `refund` (recorded under the request's key) is what `ask` and `said` ask for.
fn same_request(refund: &Refund, ask: &RefundAsk, said: &Said) -> bool {
    let asked = match ask {
        RefundAsk::Amount(amount) => refund.lines.is_empty() && refund.amount == *amount,
        RefundAsk::Lines { lines, restock } => refund.lines == *lines && refund.restock == *restock,
    };
    asked
        && refund.reason == said.reason
        && refund.note == said.note
        && refund.kind == RefundKind::Staff
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let order = path_param(&req, "orderId", OrderId::parse)?;
    let caller = caller(&req)?;
    let key = required_key(&req, "a refund must never be sent twice")?;
    let (ask, said) = json_body::<Body>(&req, MAX_BODY_BYTES)?.ask()?;
    let refund_id = RefundId::of_request(&order, &key);
    let (ask, said, order, refund_id) = (&ask, &said, &order, &refund_id);
    let refund = while_changed(
        "other refunds of this order kept changing its balance; retry the request",
        |_| async move {
            let details = store.order_for(order, caller).await?;
            if let Some(made) = details
                .money
                .refunds
                .iter()
                .find(|made| made.refund_id == *refund_id)
            {
                return if same_request(made, ask, said) {
                    metrics::count(Metric::IdempotentReplays, 1);
                    Ok(made.clone())
                } else {
                    Err(AppError::IdempotencyKeyReused.into())
                };
            }
            let plan: RefundPlan = ask.plan(&details, store.currency())?;
            let cause = RefundCause {
                kind: RefundKind::Staff,
                reason: &said.reason,
                cancellation: None,
                order_return: None,
            };
            let refund = Refund {
                note: said.note.clone(),
                ..plan
                    .requested(&details, refund_id.clone(), cause, store.currency())
                    .ok_or_else(|| {
                        AppError::RefundRefused(format!("order {order} has no payment to refund"))
                    })?
            };
            let back = GiveBack {
                plan: &plan,
                refund: Some(&refund),
                cancellation: None,
                order_return: None,
            };
            match store.give_back(&details, back).await? {
                GivenBack::Written(status) => {
                    metrics::count(Metric::RefundsRequested, 1);
                    if status != details.order.status {
                        metrics::status_changed(status);
                    }
                    Ok(refund)
                }
                // Recorded by a concurrent retry of this request, or the balance or the lines
                // changed: what the order says now decides.
                GivenBack::Exists | GivenBack::Changed => Err(Attempt::Changed),
            }
        },
    )
    .await?;
    Ok(json_response(StatusCode::ACCEPTED, &refund))
}
