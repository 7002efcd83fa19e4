//! The access patterns, run from the page through their real routes and handlers: what the API
//! answered, and each DynamoDB request it made with the items it read and its capacity.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use axum::body::{Bytes, to_bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;
use local_engine::gateway::Call;
use local_engine::testing::Who;
use serde_json::{Value, json};

use super::json_response;
use shared::access_patterns::{self, AccessPattern};

use crate::routes::Route;
use crate::state::App;

/// The sample call of an access pattern (`shared::access_patterns`, which gives its number,
/// question and route): who calls it, and its parameters with make dev's sample values.
struct Sample {
    number: u8,
    /// A customer calls it as themselves (`customerId`), else staff.
    as_customer: bool,
    /// Path parameters, then query parameters: `(name, sample)`.
    path_params: &'static [(&'static str, &'static str)],
    query_params: &'static [(&'static str, &'static str)],
}

/// One form a pattern: every pattern of the registry has one (a test holds the two equal).
const SAMPLES: &[Sample] = &[
    Sample {
        number: 1,
        as_customer: true,
        path_params: &[("customerId", "c1")],
        query_params: &[],
    },
    Sample {
        number: 2,
        as_customer: true,
        path_params: &[("customerId", "c1")],
        query_params: &[("limit", "5"), ("from", ""), ("to", "")],
    },
    Sample {
        number: 3,
        as_customer: false,
        path_params: &[("orderId", "o100")],
        query_params: &[("limit", "25")],
    },
    Sample {
        number: 4,
        as_customer: false,
        path_params: &[],
        query_params: &[("status", "PLACED"), ("limit", "5")],
    },
    Sample {
        number: 5,
        as_customer: false,
        path_params: &[("sku", "sku-1")],
        query_params: &[],
    },
    Sample {
        number: 6,
        as_customer: false,
        path_params: &[],
        query_params: &[("limit", "5")],
    },
    Sample {
        number: 7,
        as_customer: false,
        path_params: &[("orderId", "o100")],
        query_params: &[],
    },
    Sample {
        number: 8,
        as_customer: false,
        path_params: &[("sku", "sku-1")],
        query_params: &[("limit", "5"), ("from", ""), ("to", "")],
    },
    Sample {
        number: 9,
        as_customer: true,
        path_params: &[("customerId", "c1")],
        query_params: &[],
    },
    Sample {
        number: 10,
        as_customer: false,
        path_params: &[],
        query_params: &[("limit", "5")],
    },
    Sample {
        number: 11,
        as_customer: false,
        path_params: &[],
        query_params: &[("status", "REQUESTED"), ("limit", "5")],
    },
    Sample {
        number: 12,
        as_customer: false,
        path_params: &[("productId", "sku-1")],
        query_params: &[],
    },
    Sample {
        number: 13,
        as_customer: false,
        path_params: &[],
        query_params: &[],
    },
    Sample {
        number: 14,
        as_customer: false,
        path_params: &[("categoryId", "kitchen")],
        query_params: &[("sort", "price-asc"), ("limit", "5")],
    },
];

impl Sample {
    fn pattern(&self) -> &'static AccessPattern {
        access_patterns::find(self.number)
            .unwrap_or_else(|| panic!("the explorer's form {} is no access pattern", self.number))
    }

    /// The route's method and path, from the registry's route key.
    fn route(&self) -> (&'static str, &'static str) {
        self.pattern()
            .route
            .split_once(' ')
            .unwrap_or(("GET", self.pattern().route))
    }

    fn method(&self) -> &'static str {
        self.route().0
    }

    fn path(&self) -> &'static str {
        self.route().1
    }

    /// The registry's question, as a heading starts.
    fn question(&self) -> String {
        let question = self.pattern().question;
        let mut chars = question.chars();
        chars
            .next()
            .map(|first| first.to_uppercase().chain(chars).collect())
            .unwrap_or_default()
    }
}

fn fields(params: &[(&str, &str)]) -> Vec<Value> {
    params
        .iter()
        .map(|(name, sample)| json!({"name": name, "sample": sample}))
        .collect()
}

/// The patterns the page offers: those whose route template.yaml has.
pub(super) async fn list(State(app): State<Arc<App>>) -> Response {
    let patterns: Vec<Value> = SAMPLES
        .iter()
        .filter(|p| {
            app.routes
                .iter()
                .any(|r| r.method == p.method() && r.path == p.path())
        })
        .map(|p| {
            json!({
                "number": p.number.to_string(),
                "question": p.question(),
                "route": p.pattern().route,
                "caller": if p.as_customer { "the customer" } else { "staff" },
                "pathParams": fields(p.path_params),
                "queryParams": fields(p.query_params),
            })
        })
        .collect();
    json_response(StatusCode::OK, json!({"patterns": patterns}))
}

/// The pattern's path with its parameters in place, those parameters, and its query string;
/// the name of a path parameter left empty.
fn filled(
    pattern: &Sample,
    value: &impl Fn(&str) -> String,
) -> Result<(String, BTreeMap<String, String>, String), &'static str> {
    let mut path = pattern.path().to_owned();
    let mut path_params = BTreeMap::new();
    for (name, _) in pattern.path_params {
        let given = value(name);
        if given.is_empty() {
            return Err(name);
        }
        let encoded: String = form_urlencoded::byte_serialize(given.as_bytes()).collect();
        path = path.replace(&format!("{{{name}}}"), &encoded);
        path_params.insert((*name).to_owned(), given);
    }
    let query = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(
            pattern
                .query_params
                .iter()
                .map(|(name, _)| (*name, value(name)))
                .filter(|(_, v)| !v.is_empty()),
        )
        .finish();
    Ok((path, path_params, query))
}

type Chosen<'a> = (&'static Sample, &'a Route, HashMap<String, String>);

/// `{"pattern": "2", "params": {"customerId": "c1", "limit": "5"}}` read: the pattern, its
/// route, and the values given (trimmed).
fn chosen<'a>(routes: &'a [Route], body: &[u8]) -> Result<Chosen<'a>, String> {
    let request = serde_json::from_slice::<Value>(body).map_err(|_| "the body is not JSON")?;
    let number = request["pattern"].as_str().unwrap_or_default();
    let pattern = SAMPLES
        .iter()
        .find(|p| p.number.to_string() == number)
        .ok_or_else(|| format!("no access pattern {number:?}"))?;
    let route = routes
        .iter()
        .find(|r| r.method == pattern.method() && r.path == pattern.path())
        .ok_or_else(|| format!("template.yaml has no route {}", pattern.pattern().route))?;
    let given = request["params"]
        .as_object()
        .map(|o| {
            o.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.trim().to_owned())))
                .collect()
        })
        .unwrap_or_default();
    Ok((pattern, route, given))
}

/// The chosen pattern's route, called as its caller, and what it did.
pub(super) async fn run(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let bad = |detail: String| {
        json_response(
            StatusCode::BAD_REQUEST,
            json!({"title": "Cannot run that pattern", "detail": detail}),
        )
    };
    let (pattern, route, given) = match chosen(&app.routes, &body) {
        Ok(chosen) => chosen,
        Err(why) => return bad(why),
    };
    let value = |name: &str| given.get(name).cloned().unwrap_or_default();
    let (path, path_params, query) = match filled(pattern, &value) {
        Ok(filled) => filled,
        Err(missing) => return bad(format!("{missing} is needed")),
    };
    let customer = value("customerId");
    let who = if pattern.as_customer {
        Who::Customer(&customer)
    } else {
        Who::Staff
    };
    let claims = who.claims();
    let method = Method::GET;
    let call = Call {
        method: &method,
        path: &path,
        raw_query: &query,
        headers: &HeaderMap::new(),
        body: b"",
        claims: claims.as_ref(),
    };
    let (response, record) = app.call(route, &call, &path_params).await;
    let status = response.status().as_u16();
    let body = to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    let answer: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    json_response(
        StatusCode::OK,
        json!({
            "pattern": pattern.number.to_string(),
            "request": format!("{} {}{}", pattern.method(), path, if query.is_empty() { String::new() } else { format!("?{query}") }),
            "caller": record["caller"],
            "status": status,
            "answer": answer,
            "calls": record["calls"],
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::access_patterns::ACCESS_PATTERNS;

    /// The explorer offers a form for every access pattern, and for nothing else.
    #[test]
    fn every_access_pattern_has_its_form() {
        let forms: Vec<u8> = SAMPLES.iter().map(|s| s.number).collect();
        let patterns: Vec<u8> = ACCESS_PATTERNS.iter().map(|p| p.number).collect();
        assert_eq!(forms, patterns);
        for sample in SAMPLES {
            for (name, _) in sample.path_params {
                assert!(sample.path().contains(&format!("{{{name}}}")), "{name}");
            }
        }
    }
}
