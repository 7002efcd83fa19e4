//! The explorer page in a real browser: headless Chromium (Debian's `chromium`; `make test`
//! installs it) against a fresh `make dev` — the store-local binary on its own ports and data
//! file. Chromium is driven by its command line: `--dump-dom` after the page's scripts have run
//! (`--virtual-time-budget` lets them finish), and `--screenshot`. Nothing else is needed to
//! read what a user sees: the page marks each row with its keys, entity and whether the last
//! pattern read it, and each log entry with its route, status and DynamoDB operations.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::dev::{Dev, exchange, free_port, http, staff_token, start_dev, token};
use shared::domain::ids::OrderId;
use shared::domain::time::Timestamp;
use shared::dynamo::entities::{customer, order_listing};

fn chromium() -> PathBuf {
    let found = std::env::var_os("CHROMIUM").map(PathBuf::from).or_else(|| {
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .find_map(|name| {
                std::env::var_os("PATH").and_then(|paths| {
                    std::env::split_paths(&paths)
                        .map(|dir| dir.join(name))
                        .find(|path| path.is_file())
                })
            })
    });
    found.expect("headless Chromium: `make test` installs Debian's chromium (or set CHROMIUM)")
}

/// Chromium, headless, on `url`, with `extra` arguments; its stdout.
fn browse(dev: &Dev, url: &str, extra: &[&str]) -> String {
    let profile = dev.dir.join(format!("chromium-{}", free_port()));
    let started = Instant::now();
    let output = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--no-first-run",
            "--hide-scrollbars",
            "--virtual-time-budget=15000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stderr(Stdio::null())
        .output()
        .expect("chromium runs");
    assert!(
        output.status.success(),
        "chromium on {url}: {:?}",
        output.status
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "chromium took {:?}",
        started.elapsed()
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn dom(dev: &Dev, fragment: &str) -> String {
    let dom = browse(
        dev,
        &format!("http://{}/_explorer{fragment}", dev.api),
        &["--dump-dom"],
    );
    assert!(
        dom.contains(r#"data-ready="true""#),
        "the page finished loading:\n{dom}"
    );
    dom
}

/// Each element's opening tag, for `tag`.
fn tags<'a>(dom: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag} ");
    dom.match_indices(&open)
        .filter_map(|(at, _)| dom[at..].find('>').map(|end| &dom[at..at + end]))
        .collect()
}

/// An attribute of an opening tag, with the DOM serialiser's escapes undone.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = tag[start..].find('"')? + start;
    Some(
        tag[start..end]
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\""),
    )
}

/// `(PK, SK, entity, read)` of every item row shown.
fn rows(dom: &str) -> Vec<(String, String, String, bool)> {
    tags(dom, "tr")
        .into_iter()
        .filter_map(|tag| {
            Some((
                attribute(tag, "data-pk")?,
                attribute(tag, "data-sk")?,
                attribute(tag, "data-entity").unwrap_or_default(),
                attribute(tag, "data-read").as_deref() == Some("true"),
            ))
        })
        .collect()
}

#[test]
fn the_explorer_draws_the_table_runs_a_pattern_and_logs_requests() {
    let (dev, banner) = start_dev("page", "127.0.0.1");
    assert!(
        banner.contains(&format!("explorer         http://{}/_explorer", dev.api)),
        "the banner prints the explorer's URL:\n{banner}"
    );

    // The sample customer's partition: the profile and its orders, each labelled by its entity.
    let page = dom(&dev, "#view=table&prefix=CUSTOMER%23c1");
    let shown = rows(&page);
    let c1 = customer::pk(&shared::domain::ids::CustomerId::parse("c1").expect("id"));
    assert!(
        shown.iter().all(|(pk, ..)| *pk == c1),
        "only c1's partition"
    );
    assert!(
        shown
            .iter()
            .any(|(_, sk, entity, _)| sk == customer::SORT_KEY && entity == "Customer"),
        "the profile, as a Customer"
    );
    let listings: Vec<&String> = shown
        .iter()
        .filter(|(_, sk, _, _)| sk.starts_with("ORDER#"))
        .map(|(_, _, entity, _)| entity)
        .collect();
    assert!(listings.len() >= 10, "c1's orders: {}", listings.len());
    assert!(listings.iter().all(|e| *e == "Order listing"));
    assert!(
        page.contains("◆ Customer")
            && page.contains("◆ Order listing")
            && page.contains("◆ Line item")
    );
    // Every entity has a legend badge whose text stands out from its background.
    for entity in shared::dynamo::keys::Entity::ALL {
        let badge = tags(&page, "span")
            .into_iter()
            .find(|tag| attribute(tag, "data-entity").as_deref() == Some(entity.name()))
            .unwrap_or_else(|| panic!("no badge for {entity:?}"));
        let style = attribute(badge, "style").unwrap_or_default();
        let colour = |property: &str| {
            style
                .split(';')
                .find_map(|decl| decl.trim().strip_prefix(property))
                .map(|value| value.trim().to_owned())
        };
        let (background, text) = (colour("background-color:"), colour("color:"));
        assert!(
            background.is_some() && text.is_some() && background != text,
            "{entity:?}'s badge: {style:?}"
        );
    }

    // Access pattern 2 marks exactly the items the API returns for it.
    let c1_token = token(&dev, "c1");
    let (status, answer) = http(&dev, "GET", "/customers/c1/orders?limit=100", &c1_token, "");
    assert_eq!(status, 200);
    let returned: std::collections::BTreeSet<String> = answer["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|order| {
            let at = Timestamp::parse(order["placedAt"].as_str().expect("placedAt")).expect("time");
            let id = OrderId::parse(order["orderId"].as_str().expect("orderId")).expect("id");
            order_listing::sk(at, &id)
        })
        .collect();
    let page = dom(&dev, "#pattern=2&customerId=c1&limit=100");
    assert!(page.contains(r#"data-ran="2""#));
    let read: std::collections::BTreeSet<String> = rows(&page)
        .into_iter()
        .filter(|(pk, _, _, read)| *read && *pk == c1)
        .map(|(_, sk, _, _)| sk)
        .collect();
    assert_eq!(read, returned, "the marked items are the API's answer");
    assert!(
        page.contains("1 DynamoDB request,"),
        "one request for the pattern"
    );
    assert!(page.contains(r#"data-operation="Query""#));

    // A pattern the store does not have, or without its parameters: a 400 naming why.
    let (status, body) = http(
        &dev,
        "POST",
        "/_explorer/api/run",
        "none",
        r#"{"pattern":"99"}"#,
    );
    assert_eq!(status, 400);
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("no access pattern")),
        "{body}"
    );
    let (status, body) = http(
        &dev,
        "POST",
        "/_explorer/api/run",
        "none",
        r#"{"pattern":"1","params":{"customerId":" "}}"#,
    );
    assert_eq!(status, 400);
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("customerId")),
        "{body}"
    );

    // An order through the API (placed by staff: a customer checks out): the live log shows
    // it, with its two requests and their cost.
    let (status, placed) = http(
        &dev,
        "POST",
        "/customers/c1/orders",
        &staff_token(&dev),
        r#"{"items":[{"sku":"sku-1","quantity":1}]}"#,
    );
    assert_eq!(status, 201);
    // Its event is published and its customer emailed, both shown beside the log.
    let subject = format!(
        "Your order {} is placed",
        placed["orderId"].as_str().expect("id")
    );
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        let (_, emails) = http(&dev, "GET", "/_explorer/api/emails", "none", "");
        if emails.to_string().contains(&subject) {
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let page = dom(&dev, "");
    assert!(page.contains(&subject), "the email, in the explorer");
    assert!(
        page.contains(&format!(
            r#"data-type="order.placed" data-event-id="order/{}/1""#,
            placed["orderId"].as_str().expect("id")
        )),
        "the event, in the explorer"
    );
    let start = page
        .find(r#"data-route="POST /customers/{customerId}/orders" data-status="201""#)
        .expect("the POST in the live log");
    let entry = &page[start..];
    let entry = &entry[..entry[1..]
        .find("<li data-id=")
        .map_or(entry.len(), |end| end + 1)];
    let operations: Vec<String> = tags(entry, "li")
        .into_iter()
        .filter_map(|tag| attribute(tag, "data-operation"))
        .collect();
    assert_eq!(
        operations,
        ["BatchGetItem", "TransactWriteItems"],
        "{entry}"
    );
    // The capacity docs/capacity.md gives for an order of one line.
    assert!(entry.contains("1.5 read units"), "{entry}");
    assert!(entry.contains("15 write units"), "{entry}");

    // A crafted fragment is read as text: the page still loads, and draws the table.
    let page = dom(&dev, "#pattern=1\"]");
    assert!(
        !rows(&page).is_empty(),
        "the table under a crafted fragment"
    );

    // The README's screenshot.
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("explorer.png");
    let _ = std::fs::remove_file(&shot);
    browse(
        &dev,
        &format!(
            "http://{}/_explorer#pattern=2&customerId=c5&limit=5",
            dev.api
        ),
        &[
            "--window-size=1400,1100",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 50_000,
        "{} bytes",
        png.len()
    );
    // The picture says which entities its legend shows (the registry's, as checked above), so
    // the committed one can be held to the registry.
    let shown = legend_names();
    let png = with_text(&png, ENTITIES_KEYWORD, &shown);
    std::fs::write(&shot, &png).expect("the screenshot, labelled");
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/images/explorer.png");
    let drawn = std::fs::read(&committed)
        .ok()
        .and_then(|png| text_of(&png, ENTITIES_KEYWORD));
    if drawn.as_deref() != Some(shown.as_str()) {
        std::fs::write(&committed, &png).expect("the README's screenshot refreshed");
        panic!(
            "docs/images/explorer.png showed {drawn:?}, and the explorer shows {shown:?}: the \
             fresh screenshot replaced it; commit it"
        );
    }
}

/// The tEXt keyword under which a screenshot lists the entities its legend shows.
const ENTITIES_KEYWORD: &str = "Entities";

/// The legend's entities, as the page draws them: the registry's names, in its order.
fn legend_names() -> String {
    shared::dynamo::keys::Entity::ALL
        .iter()
        .map(|entity| entity.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The PNG's chunks: (type, data).
fn chunks(png: &[u8]) -> Vec<([u8; 4], &[u8])> {
    let mut found = Vec::new();
    let mut at = 8;
    while at + 12 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().expect("4 bytes")) as usize;
        let kind: [u8; 4] = png[at + 4..at + 8].try_into().expect("4 bytes");
        let Some(data) = png.get(at + 8..at + 8 + len) else {
            break;
        };
        found.push((kind, data));
        at += 12 + len;
    }
    found
}

/// The text a PNG's tEXt chunk keeps under `keyword`.
fn text_of(png: &[u8], keyword: &str) -> Option<String> {
    chunks(png).into_iter().find_map(|(kind, data)| {
        let (key, text) = data.split_at(data.iter().position(|b| *b == 0)?);
        (&kind == b"tEXt" && key == keyword.as_bytes())
            .then(|| String::from_utf8_lossy(&text[1..]).into_owned())
    })
}

/// `png` with a tEXt chunk of `text` under `keyword`, right after its header.
fn with_text(png: &[u8], keyword: &str, text: &str) -> Vec<u8> {
    let mut data = keyword.as_bytes().to_vec();
    data.push(0);
    data.extend_from_slice(text.as_bytes());
    let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
    let mut typed = b"tEXt".to_vec();
    typed.extend_from_slice(&data);
    chunk.extend_from_slice(&typed);
    chunk.extend_from_slice(&crc32(&typed).to_be_bytes());
    // The signature (8 bytes), then IHDR: length, type, 13 bytes, CRC.
    let header_end = 8 + 12 + 13;
    let mut out = png[..header_end].to_vec();
    out.extend_from_slice(&chunk);
    out.extend_from_slice(&png[header_end..]);
    out
}

/// PNG's CRC-32 (ISO 3309), bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn a_screenshots_label_reads_back_and_its_checksum_is_pngs() {
    assert_eq!(
        crc32(b"IEND"),
        0xAE42_6082,
        "the checksum every PNG's end carries"
    );
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend_from_slice(&13u32.to_be_bytes());
    png.extend_from_slice(b"IHDR");
    png.extend_from_slice(&[0; 17]);
    png.extend_from_slice(&[0, 0, 0, 0]);
    png.extend_from_slice(b"IEND");
    png.extend_from_slice(&crc32(b"IEND").to_be_bytes());
    let labelled = with_text(&png, ENTITIES_KEYWORD, "Customer, Line item");
    assert_eq!(
        text_of(&labelled, ENTITIES_KEYWORD).as_deref(),
        Some("Customer, Line item")
    );
    assert_eq!(text_of(&png, ENTITIES_KEYWORD), None);
    let kinds: Vec<[u8; 4]> = chunks(&labelled).into_iter().map(|(k, _)| k).collect();
    assert_eq!(kinds, [*b"IHDR", *b"tEXt", *b"IEND"]);
}

#[test]
fn the_explorer_is_refused_off_loopback_unless_enabled() {
    // 0.0.0.0 is not a loopback address: every interface could reach the page.
    let (dev, banner) = start_dev("off", "0.0.0.0");
    assert!(banner.contains("explorer         off"), "{banner}");
    let (status, body) = http(&dev, "GET", "/_explorer", "none", "");
    assert_eq!(status, 403);
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("STORE_EXPLORER=1")),
        "{body}"
    );
    let (status, _) = http(&dev, "GET", "/_explorer/api/collections", "none", "");
    assert_eq!(status, 403);
}

/// One request with exactly `headers` (and the body's length); the status and the JSON body.
fn raw(
    dev: &Dev,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, serde_json::Value) {
    let mut request = format!("{method} {target} HTTP/1.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    exchange(dev, &request)
}

#[test]
fn the_explorer_answers_only_this_machine_and_its_own_page() {
    let (dev, _) = start_dev("guard", "127.0.0.1");
    let port = dev.api.rsplit_once(':').expect("port").1.to_owned();
    let own = format!("http://{}", dev.api);
    let legend =
        |headers: &[(&str, &str)]| raw(&dev, "GET", "/_explorer/api/legend", headers, "").0;
    // make dev's own names, on its port.
    for host in [
        dev.api.clone(),
        format!("localhost:{port}"),
        format!("LocalHost:{port}"),
    ] {
        assert_eq!(legend(&[("Host", &host)]), 200, "{host}");
    }
    // A page that rebound its own name to 127.0.0.1 sends that name: 421, as does another port
    // or no Host at all.
    for host in [
        format!("rebound.example:{port}"),
        "127.0.0.1:1".to_owned(),
        format!("127.0.0.1.nip.io:{port}"),
    ] {
        assert_eq!(legend(&[("Host", &host)]), 421, "{host}");
    }
    assert_eq!(legend(&[]), 421, "no Host");
    let (status, body) = raw(
        &dev,
        "GET",
        "/_explorer",
        &[("Host", "rebound.example")],
        "",
    );
    assert_eq!(status, 421);
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("rebound.example")),
        "{body}"
    );
    // Another site's page: its Origin, or the browser's Sec-Fetch-Site, gives it away.
    assert_eq!(
        legend(&[("Host", &dev.api), ("Origin", "http://evil.example")]),
        403
    );
    assert_eq!(legend(&[("Host", &dev.api), ("Origin", "null")]), 403);
    assert_eq!(
        legend(&[("Host", &dev.api), ("Sec-Fetch-Site", "cross-site")]),
        403
    );
    assert_eq!(
        legend(&[("Host", &dev.api), ("Sec-Fetch-Site", "same-site")]),
        403
    );
    assert_eq!(
        legend(&[
            ("Host", &dev.api),
            ("Origin", &own),
            ("Sec-Fetch-Site", "same-origin")
        ]),
        200
    );
    // Running a pattern: only as JSON (a cross-site form can send text/plain without asking),
    // and only from the page's own origin.
    let run = r#"{"pattern":"1","params":{"customerId":"c1"}}"#;
    let post = |headers: &[(&str, &str)]| raw(&dev, "POST", "/_explorer/api/run", headers, run).0;
    assert_eq!(
        post(&[
            ("Host", &dev.api),
            ("Origin", &own),
            ("Content-Type", "text/plain")
        ]),
        415
    );
    assert_eq!(
        post(&[("Host", &dev.api), ("Origin", &own)]),
        415,
        "no Content-Type"
    );
    assert_eq!(
        post(&[
            ("Host", &dev.api),
            ("Origin", "http://evil.example"),
            ("Content-Type", "application/json")
        ]),
        403
    );
    assert_eq!(
        post(&[
            ("Host", &dev.api),
            ("Origin", &own),
            ("Content-Type", "application/json; charset=utf-8")
        ]),
        200
    );
}

#[test]
fn the_collections_view_pages_through_the_table_a_bounded_stretch_at_a_time() {
    let (dev, _) = start_dev("pages", "127.0.0.1");
    let mut seen = std::collections::BTreeSet::new();
    let mut cursor = String::new();
    let mut pages = 0;
    loop {
        let target = format!(
            "/_explorer/api/collections?view=table&cursor={}",
            form_urlencoded::byte_serialize(cursor.as_bytes()).collect::<String>()
        );
        let (status, page) = http(&dev, "GET", &target, "none", "");
        assert_eq!(status, 200, "{page}");
        pages += 1;
        let partitions = page["partitions"].as_array().expect("partitions");
        assert!(partitions.len() <= 8, "a page of at most 8 partitions");
        assert!(
            page["scanned"].as_u64().expect("scanned") <= page["budget"].as_u64().expect("budget")
        );
        for partition in partitions {
            let key = partition["key"].as_str().expect("key").to_owned();
            assert!(seen.insert(key.clone()), "{key} on two pages");
        }
        match page["next"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => break,
        }
        assert!(pages < 1_000, "the pages end");
    }
    assert!(pages > 1, "the sample data is more than a page");
    let c1 = customer::pk(&shared::domain::ids::CustomerId::parse("c1").expect("id"));
    assert!(seen.contains(&c1), "c1's partition is on a page");
    // A cursor it did not hand out is a 400, not a scan from anywhere.
    let (status, _) = http(
        &dev,
        "GET",
        "/_explorer/api/collections?cursor=%7Bnope",
        "none",
        "",
    );
    assert_eq!(status, 400);
    // The whole of c1's partition is one stretch when filtered by its key: the items the
    // table view showed for it all along.
    let (status, page) = http(
        &dev,
        "GET",
        "/_explorer/api/collections?view=table&prefix=CUSTOMER%23c1",
        "none",
        "",
    );
    assert_eq!(status, 200);
    assert!(
        page["partitions"]
            .as_array()
            .is_some_and(|p| p.iter().any(|p| p["key"] == c1.as_str())),
        "{page}"
    );
}
