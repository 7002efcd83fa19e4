//! The explorer, `make dev`'s page at `/_explorer`: the table drawn as item collections (and its
//! indexes as theirs), each item named by its entity from the key design
//! (`shared::dynamo::keys::Entity`), the access patterns run through their real routes with the
//! DynamoDB requests they made and the items those read, and a live log of every request served.
//! Plain HTML, CSS and JavaScript compiled into the binary: nothing is fetched from elsewhere.
//! Never part of the deployed API: template.yaml has no such route.

mod collections;
pub mod log;
mod patterns;

use std::sync::Arc;

use axum::Router;
use axum::extract::{RawQuery, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use shared::dynamo::keys::Entity;

use crate::state::App;

const PAGE: &str = include_str!("assets/index.html");
const STYLE: &str = include_str!("assets/explorer.css");
const SCRIPT: &str = include_str!("assets/explorer.js");

/// The page, its assets and its JSON API, for requests whose `Host` is one of `hosts`.
pub(crate) fn routes(hosts: Vec<String>) -> Router<Arc<App>> {
    let hosts = Arc::new(hosts);
    Router::new()
        .route(
            "/_explorer",
            get(|| async { asset("text/html; charset=utf-8", PAGE) }),
        )
        .route(
            "/_explorer/explorer.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE) }),
        )
        .route(
            "/_explorer/explorer.js",
            get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }),
        )
        .route("/_explorer/api/legend", get(legend))
        .route("/_explorer/api/collections", get(collections::collections))
        .route("/_explorer/api/patterns", get(patterns::list))
        .route("/_explorer/api/run", post(patterns::run))
        .route("/_explorer/api/log", get(log_since))
        .route("/_explorer/api/events", get(events_since))
        .route("/_explorer/api/emails", get(emails))
        .layer(middleware::from_fn(move |req: Request, next: Next| {
            let hosts = hosts.clone();
            async move {
                match refusal(&hosts, &req) {
                    Some(refused) => refused,
                    None => next.run(req).await,
                }
            }
        }))
}

/// Why the explorer does not answer `req`, if it does not: only this machine's browser, on the
/// page's own origin, may use it. A `Host` other than make dev's own names is a page that
/// rebound its DNS name to loopback (421); an `Origin`, or a `Sec-Fetch-Site`, other than the
/// page's own is another site's page (403); a POST that is not JSON is a form another site
/// could send without asking (415).
fn refusal(hosts: &[String], req: &Request) -> Option<Response> {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .map(|v| v.to_str().unwrap_or("\u{fffd}").to_owned())
    };
    let host = header("host").unwrap_or_default();
    if !hosts
        .iter()
        .any(|allowed| allowed.eq_ignore_ascii_case(&host))
    {
        return Some(problem(
            StatusCode::MISDIRECTED_REQUEST,
            "Not this explorer's host",
            format!(
                "the explorer answers only Host {}; this request named {host:?}",
                hosts.join(", ")
            ),
        ));
    }
    if let Some(origin) = header("origin")
        && !origin.eq_ignore_ascii_case(&format!("http://{host}"))
    {
        return Some(problem(
            StatusCode::FORBIDDEN,
            "Another origin",
            format!("the explorer answers only its own page, http://{host}, not {origin:?}"),
        ));
    }
    if let Some(site) = header("sec-fetch-site")
        && !matches!(site.as_str(), "same-origin" | "none")
    {
        return Some(problem(
            StatusCode::FORBIDDEN,
            "Another site",
            format!("the explorer answers only its own page, not a {site} request"),
        ));
    }
    let json = header("content-type").is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
    });
    if req.method() != axum::http::Method::GET && !json {
        return Some(problem(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Not JSON",
            "the explorer's requests that run anything are application/json".to_owned(),
        ));
    }
    None
}

fn problem(status: StatusCode, title: &str, detail: String) -> Response {
    (
        status,
        [("content-type", "application/problem+json")],
        json!({"type": "about:blank", "title": title, "status": status.as_u16(), "detail": detail})
            .to_string(),
    )
        .into_response()
}

/// Every explorer path answered with why it is not served.
pub(crate) fn refused(why: String) -> Router<Arc<App>> {
    let answer = move || {
        let why = why.clone();
        async move {
            problem(
                StatusCode::FORBIDDEN,
                "The explorer is not served here",
                why,
            )
        }
    };
    Router::new()
        .route("/_explorer", get(answer.clone()))
        .route("/_explorer/{*rest}", get(answer.clone()).post(answer))
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            ("content-type", content_type),
            ("cache-control", "no-store"),
            ("x-content-type-options", "nosniff"),
        ],
        body,
    )
        .into_response()
}

fn json_response(status: StatusCode, body: Value) -> Response {
    (
        status,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// The entities, as the key design names them: the page's one legend.
async fn legend() -> Response {
    let entities: Vec<Value> = Entity::ALL
        .iter()
        .enumerate()
        .map(|(i, entity)| {
            let (pk, sk) = entity.keys();
            let (background, text) = badge_colours(i);
            json!({"name": entity.name(), "pk": pk, "sk": sk, "sourceDesign": entity.from_source_design(),
                "background": background, "text": text})
        })
        .collect();
    json_response(StatusCode::OK, json!({"entities": entities}))
}

/// The badge of the `i`th entity: a background whose hue is `i` golden angles round the wheel
/// (so any number of entities stay apart), and white or ink text, whichever contrasts with it
/// more.
pub fn badge_colours(i: usize) -> (String, &'static str) {
    const INK: (u8, u8, u8) = (0x1d, 0x23, 0x30);
    let hue = (i as f64 * 137.508) % 360.0;
    let (r, g, b) = hsl_to_rgb(hue, 0.62, 0.28);
    let background = luminance((r, g, b));
    let on_white = 1.05 / (background + 0.05);
    let on_ink = (background + 0.05) / (luminance(INK) + 0.05);
    let text = if on_white >= on_ink {
        "#ffffff"
    } else {
        "#1d2330"
    };
    (format!("#{r:02x}{g:02x}{b:02x}"), text)
}

/// An HSL colour (hue in degrees, saturation and lightness 0 to 1) as 8-bit RGB.
fn hsl_to_rgb(hue: f64, saturation: f64, lightness: f64) -> (u8, u8, u8) {
    let chroma = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let sector = hue / 60.0;
    let x = chroma * (1.0 - (sector % 2.0 - 1.0).abs());
    let (r, g, b) = match sector as u32 {
        0 => (chroma, x, 0.0),
        1 => (x, chroma, 0.0),
        2 => (0.0, chroma, x),
        3 => (0.0, x, chroma),
        4 => (x, 0.0, chroma),
        _ => (chroma, 0.0, x),
    };
    let m = lightness - chroma / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (byte(r), byte(g), byte(b))
}

/// WCAG's relative luminance of an sRGB colour.
fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

/// A query string's parameters (the explorer's own: nothing of the API's goes through here).
fn parameters(query: Option<&str>) -> std::collections::HashMap<String, String> {
    form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .into_owned()
        .collect()
}

async fn log_since(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    let after = parameters(query.as_deref())
        .get("after")
        .and_then(|a| a.parse().ok())
        .unwrap_or(0);
    json_response(StatusCode::OK, json!({"requests": app.log.since(after)}))
}

/// The events make dev's bus delivered to its tap after place `after`, waiting up to `wait`
/// seconds (at most 20) for one: what `make events` prints.
async fn events_since(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    let Some(heard) = &app.events else {
        return problem(
            StatusCode::NOT_FOUND,
            "No events",
            "make dev runs no events' server (EVENTS_PORT=off)".to_owned(),
        );
    };
    let parameters = parameters(query.as_deref());
    let number = |name: &str| parameters.get(name).and_then(|v| v.parse::<u64>().ok());
    let wait = std::time::Duration::from_secs(number("wait").unwrap_or(0).min(20));
    let (events, last) = heard.since(number("after").unwrap_or(0), wait).await;
    json_response(StatusCode::OK, json!({"events": events, "last": last}))
}

/// The emails make dev's SES took, oldest first.
async fn emails(State(app): State<Arc<App>>) -> Response {
    let Some(heard) = app.events.clone() else {
        return json_response(StatusCode::OK, json!({"emails": []}));
    };
    match tokio::task::spawn_blocking(move || heard.emails()).await {
        Ok(Ok(emails)) => {
            let emails: Vec<Value> = emails
                .into_iter()
                .map(|e| json!({"id": e.id, "from": e.source, "to": e.to, "subject": e.subject, "body": e.body}))
                .collect();
            json_response(StatusCode::OK, json!({"emails": emails}))
        }
        Ok(Err(err)) => problem(
            StatusCode::BAD_GATEWAY,
            "moto did not answer",
            err.to_string(),
        ),
        Err(err) => problem(StatusCode::INTERNAL_SERVER_ERROR, "emails", err.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgb(hex: &str) -> (u8, u8, u8) {
        let byte = |at: usize| u8::from_str_radix(&hex[at..at + 2], 16).expect("hex");
        (byte(1), byte(3), byte(5))
    }

    /// However many entities there are, each badge's text is legible on its background
    /// (WCAG's 4.5:1 for small text) and no two badges share a background.
    #[test]
    fn every_entity_badge_is_legible_and_its_own() {
        let badges: Vec<(String, &str)> = (0..Entity::ALL.len() * 2).map(badge_colours).collect();
        for (background, text) in &badges {
            let (b, t) = (luminance(rgb(background)), luminance(rgb(text)));
            let contrast = (b.max(t) + 0.05) / (b.min(t) + 0.05);
            assert!(contrast >= 4.5, "{background} / {text}: {contrast:.2}");
        }
        let mut backgrounds: Vec<&String> = badges.iter().map(|(b, _)| b).collect();
        backgrounds.sort();
        backgrounds.dedup();
        assert_eq!(backgrounds.len(), badges.len());
    }
}
