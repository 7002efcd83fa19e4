//! What a million requests cost at each memory size, with the on-demand INIT phase billed (as
//! Lambda bills it since August 2025) at a stated share of cold starts, and the memory size
//! that follows from it.

use std::time::Duration;

use super::report::mean;
use super::{Measured, Runtime};
use crate::report::millis;

/// Lambda prices, arm64, us-east-1 (2026-11): per GB-second of billed duration (first tier) and
/// per request.
pub(crate) const PRICE_PER_GB_SECOND: f64 = 0.000_013_333_4;
pub(crate) const PRICE_PER_REQUEST: f64 = 0.20 / 1_000_000.0;

/// The shares of requests that are cold starts the table prices.
const COLD_RATES: [f64; 3] = [0.0, 0.001, 0.01];

/// Billed milliseconds: rounded up to the millisecond, at least one.
fn billed_ms(d: Duration) -> f64 {
    millis(d).ceil().max(1.0)
}

/// What a million requests cost at `memory_mb` when `cold_rate` of them are cold starts billed
/// `init + first invoke` (`cold`) and the rest take what `warm` took, US dollars.
pub(crate) fn per_million(
    memory_mb: u32,
    warm: &[Duration],
    cold: Duration,
    cold_rate: f64,
) -> f64 {
    if warm.is_empty() {
        return 0.0;
    }
    let warm_ms = warm.iter().copied().map(billed_ms).sum::<f64>() / warm.len() as f64;
    let billed = (1.0 - cold_rate) * warm_ms + cold_rate * billed_ms(cold);
    let gb_seconds = f64::from(memory_mb) / 1024.0 * billed / 1000.0;
    (gb_seconds * PRICE_PER_GB_SECOND + PRICE_PER_REQUEST) * 1_000_000.0
}

/// The mean over the four functions of `runtime` at `size` of a million requests' cost.
fn mean_cost(measured: &[Measured], runtime: Runtime, size: u32, rate: f64) -> Option<f64> {
    mean(measured, runtime, size, |m| {
        per_million(m.memory_mb, &m.on_demand.warm, m.on_demand.first, rate)
    })
}

pub(crate) fn print(measured: &[Measured], sizes: &[u32]) {
    println!();
    println!(
        "| runtime | memory MB | $ per million requests: all warm | 0.1% cold starts, init billed | 1% cold starts, init billed |"
    );
    println!("|---|---|---|---|---|");
    let runtimes = [Runtime::Rust].into_iter().chain(
        super::Peer::ALL
            .iter()
            .flat_map(|p| p.variants().iter().copied()),
    );
    for runtime in runtimes {
        for &size in sizes {
            let costs: Vec<String> = COLD_RATES
                .iter()
                .filter_map(|&rate| mean_cost(measured, runtime, size, rate))
                .map(|c| format!("{c:.4}"))
                .collect();
            if costs.len() == COLD_RATES.len() {
                println!("| {} | {size} | {} |", runtime.name(), costs.join(" | "));
            }
        }
    }
    let rate = COLD_RATES[COLD_RATES.len() - 1];
    let best = |value: &dyn Fn(u32) -> Option<f64>| {
        sizes
            .iter()
            .filter_map(|&s| value(s).map(|v| (s, v)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    };
    let cheapest = best(&|s| mean_cost(measured, Runtime::Rust, s, rate));
    let fastest = best(&|s| mean(measured, Runtime::Rust, s, |m| millis(m.on_demand.first)));
    if let (Some((cheapest, cost)), Some((fastest, first))) = (cheapest, fastest) {
        println!();
        println!(
            "The store's functions cost least at {cheapest} MB (${cost:.4} per million requests with {}% cold starts, init billed; the mean of the four) and start fastest at {fastest} MB (on-demand cold start {first:.2} ms).",
            rate * 100.0
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cold_start_is_billed_its_init_and_invoke_at_its_share_of_requests() {
        let ms = Duration::from_millis;
        // 1 ms warm at 1,024 MB: 0.001 GB-s a request.
        let warm = [ms(1), Duration::from_micros(300)];
        let all_warm = per_million(1024, &warm, ms(100), 0.0);
        assert!((all_warm - (0.001 * PRICE_PER_GB_SECOND + PRICE_PER_REQUEST) * 1e6).abs() < 1e-9);
        // 1% at 100 ms: 0.99 × 1 + 0.01 × 100 = 1.99 billed ms.
        let cold = per_million(1024, &warm, Duration::from_micros(99_200), 0.01);
        let expected = (0.00199 * PRICE_PER_GB_SECOND + PRICE_PER_REQUEST) * 1e6;
        assert!((cold - expected).abs() < 1e-9, "{cold} against {expected}");
    }
}
