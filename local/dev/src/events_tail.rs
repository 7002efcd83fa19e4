//! `make events`: the store's events as make dev's bus delivers them, one line each, as they
//! arrive (those heard together by subject, each subject's in sequence order). make dev keeps a tap on its bus (a queue every event of the store's reaches, drained
//! into its memory) and serves what it heard at `/_explorer/api/events`, so what was published
//! before is printed first, and any number of `make events` may follow at once.
//!
//! `make -s events` follows until Ctrl-C; `WAIT=n` (`--wait n`) stops after n seconds with no
//! event; `ORDER=<id>` (`--order <id>`) prints that order's events (and its refunds') only;
//! `JSON=1` (`--json`) prints each event's detail whole. API_PORT says where make dev is, as
//! make dev reads it.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::Value;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("store-events: {err}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), local_dev::events::Error> {
    let port = std::env::var("API_PORT")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "3000".to_owned());
    let authority = format!("127.0.0.1:{}", port.trim());
    let Options { wait, order, json } = Options::parse(std::env::args().skip(1))?;
    let mut after = 0;
    let mut last = Instant::now();
    loop {
        let target = format!("/_explorer/api/events?after={after}&wait=1");
        let request =
            format!("GET {target} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
        let (status, body) =
            local_engine::plain_http::exchange(&authority, request.as_bytes(), "make dev")?;
        let answer: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        if status != 200 {
            return Err(format!("make dev answered {status}: {}", answer["detail"]).into());
        }
        let events = answer["events"].as_array().cloned().unwrap_or_default();
        after = answer["last"].as_u64().unwrap_or(after);
        if events.is_empty() {
            if wait.is_some_and(|wait| last.elapsed() >= wait) {
                return Ok(());
            }
            continue;
        }
        last = Instant::now();
        let mut events = events;
        events.sort_by_key(|envelope| story_order(&envelope["detail"]));
        for envelope in events {
            let detail = &envelope["detail"];
            if order.as_deref().is_some_and(|o| detail["orderId"] != o) {
                continue;
            }
            println!(
                "{}",
                if json {
                    detail.to_string()
                } else {
                    line(detail)
                }
            );
        }
    }
}

/// What to print, from the command line.
#[derive(Debug, Default)]
struct Options {
    /// Stop after this long with no event (none: follow until stopped).
    wait: Option<Duration>,
    /// This order's events only.
    order: Option<String>,
    /// Each event's detail whole.
    json: bool,
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut options = Self::default();
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or(format!("{arg} needs a value"));
            match arg.as_str() {
                "--wait" => {
                    let raw = value()?;
                    let seconds = raw
                        .parse()
                        .map_err(|_| format!("--wait takes whole seconds, not {raw:?}"))?;
                    options.wait = Some(Duration::from_secs(seconds));
                }
                "--order" => options.order = Some(value()?),
                "--json" => options.json = true,
                other => {
                    return Err(format!(
                        "unknown argument {other:?}: [--wait SECONDS] [--order ID] [--json]"
                    ));
                }
            }
        }
        Ok(options)
    }
}

/// Where an event goes among those heard together: by subject (an order's events, then its
/// fulfilments', oldest first, then its cancellations', then its returns', then its refunds',
/// then products'), each subject's in sequence
/// order. The bus keeps no order, and one change can give events of two subjects (a shipment:
/// the fulfilment's and the order's), so the order they arrive in says nothing.
fn story_order(detail: &Value) -> (u8, String, u64) {
    let id = detail["eventId"].as_str().unwrap_or_default();
    let mut parts = id.splitn(3, '/');
    let kind = match parts.next().unwrap_or_default() {
        "order" => 0,
        "fulfilment" => 1,
        "cancellation" => 2,
        "return" => 3,
        "refund" => 4,
        _ => 5,
    };
    let subject = parts.next().unwrap_or_default().to_owned();
    let place = parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    (kind, subject, place)
}

/// Lines' quantities as `sku-1x2,sku-3x1`.
fn quantities(lines: &Value) -> String {
    lines
        .as_array()
        .into_iter()
        .flatten()
        .map(|line| {
            format!(
                "{}x{}",
                line["sku"].as_str().unwrap_or("-"),
                line["quantity"]
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// One event as a line: when, what, which, and the one fact it is about.
fn line(detail: &Value) -> String {
    let text = |v: &Value| v.as_str().unwrap_or("-").to_owned();
    let fact = match detail["type"].as_str().unwrap_or_default() {
        kind if kind.starts_with("order.") => {
            let order = &detail["order"];
            format!("{} {}", text(&order["status"]), text(&order["total"]))
        }
        kind if kind.starts_with("refund.") => {
            let refund = &detail["refund"];
            format!(
                "{} {} {}",
                text(&refund["status"]),
                refund["amount"],
                text(&refund["currency"])
            )
        }
        kind if kind.starts_with("fulfilment.") => {
            let fulfilment = &detail["fulfilment"];
            let lines = quantities(&fulfilment["lines"]);
            let tracking = [&fulfilment["carrier"], &fulfilment["trackingNumber"]]
                .into_iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" ");
            format!("{} {} {tracking}", text(&fulfilment["status"]), lines)
                .trim_end()
                .to_owned()
        }
        kind if kind.starts_with("cancellation.") => {
            let cancellation = &detail["cancellation"];
            let lines = quantities(&cancellation["lines"]);
            format!("CANCELLED {} ({})", lines, text(&cancellation["reason"]))
        }
        kind if kind.starts_with("return.") => {
            let order_return = &detail["return"];
            let asked = quantities(&order_return["lines"]);
            format!(
                "{} {} ({})",
                text(&order_return["status"]),
                asked,
                text(&order_return["reason"])
            )
        }
        _ => {
            let product = &detail["product"];
            format!(
                "stock {} (below {})",
                product["stock"], product["threshold"]
            )
        }
    };
    format!(
        "{}  {:<20}  {}  {}",
        text(&detail["occurredAt"]),
        text(&detail["type"]),
        text(&detail["eventId"]),
        fact
    )
}
