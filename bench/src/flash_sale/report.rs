//! The flash sale's table: one row a wave.

use std::time::Duration;

use local_engine::limits::Model;

use super::{Answer, Wave};
use crate::process::percentile;
use crate::report::ms;

pub(super) fn header(model: &Model, seconds: f64) {
    println!();
    println!(
        "Flash sale of one SKU (--only flash-sale): waves of {seconds} s, one unit a checkout, \
         against DynamoDB's limits modelled {}x slower (a partition: {} write / {} read units a second; \
         a transaction holds its items {} ms at DynamoDB's scale). Buyers arriving at a rate, or at once \
         checking out one cart after another. Each checkout runs on a process of the function's \
         alone while it runs (Lambda's one request per environment), an idle one or a new one; a process \
         keeps its copy of a sharded SKU's variant and of the promotions for a second at DynamoDB's scale \
         ({} s here). Rates and checkouts a second at DynamoDB's scale; times as measured here.",
        model.scale,
        model.write_units,
        model.read_units,
        ms(model.transaction_service),
        super::copies_kept(model).as_secs_f64(),
    );
    println!(
        "| design | buyers | checkouts | accepted/s | accepted | 409 | 5xx | p50 / p99 accepted ms | p50 / p99 refused ms | throttled / conflicts | oversold | lost |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
}

/// `p50 / p99` of `answers`' times, or `-`.
fn times(answers: &[&Answer]) -> String {
    let mut took: Vec<Duration> = answers.iter().map(|a| a.took).collect();
    took.sort();
    if took.is_empty() {
        return "-".to_owned();
    }
    format!(
        "{} / {}",
        ms(percentile(&took, 50.0)),
        ms(percentile(&took, 99.0))
    )
}

pub(super) fn row(design: &str, model: &Model, wave: &Wave) {
    let accepted: Vec<&Answer> = wave.answers.iter().filter(|a| a.status == 201).collect();
    let refused: Vec<&Answer> = wave.answers.iter().filter(|a| a.status != 201).collect();
    let conflict = refused.iter().filter(|a| a.status == 409).count();
    let failed = refused.iter().filter(|a| a.status >= 500).count();
    // Accepted a second: over the time from the wave's start to its last acceptance.
    let span = accepted.iter().map(|a| a.at).max().unwrap_or_default();
    let per_second = accepted.len() as f64 / span.as_secs_f64().max(1e-9) * model.scale;
    // Oversold: units held beyond what was in stock; lost: units neither in stock nor held,
    // or an acceptance without its order (or an order nobody was told of).
    let oversold = (wave.held + wave.stock).saturating_sub(wave.start_stock);
    let lost = wave.start_stock.saturating_sub(wave.held + wave.stock)
        + accepted.len().abs_diff(wave.orders) as u64;
    println!(
        "| {design} | {} | {} | {per_second:.0} | {} | {conflict} | {failed} | {} | {} | {} / {} | {oversold} | {lost} |",
        wave.buyers,
        wave.answers.len(),
        accepted.len(),
        times(&accepted),
        times(&refused),
        wave.throttled,
        wave.conflicts,
    );
}
