//! The explorer's live log: the last requests `make dev` served, each with the DynamoDB
//! requests its handler made (`local_engine::journal`) and what they cost.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use axum::http::Method;
use local_engine::journal::DynamoCall;
use serde_json::{Map, Value, json};

use crate::routes::Route;

/// How many requests the log keeps.
const KEPT: usize = 200;

/// One request as served.
pub struct Served<'a> {
    pub route: &'a Route,
    pub method: &'a Method,
    pub path: &'a str,
    pub query: &'a str,
    /// The verified token's claims; `None`: refused by the authorizer.
    pub caller: Option<&'a Map<String, Value>>,
    pub status: u16,
    pub took: Duration,
    pub calls: Vec<DynamoCall>,
}

#[derive(Default)]
pub struct ApiLog {
    /// The last ID given, and the records kept with their IDs, oldest first.
    kept: Mutex<(u64, VecDeque<(u64, Value)>)>,
}

impl ApiLog {
    /// Records `served`; the record, as the page shows it (IDs rise from 1).
    pub fn record(&self, served: Served<'_>) -> Value {
        let target = if served.query.is_empty() {
            served.path.to_owned()
        } else {
            format!("{}?{}", served.path, served.query)
        };
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.0 += 1;
        let id = kept.0;
        let record = json!({
            "id": id,
            "at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "method": served.method.as_str(),
            "route": served.route.key(),
            "target": target,
            "caller": served.caller.map_or_else(|| "no valid token".to_owned(), caller),
            "status": served.status,
            "ms": (served.took.as_secs_f64() * 1000.0 * 100.0).round() / 100.0,
            "calls": served.calls.iter().map(DynamoCall::to_json).collect::<Vec<_>>(),
        });
        kept.1.push_back((id, record.clone()));
        while kept.1.len() > KEPT {
            kept.1.pop_front();
        }
        record
    }

    /// The records after `after`, oldest first.
    pub fn since(&self, after: u64) -> Vec<Value> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.1
            .iter()
            .filter(|(id, _)| *id > after)
            .map(|(_, record)| record.clone())
            .collect()
    }
}

/// Who the token names: its subject, and what makes it staff.
fn caller(claims: &Map<String, Value>) -> String {
    let sub = claims.get("sub").and_then(Value::as_str).unwrap_or("?");
    let text = |name: &str| claims.get(name).map(|v| v.to_string()).unwrap_or_default();
    if text("cognito:groups").contains("staff") {
        format!("{sub} (staff)")
    } else if text("scope").contains("store/admin") {
        format!("{sub} (store/admin)")
    } else {
        sub.to_owned()
    }
}
