//! make dev's state, shared by the API routes and the explorer: the store, the token verifier,
//! the routes of template.yaml, and the log of what was served; and the one way a route's
//! handler is called, recorded with the DynamoDB requests it made.

use std::collections::BTreeMap;
use std::time::Instant;

use axum::body::Body as AxumBody;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use lambda_http::Body;
use local_engine::gateway::{self, Call};
use local_engine::journal::Calls;
use serde_json::Value;
use shared::Store;
use shared::http::gateway::StaffClients;

use crate::Services;
use crate::auth::Verifier;
use crate::explorer::log::{ApiLog, Served};
use crate::routes::Route;

pub(crate) struct App {
    /// The store, the webhook's endpoint secrets (`PAYMENT_WEBHOOK_SECRET`, or the file beside
    /// the data) and the payment provider: what the handlers are called with.
    pub(crate) services: Services,
    pub(crate) store: Store,
    pub(crate) verifier: Verifier,
    /// `STAFF_CLIENT_IDS`, read once when the server starts, as a Lambda reads it at init.
    pub(crate) staff_clients: StaffClients,
    pub(crate) routes: Vec<Route>,
    /// Every request served, with the DynamoDB requests it made (the explorer's live log).
    pub(crate) log: ApiLog,
    /// What the tap on make dev's bus heard, and the emails sent (none: `EVENTS_PORT=off`).
    pub(crate) events: Option<std::sync::Arc<crate::events::Heard>>,
}

impl App {
    /// `route`'s handler for `call` (its caller already verified), as API Gateway calls it after
    /// its authorizer, recorded in the log with the DynamoDB requests it made; the response and
    /// its log record.
    pub(crate) async fn call(
        &self,
        route: &Route,
        call: &Call<'_>,
        params: &BTreeMap<String, String>,
    ) -> (Response, Value) {
        let started = Instant::now();
        let event = gateway::event(&route.key(), call, params);
        let calls = Calls::default();
        let response = match gateway::request(&event, &self.staff_clients) {
            Ok(req) => {
                calls
                    .record(crate::invoke(&route.binary, &self.services, req))
                    .await
            }
            // As the Lambda answers an event it cannot read as a request.
            Err(err) => Some(shared::http::problem::problem(&err)),
        };
        let response = match response {
            Some(response) => {
                let (parts, body) = response.into_parts();
                let body = match body {
                    Body::Empty => AxumBody::empty(),
                    Body::Text(text) => AxumBody::from(text),
                    Body::Binary(bytes) => AxumBody::from(bytes),
                    _ => AxumBody::empty(),
                };
                Response::from_parts(parts, body)
            }
            None => (StatusCode::INTERNAL_SERVER_ERROR, "no handler").into_response(),
        };
        let record = self.log.record(Served {
            route,
            method: call.method,
            path: call.path,
            query: call.raw_query,
            caller: call.claims,
            status: response.status().as_u16(),
            took: started.elapsed(),
            calls: calls.take(),
        });
        (response, record)
    }
}
