//! The HTTP edge: API Gateway events in and responses out, request parameters and bodies, and
//! the one mapping of errors to problem documents. Nothing here knows a key or a table.

pub mod gateway;
pub mod problem;
pub mod request;
pub mod response;
pub mod routes;
pub mod serve;
pub mod signature;

use lambda_http::{Body, Response};

use crate::AppError;

/// What every HTTP handler returns.
pub type HttpResult = Result<Response<Body>, AppError>;
