//! Serving API Gateway events: each becomes a request, is authorized by its route's line in
//! the route table, runs its handler, and comes back as a response, an error as its problem
//! document.

use std::convert::Infallible;
use std::future::Future;

use lambda_http::{Body, Request, Response, service_fn};
use lambda_runtime::LambdaEvent;

use crate::domain::error::BoxError;
use crate::http::HttpResult;
use crate::http::gateway::{HttpEvent, StaffClients, into_gateway_response};
use crate::http::problem;
use crate::http::routes;
use crate::metrics;

/// Authorizes the request by its route ([`routes::authorize`]: no handler runs for a caller
/// its route does not admit), runs the handler, and turns an error into a problem response.
pub async fn dispatch<'a, D: ?Sized, F, Fut>(
    deps: &'a D,
    req: Request,
    handler: F,
) -> Response<Body>
where
    F: FnOnce(&'a D, Request) -> Fut,
    Fut: Future<Output = HttpResult> + 'a,
{
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let outcome = match routes::authorize(&req) {
        Ok(()) => handler(deps, req).await,
        Err(refused) => Err(refused),
    };
    match outcome {
        Ok(response) => response,
        Err(err) => {
            problem::log(&err, method.as_str(), &path);
            problem::problem(&err)
        }
    }
}

/// Serves API Gateway HTTP API events with `handler` (given `deps`) until the runtime stops;
/// `STAFF_CLIENT_IDS` is read once, before the first event.
/// An event that is not a valid request (a method or path API Gateway would not send, a body
/// that is not the base64 it claims to be) is answered with a 400 problem, never a failed
/// invocation.
pub async fn serve_http<'a, D: Sync + ?Sized, F, Fut>(
    deps: &'a D,
    handler: F,
) -> Result<(), BoxError>
where
    F: Fn(&'a D, Request) -> Fut + Copy + Send + 'a,
    Fut: Future<Output = HttpResult> + Send + 'a,
{
    let staff_clients = &StaffClients::from_env();
    lambda_runtime::run(service_fn(
        move |LambdaEvent { payload, context }: LambdaEvent<HttpEvent>| async move {
            let cold_start = metrics::cold_start();
            let (response, recorded) = metrics::recorded(cold_start, async move {
                match payload.into_request(staff_clients) {
                    Ok(req) => dispatch(deps, req, handler).await,
                    Err(err) => {
                        tracing::info!(error = %err, "event refused");
                        problem::problem(&err)
                    }
                }
            })
            .await;
            metrics::emit(&recorded, &context);
            Ok::<_, Infallible>(into_gateway_response(response))
        },
    ))
    .await
}
