//! `PATCH /orders/{orderId}/fulfilments/{fulfilmentId}` (staff): moves a fulfilment on
//! (`IN_TRANSIT`, `DELIVERED`, `FAILED_DELIVERY`; only forward, nothing after DELIVERED) and
//! corrects its tracking until it is delivered, the replaced tracking kept in its history. Each
//! change is made only if the fulfilment is still as read; a delivery also moves the order's
//! lines version on, and the order to DELIVERED with its last fulfilment, in the same
//! transaction. A field given as `null` removes that part of the tracking; one left out keeps
//! it. Asking for what the fulfilment already is (a retry) answers it as it stands.

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::{Deserialize, Deserializer};
use shared::domain::fulfilment::{Fulfilment, FulfilmentStatus, FulfilmentUpdate, Tracking};
use shared::domain::ids::{FulfilmentId, OrderId};
use shared::domain::time::Timestamp;
use shared::dynamo::orders::{Shipped, Shipping};
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param};
use shared::http::response::json_response;
use shared::metrics::{self, Metric};
use shared::retry::{Attempt, while_changed};
use shared::{AppError, Store};

const MAX_BODY_BYTES: usize = 8 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Body {
    #[serde(default)]
    status: Option<String>,
    #[serde(default, deserialize_with = "given")]
    carrier: Option<Option<String>>,
    #[serde(default, deserialize_with = "given")]
    tracking_number: Option<Option<String>>,
    #[serde(default, deserialize_with = "given")]
    tracking_url: Option<Option<String>>,
}

/// A field that was in the body: `Some(None)` for `null`, where a missing one is `None`.
fn given<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

impl Body {
    /// What the body asks of `read` (as each attempt reads it): its status, and its tracking
    /// with the fields given replaced (a 400 when it asks nothing).
    fn update(&self, read: &Fulfilment) -> Result<FulfilmentUpdate, AppError> {
        let status = self
            .status
            .as_deref()
            .map(str::parse::<FulfilmentStatus>)
            .transpose()?;
        let given = [&self.carrier, &self.tracking_number, &self.tracking_url];
        let tracking = if given.iter().any(|field| field.is_some()) {
            let now = &read.tracking;
            let or_now = |field: &Option<Option<String>>, now: &Option<String>| {
                field.clone().unwrap_or_else(|| now.clone())
            };
            Some(Tracking::parse(
                or_now(&self.carrier, &now.carrier),
                or_now(&self.tracking_number, &now.tracking_number),
                or_now(&self.tracking_url, &now.tracking_url),
            )?)
        } else {
            None
        };
        if status.is_none() && tracking.is_none() {
            return Err(AppError::invalid(
                "give a status, or the tracking to change (carrier, trackingNumber, trackingUrl)",
            ));
        }
        Ok(FulfilmentUpdate { status, tracking })
    }
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let order = path_param(&req, "orderId", OrderId::parse)?;
    let id = path_param(&req, "fulfilmentId", FulfilmentId::parse)?;
    let caller = caller(&req)?;
    let body = json_body::<Body>(&req, MAX_BODY_BYTES)?;
    let (order, id, body) = (&order, &id, &body);
    let next = while_changed(
        "other changes of this fulfilment kept coming first; retry the request",
        |_| async move {
            let details = store.order_for(order, caller).await?;
            let read = details.fulfilment(id).ok_or_else(|| {
                AppError::not_found(format!("order {order} has no fulfilment {id}"))
            })?;
            let asked = body.update(read)?;
            let next = read.updated(&asked, Timestamp::now())?;
            if next == *read {
                // Already as asked (a retried request): nothing to write, nothing to tell.
                return Ok(next);
            }
            match store
                .ship(&details, &Shipping::Update(vec![(read, next.clone())]))
                .await?
            {
                Shipped::Written(status) => {
                    if next.status != read.status && next.status == FulfilmentStatus::Delivered {
                        metrics::count(Metric::FulfilmentsDelivered, 1);
                    }
                    if status != details.order.status {
                        metrics::status_changed(status);
                    }
                    Ok(next)
                }
                Shipped::Exists | Shipped::Changed => Err(Attempt::Changed),
            }
        },
    )
    .await?;
    Ok(json_response(StatusCode::OK, &next))
}
