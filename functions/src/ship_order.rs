//! `POST /orders/{orderId}/fulfilments` (staff): ships some or all of a PLACED or
//! PARTIALLY_SHIPPED order's lines in one fulfilment, with its tracking. Never more of a line
//! than is left of it (ordered, less cancelled, less shipped): the fulfilment's own transaction
//! holds the order's lines version, so of two fulfilments of the last units one is a 201 and
//! the other a 409. The order's status follows its lines in the same transaction
//! (PARTIALLY_SHIPPED, or SHIPPED when nothing is left). An `Idempotency-Key` is required and
//! names the fulfilment: the same request again answers the same one, the key used for another
//! request is a 422.

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::domain::fulfilment::{Fulfilment, Tracking};
use shared::domain::ids::{FulfilmentId, OrderId};
use shared::domain::order::{LineQuantity, MAX_LINES, distinct_lines};
use shared::domain::time::Timestamp;
use shared::dynamo::orders::{Shipped, Shipping};
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param, required_key};
use shared::http::response::json_response;
use shared::metrics::{self, Metric};
use shared::retry::{Attempt, while_changed};
use shared::{AppError, Store};

const MAX_BODY_BYTES: usize = 16 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Body {
    lines: Vec<LineQuantity>,
    #[serde(default)]
    carrier: Option<String>,
    #[serde(default)]
    tracking_number: Option<String>,
    #[serde(default)]
    tracking_url: Option<String>,
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let order = path_param(&req, "orderId", OrderId::parse)?;
    let caller = caller(&req)?;
    let key = required_key(&req, "a parcel must never be shipped (and told of) twice")?;
    let body = json_body::<Body>(&req, MAX_BODY_BYTES)?;
    let lines = distinct_lines(body.lines, MAX_LINES)?;
    let tracking = Tracking::parse(body.carrier, body.tracking_number, body.tracking_url)?;
    let id = FulfilmentId::of_request(&order, &key);
    let (order, lines, tracking, id) = (&order, &lines, &tracking, &id);
    let fulfilment = while_changed(
        "other changes of this order's lines kept coming first; retry the request",
        |_| async move {
            let details = store.order_for(order, caller).await?;
            if let Some(made) = details.fulfilment(id) {
                return if made.lines == *lines && made.tracking == *tracking {
                    metrics::count(Metric::IdempotentReplays, 1);
                    Ok(made.clone())
                } else {
                    Err(AppError::IdempotencyKeyReused.into())
                };
            }
            details.check_shipment(lines)?;
            let new = Fulfilment::shipped(
                id.clone(),
                lines.clone(),
                tracking.clone(),
                Timestamp::now(),
            );
            match store.ship(&details, &Shipping::Ship(&new)).await? {
                Shipped::Written(status) => {
                    metrics::count(Metric::FulfilmentsShipped, 1);
                    if status != details.order.status {
                        metrics::status_changed(status);
                    }
                    Ok(new)
                }
                // Recorded by a concurrent retry of this request, or the order changed: what
                // it says now decides.
                Shipped::Exists | Shipped::Changed => Err(Attempt::Changed),
            }
        },
    )
    .await?;
    Ok(json_response(StatusCode::CREATED, &fulfilment))
}
