//! The one error type of the store: what went wrong, in the domain's words. The HTTP layer
//! ([`crate::http::problem`]) alone says what each becomes on the wire, and
//! [`crate::dynamo::errors`] says which SDK errors are which.

use std::error::Error as StdError;

use crate::domain::ids::Sku;
use crate::domain::status::OrderStatus;

/// Any error, sent between threads: what an SDK or the runtime hands back.
pub type BoxError = Box<dyn StdError + Send + Sync>;

fn skus_text(skus: &[Sku]) -> String {
    skus.iter().map(Sku::as_str).collect::<Vec<_>>().join(", ")
}

/// What went wrong, in the domain's words.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The request is malformed; the message is shown to the client.
    #[error("{0}")]
    Invalid(String),
    /// No caller the authorizer vouched for.
    #[error("{0}")]
    Unauthorized(String),
    /// The caller may not do this; the message is shown to the client.
    #[error("{0}")]
    Forbidden(String),
    /// What the request names does not exist; the message is shown to the client.
    #[error("{0}")]
    NotFound(String),
    /// The order's status cannot make the move asked for.
    #[error("order is {current} and cannot become {next}")]
    StatusConflict {
        /// The order's status now.
        current: OrderStatus,
        /// The status asked for.
        next: OrderStatus,
    },
    /// Concurrent requests kept changing what this one read, through every retry; the message
    /// says what, and that the client may retry.
    #[error("{0}")]
    ConcurrentChange(String),
    /// The customer holds this many open orders (PLACED, or checked out and waiting for
    /// payment), the most one may hold at once.
    #[error(
        "the customer already holds {0} open orders (placed, or waiting for payment), the most \
         one may hold at once; another can be placed once one is shipped, cancelled, paid for \
         and shipped, or its hold ends"
    )]
    TooManyOpenOrders(u32),
    /// The customer's open checked-out orders would hold more than `max` units of these
    /// products.
    #[error(
        "a customer's open orders may hold at most {max} units of one product, and this checkout \
         would pass that for {}; check out fewer, or once an open order is shipped, cancelled \
         or its hold ends",
        skus_text(skus)
    )]
    TooMuchHeld {
        /// The products past the cap.
        skus: Vec<Sku>,
        /// The most units of one product a customer's open orders may hold.
        max: u32,
    },
    /// The catalog has less stock of these products than the order asks for.
    #[error("not enough stock of {}", skus_text(.0))]
    OutOfStock(Vec<Sku>),
    /// The price the client expected for these products is no longer the catalog's.
    #[error("the price of {} has changed", skus_text(.0))]
    PriceChanged(Vec<Sku>),
    /// The order names products the catalog does not have.
    #[error("no such product: {}", skus_text(.0))]
    UnknownProducts(Vec<Sku>),
    /// These variants' products are not published: drafts, or archived.
    #[error("not for sale: {}", skus_text(.0))]
    NotForSale(Vec<Sku>),
    /// A product names SKUs another product's variants hold.
    #[error("these SKUs belong to another product: {}", skus_text(.0))]
    SkuTaken(Vec<Sku>),
    /// A promotion takes a code another promotion holds.
    #[error("the code {0} belongs to another promotion")]
    CodeTaken(String),
    /// A checkout whose cart no longer costs what the customer was shown.
    #[error("the cart now costs {now}, not the {expected} quoted: quote it again")]
    QuoteChanged {
        /// The total the customer saw.
        expected: crate::domain::money::Money,
        /// What it costs now.
        now: crate::domain::money::Money,
    },
    /// A code whose promotion's limit is reached, in all or by this customer.
    #[error("the code {0} is used up")]
    CodeUsedUp(String),
    /// A code that names no promotion running now.
    #[error("the code {0} names no promotion running now")]
    UnknownCode(String),
    /// The cart holds as many lines as one checkout can carry (an edit that would add one), or
    /// more (a checkout of a cart two edits at once overfilled).
    #[error("a cart holds at most {0} lines, as many as one checkout can carry")]
    CartFull(usize),
    /// A checkout of a cart with no live lines.
    #[error("the cart is empty: there is nothing to check out")]
    CartEmpty,
    /// A checkout whose total is more than the payment provider can charge in one payment.
    #[error(
        "the total, {total}, is more than one card payment can be: at most {max}; check out \
         fewer items at once"
    )]
    TotalTooLarge {
        /// The cart's total.
        total: crate::domain::money::Money,
        /// The most the provider charges in one payment.
        max: crate::domain::money::Money,
    },
    /// A refund the order's balance or lines do not allow (more than may still go back, an
    /// order never paid, a line refunded past its quantity); the message says which.
    #[error("{0}")]
    RefundRefused(String),
    /// More of an order's line than may ship, be cancelled or be returned; the message says
    /// which line, and how many are left.
    #[error("{0}")]
    LinesRefused(String),
    /// A fulfilment or a return that cannot make the move asked for (now, or any more); the
    /// message says where it is.
    #[error("{0}")]
    MoveRefused(String),
    /// An order holds as many of something as it may (fulfilments, corrections, returns,
    /// cancellations, refunds): the caps that keep its partition readable in one Query. The
    /// message names the cap.
    #[error("{0}")]
    CapReached(String),
    /// An Idempotency-Key already used for a request with another body.
    #[error("this Idempotency-Key was used for a different request")]
    IdempotencyKeyReused,
    /// The body is larger than the endpoint accepts.
    #[error("{0}")]
    PayloadTooLarge(String),
    /// The body is not JSON.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// DynamoDB (or the payment provider) throttled, failed or did not answer, or concurrent
    /// transactions kept colliding, after every retry: worth retrying later.
    #[error("unavailable: {0}")]
    Unavailable(#[source] BoxError),
    /// Anything else. Its details go to the log only.
    #[error("internal error")]
    Internal(#[source] BoxError),
}

impl AppError {
    /// The error with each of its causes, `: `-separated: an internal error's own words are in
    /// its sources. For an operator's report, never a client's answer.
    pub fn with_causes(&self) -> String {
        let mut text = self.to_string();
        let mut source = StdError::source(self);
        while let Some(cause) = source {
            text = format!("{text}: {cause}");
            source = cause.source();
        }
        text
    }

    /// A malformed request; `detail` is shown to the client.
    pub fn invalid(detail: impl Into<String>) -> Self {
        AppError::Invalid(detail.into())
    }

    /// Something the request names does not exist; `detail` is shown to the client.
    pub fn not_found(detail: impl Into<String>) -> Self {
        AppError::NotFound(detail.into())
    }

    /// Concurrent requests kept changing what the request read; `detail` is shown to the client.
    pub fn concurrent_change(detail: impl Into<String>) -> Self {
        AppError::ConcurrentChange(detail.into())
    }

    /// DynamoDB could not be reached or kept refusing, after the retries.
    pub fn unavailable(err: impl Into<BoxError>) -> Self {
        AppError::Unavailable(err.into())
    }

    /// Anything else: `err` goes to the log only.
    pub fn internal(err: impl Into<BoxError>) -> Self {
        AppError::Internal(err.into())
    }
}
