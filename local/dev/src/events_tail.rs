//! `make events`: the store's events as make dev's bus delivers them, one line each, as they
//! arrive: from the tap make dev keeps on its bus (a queue every event of the store's reaches),
//! so what was published before is printed first. Each event is read once.
//!
//! `make -s events` follows until Ctrl-C; `WAIT=n` (`--wait n`) stops after n seconds with no
//! event; `ORDER=<id>` (`--order <id>`) prints that order's events (and its refunds') only;
//! `JSON=1` (`--json`) prints each event's detail whole. EVENTS_PORT (or EVENTS_ENDPOINT) says
//! where make dev's bus is, as make dev reads them.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use local_dev::events::TAP;
use local_engine::bus::LocalBus;
use serde_json::Value;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("store-events: {err}");
            ExitCode::from(2)
        }
    }
}

fn env_value(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

async fn run() -> Result<(), local_dev::events::Error> {
    let base = match env_value("EVENTS_ENDPOINT") {
        Some(base) => base,
        None => match local_engine::bus::port_from_env()? {
            Some(port) => format!("http://127.0.0.1:{port}"),
            None => return Err("EVENTS_PORT is off: make dev publishes no events".into()),
        },
    };
    let Options { wait, order, json } = Options::parse(std::env::args().skip(1))?;
    let bus = LocalBus::at(&base);
    let queue = bus
        .sqs()
        .get_queue_url()
        .queue_name(TAP)
        .send()
        .await
        .map_err(|err| format!("is make dev running, with its events on {base}? {err}"))?
        .queue_url()
        .unwrap_or_default()
        .to_owned();
    let mut last = Instant::now();
    loop {
        let bodies = bus.take(&queue, Duration::from_secs(1)).await?;
        if bodies.is_empty() {
            if wait.is_some_and(|wait| last.elapsed() >= wait) {
                return Ok(());
            }
            continue;
        }
        last = Instant::now();
        for body in bodies {
            let envelope: Value = serde_json::from_str(&body)?;
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
