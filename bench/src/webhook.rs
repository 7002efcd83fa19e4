//! The webhook's signature check under a stranger's header: what refusing it costs, against
//! one HMAC-SHA256 of the body (the least any check of a signed body can cost). In process, on
//! this machine's CPU, the median of many calls: no Lambda, no network, only the check that
//! runs before anything else the webhook does.

use std::hint::black_box;
use std::time::{Duration, Instant};

use shared::http::signature::WebhookSecrets;

/// The body the review sent: 64 KiB, unsigned.
const BODY_BYTES: usize = 64 * 1024;
/// Calls timed per row; the median is printed.
const CALLS: usize = 301;

/// The median time of `CALLS` calls of `f`.
fn median(mut f: impl FnMut()) -> Duration {
    for _ in 0..20 {
        f();
    }
    let mut times: Vec<Duration> = (0..CALLS)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .collect();
    times.sort_unstable();
    times[CALLS / 2]
}

pub(crate) fn section() {
    let body = vec![b'x'; BODY_BYTES];
    let one = WebhookSecrets::parse("whsec_bench_one").unwrap_or_else(|| unreachable!());
    let rolling =
        WebhookSecrets::parse("whsec_bench_new,whsec_bench_old").unwrap_or_else(|| unreachable!());
    let now = 1_800_000_000;
    let signed = one.sign(now, &body);
    let wrong = |count: usize| {
        let v1s: Vec<String> = (0..count)
            .map(|_| format!("v1={}", "0".repeat(64)))
            .collect();
        format!("t={now},{}", v1s.join(","))
    };
    let flood = format!("t={now},{}", vec!["v1=00"; 1_600].join(","));
    let hmac = median(|| {
        black_box(one.sign(now, black_box(&body)));
    });
    let rows: [(&str, &WebhookSecrets, &str, bool); 5] = [
        (
            "signed by the provider: one v1, accepted",
            &one,
            &signed,
            true,
        ),
        (
            "a stranger's: one wrong v1, refused",
            &one,
            &wrong(1),
            false,
        ),
        (
            "four wrong v1 (the most read), refused",
            &one,
            &wrong(4),
            false,
        ),
        (
            "four wrong v1, two secrets while rolling, refused",
            &rolling,
            &wrong(4),
            false,
        ),
        (
            "the review's 1,600 `v1=00` (9.6 KB), refused unread",
            &one,
            &flood,
            false,
        ),
    ];
    println!(
        "\n### The webhook's signature check ({} KiB body; median of {CALLS} calls, in process)\n",
        BODY_BYTES / 1024
    );
    println!(
        "One HMAC-SHA256 of the body (signing it): {:.1} µs.\n",
        micros(hmac)
    );
    print_rows(&rows, &body, now, hmac);
}

/// Each row's median, and its ratio to one HMAC of the body; each verdict checked first.
fn print_rows(rows: &[(&str, &WebhookSecrets, &str, bool)], body: &[u8], now: i64, hmac: Duration) {
    println!("| header | time | HMACs of the body |");
    println!("|---|---|---|");
    for (what, secrets, header, accepted) in rows {
        let verdict = secrets.verify(Some(header), body, now).is_ok();
        assert_eq!(verdict, *accepted, "{what}");
        let took = median(|| {
            black_box(secrets.verify(Some(black_box(header)), black_box(body), now)).ok();
        });
        println!(
            "| {what} | {:.2} µs | {:.2} |",
            micros(took),
            took.as_secs_f64() / hmac.as_secs_f64()
        );
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
