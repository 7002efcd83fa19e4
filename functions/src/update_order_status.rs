//! `PATCH /orders/{orderId}` `{status}`: moves an order along PLACED→SHIPPED→DELIVERED or
//! PLACED→CANCELLED, header and listing together, so that of racing changes only one wins.
//! SHIPPED is one fulfilment of everything left to ship (from PARTIALLY_SHIPPED too), and
//! DELIVERED delivers every fulfilment not delivered yet, in the same transaction
//! (`docs/fulfilment.md`).
//! Staff move any order; its owner may cancel it while it is PLACED. Cancelling gives the lines'
//! stock back in the same transaction, and a paid order's cancellation requests the refund of
//! all that may still go back of it in that transaction too (the payer sends it).

use lambda_http::Request;
use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::domain::fulfilment::{Fulfilment, FulfilmentStatus, FulfilmentUpdate, Tracking};
use shared::domain::ids::{FulfilmentId, OrderId};
use shared::domain::order::{Order, OrderDetails};
use shared::domain::status::OrderStatus;
use shared::domain::time::Timestamp;
use shared::dynamo::orders::{Shipped, Shipping, StatusChangeError};
use shared::http::HttpResult;
use shared::http::request::{caller, json_body, path_param};
use shared::http::response::json_response;
use shared::metrics::{self, Metric};
use shared::retry::{Backoff, retry};
use shared::{AppError, Store};

const MAX_BODY_BYTES: usize = 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusBody {
    status: String,
}

/// What a move to SHIPPED or DELIVERED does to the order's fulfilments.
enum Fulfilments<'a> {
    /// SHIPPED: one fulfilment of everything left.
    Ship(Fulfilment),
    /// DELIVERED: each fulfilment not yet delivered, delivered.
    Deliver(Vec<(&'a Fulfilment, Fulfilment)>),
}

impl Fulfilments<'_> {
    fn shipping(&self) -> Shipping<'_> {
        match self {
            Fulfilments::Ship(new) => Shipping::Ship(new),
            Fulfilments::Deliver(updates) => {
                Shipping::Update(updates.iter().map(|(r, n)| (*r, n.clone())).collect())
            }
        }
    }
}

/// The fulfilments a move of `details` to `next` makes or moves: SHIPPED ships what is left in
/// one; DELIVERED delivers every fulfilment not delivered yet (an order shipped before
/// fulfilments has none, and just moves). `None`: the move is a status change alone.
fn shipping(
    details: &OrderDetails,
    next: OrderStatus,
) -> Result<Option<Fulfilments<'_>>, AppError> {
    let now = Timestamp::now();
    match next {
        OrderStatus::Shipped => {
            let left = details.left_to_ship();
            if left.is_empty() {
                return Err(details.order.status.refused_move(next));
            }
            details.check_room_for_fulfilment()?;
            let id = FulfilmentId::generate()?;
            Ok(Some(Fulfilments::Ship(Fulfilment::shipped(
                id,
                left,
                Tracking::default(),
                now,
            ))))
        }
        OrderStatus::Delivered if !details.fulfilments.is_empty() => {
            let deliver = FulfilmentUpdate {
                status: Some(FulfilmentStatus::Delivered),
                tracking: None,
            };
            let updates = details
                .fulfilments
                .iter()
                .filter(|f| f.status != FulfilmentStatus::Delivered)
                .map(|f| Ok((f, f.updated(&deliver, now)?)))
                .collect::<Result<Vec<_>, AppError>>()?;
            Ok(Some(Fulfilments::Deliver(updates)))
        }
        _ => Ok(None),
    }
}

pub async fn handle(store: &Store, req: Request) -> HttpResult {
    let id = path_param(&req, "orderId", OrderId::parse)?;
    // Who is asking before what they ask: no validation feedback without a caller.
    let caller = caller(&req)?;
    let next: OrderStatus = json_body::<StatusBody>(&req, MAX_BODY_BYTES)?
        .status
        .parse()?;
    // Read the status, then change it only if it is still the one read; a collision with a
    // concurrent transaction is tried again from the read.
    let order = retry(
        &Backoff::TRANSACTION,
        |err| matches!(err, StatusChangeError::Contended),
        |_| async {
            // The header and the lines (a cancellation gives their stock back): one Query.
            let details = store.order_for(&id, caller).await?;
            caller.check_status_change(next)?;
            details.order.status.check_move(next)?;
            let now = match shipping(&details, next)? {
                Some(updates) => {
                    let shipping = updates.shipping();
                    let (metric, fulfilments) = match &shipping {
                        Shipping::Ship(_) => (Metric::FulfilmentsShipped, 1),
                        Shipping::Update(delivered) => {
                            (Metric::FulfilmentsDelivered, delivered.len())
                        }
                    };
                    match store.ship(&details, &shipping).await? {
                        Shipped::Written(now) => {
                            metrics::count(metric, fulfilments as u64);
                            now
                        }
                        Shipped::Exists | Shipped::Changed => {
                            return Err(StatusChangeError::Contended);
                        }
                    }
                }
                None => {
                    store.change_status(&details, next).await?;
                    next
                }
            };
            Ok(Order {
                status: now,
                ..details.order
            })
        },
    )
    .await
    .map_err(AppError::from)?;
    metrics::status_changed(order.status);
    Ok(json_response(StatusCode::OK, &order))
}
