//! The payer against a failing provider: a fault proxy in front of localstripe answers the next
//! `POST /v1/refunds` with a 500, a 429, no answer at all, or localstripe's own answer lost
//! after localstripe made the refund. For every fault, exactly one refund at the provider.

use local_engine::declared::as_function;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use super::*;

/// What the proxy does with the next `POST /v1/refunds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fault {
    /// Answers this status itself; localstripe never sees the request.
    Status(u16),
    /// Never answers; localstripe never sees the request.
    Silence,
    /// Forwards it (localstripe makes the refund), then drops the answer.
    LostAfterActing,
}

/// The proxy: its base URL, and the faults still to apply, in order.
pub(super) struct Proxy {
    base: String,
    pub(super) faults: Arc<Mutex<VecDeque<Fault>>>,
}

/// One request as read off a connection: its head's first line, headers and body.
struct Read {
    line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

async fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Read> {
    let mut line = String::new();
    if reader.read_line(&mut line).await.ok()? == 0 {
        return None;
    }
    let mut headers = Vec::new();
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).await.ok()?;
        let header = header.trim_end().to_owned();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        if name.eq_ignore_ascii_case("content-length") {
            length = value.trim().parse().ok()?;
        }
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.ok()?;
    Some(Read {
        line: line.trim_end().to_owned(),
        headers,
        body,
    })
}

/// `read` sent on to localstripe at `upstream`, `Connection: close`: its status and body.
async fn forward(upstream: &str, read: &Read) -> (u16, String) {
    let mut raw = format!("{}\r\nhost: {upstream}\r\nconnection: close\r\n", read.line);
    for (name, value) in &read.headers {
        if !["host", "connection"].contains(&name.to_ascii_lowercase().as_str()) {
            raw.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    raw.push_str("\r\n");
    let mut bytes = raw.into_bytes();
    bytes.extend_from_slice(&read.body);
    let upstream = upstream.to_owned();
    tokio::task::spawn_blocking(move || {
        local_engine::plain_http::exchange(&upstream, &bytes, "localstripe").expect("localstripe")
    })
    .await
    .expect("exchange")
}

async fn serve(stream: TcpStream, upstream: String, faults: Arc<Mutex<VecDeque<Fault>>>) {
    let mut reader = BufReader::new(stream);
    // One request a connection: every answer says `connection: close`.
    let Some(read) = read_request(&mut reader).await else {
        return;
    };
    let fault = if read.line.starts_with("POST /v1/refunds ") {
        faults.lock().expect("lock").pop_front()
    } else {
        None
    };
    let (status, body) = match fault {
        Some(Fault::Status(status)) => (status, r#"{"error":{"message":"injected"}}"#.into()),
        Some(Fault::Silence) => {
            tokio::time::sleep(Duration::from_secs(10)).await;
            return;
        }
        Some(Fault::LostAfterActing) => {
            forward(&upstream, &read).await;
            return;
        }
        None => forward(&upstream, &read).await,
    };
    let answer = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = reader.get_mut().write_all(answer.as_bytes()).await;
}

impl Proxy {
    pub(super) async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let upstream = local_engine::testing::provider()
            .base()
            .trim_start_matches("http://")
            .to_owned();
        let faults = Arc::new(Mutex::new(VecDeque::new()));
        let shared = faults.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, upstream.clone(), shared.clone()));
            }
        });
        Self { base, faults }
    }

    pub(super) fn payer(&self, store: &Store) -> functions::pay_refunds::Payer {
        functions::pay_refunds::Payer {
            store: store.clone(),
            provider: payment_provider::Provider::new(&self.base, LOCAL_API_KEY),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_every_fault_the_provider_makes_each_refund_exactly_once() {
    let app = TestApp::seeded().await.expect("app");
    let store = &app.store;
    let proxy = Proxy::start().await;
    let (order, amount, intent) = held(store, "c2", &[("sku-2", 4)]).await;
    pay_at_provider(&intent);
    succeeded_event(store, "evt_faults_1", &intent, amount, &order).await;
    let faults = [
        Fault::Status(500),
        Fault::Status(429),
        Fault::Silence,
        Fault::LostAfterActing,
    ];
    for (i, fault) in faults.into_iter().enumerate() {
        let before = refunds_at_provider(&intent).len();
        let (status, asked) = refund(
            store,
            &order,
            &format!("fault-{i}"),
            r#"{"amount":10,"reason":"under a fault"}"#,
        )
        .await;
        assert_eq!(status, 202, "{fault:?}: {asked}");
        let id = asked["refundId"].as_str().expect("id").to_owned();
        proxy.faults.lock().expect("lock").push_back(fault);
        // Runs until it settles, each one past the last's claim (as the next minute's would be).
        let mut runs = Vec::new();
        for _ in 0..3 {
            let run = as_function(
                "pay-refunds",
                functions::pay_refunds::handle(&proxy.payer(store), BUDGET),
            )
            .await
            .expect("run");
            let settled = run.succeeded == 1;
            runs.push(run);
            if settled {
                break;
            }
            as_if_unanswered(store, &order, &id).await;
        }
        assert!(
            runs.iter().any(|run| run.succeeded == 1),
            "{fault:?}: {runs:?}"
        );
        assert_eq!(
            refunds_at_provider(&intent).len(),
            before + 1,
            "{fault:?}: exactly one refund at the provider ({runs:?})"
        );
    }
    let ledger = ledger(store, &order).await;
    assert_eq!(refunds_sum(&ledger), 40, "{ledger}");
    let at_provider: i64 = refunds_at_provider(&intent)
        .iter()
        .map(|r| r["amount"].as_i64().expect("amount"))
        .sum();
    assert_eq!(at_provider, 40);
}
