//! Sending a checked SELECT: `ExecuteStatement`, following `NextToken` page by page, adding up
//! the capacity each page reports.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use shared::domain::error::BoxError;
use shared::dynamo::capacity::Capacity;

pub type Item = HashMap<String, AttributeValue>;

/// What a statement returned, over every page it took.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Outcome {
    pub items: usize,
    /// The ExecuteStatement requests sent: one per page.
    pub pages: u32,
    pub capacity: Capacity,
    /// Whether `limit` stopped it before the last page.
    pub stopped_at_limit: bool,
}

/// Runs `statement` (already checked: this sends whatever it is given) and hands each page's
/// items to `on_page`, at most `limit` items in all: each request asks for no more than are
/// still wanted, and no page is read once they are there.
pub async fn execute(
    client: &Client,
    statement: &str,
    limit: Option<usize>,
    mut on_page: impl FnMut(Vec<Item>) -> Result<(), BoxError>,
) -> Result<Outcome, BoxError> {
    let mut outcome = Outcome::default();
    let mut token = None;
    loop {
        let wanted = limit.map(|limit| limit - outcome.items);
        let page = client
            .execute_statement()
            .statement(statement)
            .set_limit(wanted.map(|n| i32::try_from(n).unwrap_or(i32::MAX)))
            .set_next_token(token)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await
            .map_err(refused)?;
        outcome.pages += 1;
        if let Some(reported) = &page.consumed_capacity {
            outcome.capacity.add(reported);
        }
        let mut items = page.items.unwrap_or_default();
        if let Some(wanted) = wanted {
            items.truncate(wanted);
        }
        outcome.items += items.len();
        on_page(items)?;
        token = page.next_token;
        if token.is_none() {
            return Ok(outcome);
        }
        if limit.is_some_and(|limit| outcome.items >= limit) {
            outcome.stopped_at_limit = true;
            return Ok(outcome);
        }
    }
}

/// DynamoDB's own words when it answered (a statement it refused says why), the whole chain
/// when it did not (no endpoint, no credentials).
fn refused<E: ProvideErrorMetadata + std::error::Error + 'static, R: std::fmt::Debug>(
    err: SdkError<E, R>,
) -> BoxError {
    match (err.code(), err.message()) {
        (Some(code), Some(message)) => format!("{code}: {message}").into(),
        _ => DisplayErrorContext(err).to_string().into(),
    }
}
