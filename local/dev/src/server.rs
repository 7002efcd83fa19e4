//! The local HTTP API: one axum route per template route, each behind the JWT authorizer
//! every route has in template.yaml, and answered by its Lambda's handler through the event
//! API Gateway would send.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter};
use local_engine::gateway::Call;
use shared::http::gateway::StaffClients;

use crate::Services;
use crate::auth::Verifier;
use crate::explorer::log::{ApiLog, Served};
use crate::routes::Route;
use crate::state::App;

/// Whether the explorer (`/_explorer`) is served: on loopback addresses by default, elsewhere
/// only when asked (`STORE_EXPLORER=1`), since it shows every item without a token.
#[derive(Debug, Clone)]
pub enum Explorer {
    /// Served, to requests whose `Host` is one of these `name:port` values only (a page that
    /// rebinds its own name to loopback sends its own name, and is refused).
    Served(Vec<String>),
    Refused(String),
}

impl Explorer {
    /// Served on `port`: to `127.0.0.1`, `localhost` and `[::1]`, and to `host` itself when make
    /// dev listens on one address that is none of those (`STORE_EXPLORER=1`).
    pub fn served(host: IpAddr, port: u16) -> Self {
        let mut hosts: Vec<String> = ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|name| format!("{name}:{port}"))
            .collect();
        if !host.is_unspecified() {
            let own = std::net::SocketAddr::new(host, port).to_string();
            if !hosts.contains(&own) {
                hosts.push(own);
            }
        }
        Self::Served(hosts)
    }
}

pub fn router(
    routes: &[Route],
    services: Services,
    verifier: Verifier,
    explorer: Explorer,
    events: Option<Arc<crate::events::Heard>>,
) -> Router {
    // One MethodRouter per path, since a path may carry several methods.
    let mut by_path: BTreeMap<&str, MethodRouter<Arc<App>>> = BTreeMap::new();
    for route in routes {
        let Ok(method) = Method::from_bytes(route.method.as_bytes()) else {
            continue;
        };
        let Ok(filter) = MethodFilter::try_from(method) else {
            continue;
        };
        let r = route.clone();
        let handler = move |state, params, query, method, uri, headers, body| {
            serve(r, state, params, query, method, uri, headers, body)
        };
        let entry = by_path.remove(route.path.as_str()).unwrap_or_default();
        by_path.insert(&route.path, entry.on(filter, handler));
    }
    // The contract, unauthenticated (it is not part of the deployed API: a client reads the
    // repository's api/openapi.yaml).
    let mut router = Router::new().route("/openapi.json", axum::routing::get(openapi));
    for (path, methods) in by_path {
        router = router.route(path, methods.fallback(not_found));
    }
    let router = match explorer {
        Explorer::Served(hosts) => router.merge(crate::explorer::routes(hosts)),
        Explorer::Refused(why) => router.merge(crate::explorer::refused(why)),
    };
    router.fallback(not_found).with_state(Arc::new(App {
        store: services.store.clone(),
        services,
        verifier,
        staff_clients: StaffClients::from_env(),
        routes: routes.to_vec(),
        log: ApiLog::default(),
        events,
    }))
}

/// What API Gateway's JWT authorizer answers for a missing or invalid token.
fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [
            ("content-type", "application/json"),
            ("www-authenticate", "Bearer"),
        ],
        r#"{"message":"Unauthorized"}"#,
    )
        .into_response()
}

/// `api/openapi.yaml`, as JSON.
async fn openapi() -> Response {
    match crate::openapi::document() {
        Ok(document) => (
            StatusCode::OK,
            [("content-type", "application/json")],
            document.to_string(),
        )
            .into_response(),
        Err(err) => {
            tracing::error!(error = %err, "api/openapi.yaml does not parse");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "api/openapi.yaml does not parse",
            )
                .into_response()
        }
    }
}

/// What API Gateway answers for a route it does not have.
async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [("content-type", "application/json")],
        r#"{"message":"Not Found"}"#,
    )
        .into_response()
}

#[allow(clippy::too_many_arguments)]
async fn serve(
    route: Route,
    State(app): State<Arc<App>>,
    Path(params): Path<HashMap<String, String>>,
    RawQuery(query): RawQuery,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let started = Instant::now();
    let authorization = headers.get("authorization").and_then(|v| v.to_str().ok());
    let verified = if route.authorized {
        app.verifier
            .verify(authorization, chrono::Utc::now().timestamp())
            .map(Some)
    } else {
        // No authorizer on this route: API Gateway passes every request on, claimless.
        Ok(None)
    };
    let claims = match verified {
        Ok(claims) => claims,
        Err(refused) => {
            tracing::info!(route = %route.key(), reason = %refused, "token refused");
            let response = unauthorized();
            app.log.record(Served {
                route: &route,
                method: &method,
                path: uri.path(),
                query: query.as_deref().unwrap_or_default(),
                caller: None,
                status: response.status().as_u16(),
                took: started.elapsed(),
                calls: Vec::new(),
            });
            return response;
        }
    };
    let call = Call {
        method: &method,
        path: uri.path(),
        raw_query: query.as_deref().unwrap_or_default(),
        headers: &headers,
        body: &body,
        claims: claims.as_ref(),
    };
    let params: BTreeMap<String, String> = params.into_iter().collect();
    let (response, _) = app.call(&route, &call, &params).await;
    response
}
