//! Keeping a long-lived `make dev` data file as fast as a fresh one.
//!
//! dynoxide 3.2 keeps every stream record forever in `_stream_records`, with no index: each
//! write computes the next sequence number with `MAX(CAST(sequence_number AS INTEGER))` over
//! all of them, each GetRecords sorts them, each DescribeStream reads them all. At 3,000 orders
//! a TransactWriteItems took 20 ms instead of 4. Here, through the same SQLite library dynoxide
//! links (rusqlite, bundled), the file gets the two indexes those queries need, and records
//! older than the stream's 24-hour retention are deleted, as DynamoDB's are. The fix belongs
//! upstream: `local/engine/upstream/` holds it as a patch for dynoxide.

use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;

use crate::Error;

/// DynamoDB Streams keeps a record 24 hours.
pub const STREAM_RETENTION: Duration = Duration::from_secs(24 * 60 * 60);

/// The indexes dynoxide's stream queries need: the next sequence number per table, and a
/// shard's records in sequence order (GetRecords, DescribeStream's range).
pub const STREAM_INDEXES: [&str; 2] = [
    "CREATE INDEX IF NOT EXISTS _stream_records_by_table_sequence
        ON _stream_records (table_name, CAST(sequence_number AS INTEGER))",
    "CREATE INDEX IF NOT EXISTS _stream_records_by_shard_sequence
        ON _stream_records (table_name, shard_id, CAST(sequence_number AS INTEGER))",
];

/// What one upkeep did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Upkept {
    /// Stream records deleted for being older than the retention.
    pub trimmed: usize,
    /// Stream records left.
    pub kept: usize,
}

/// Indexes the stream records of the engine file at `path` (idempotent) and deletes those
/// created before `now - retention`. Safe beside the running engine: the file is in WAL mode
/// and both sides wait on each other's locks.
pub fn upkeep(path: &Path, now_unix_secs: i64, retention: Duration) -> Result<Upkept, Error> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(Duration::from_secs(10))?;
    for index in STREAM_INDEXES {
        conn.execute_batch(index)?;
    }
    let cutoff = now_unix_secs - i64::try_from(retention.as_secs()).unwrap_or(i64::MAX);
    let trimmed = conn.execute(
        "DELETE FROM _stream_records WHERE created_at < ?1",
        [cutoff],
    )?;
    let kept: i64 = conn.query_row("SELECT COUNT(*) FROM _stream_records", [], |row| row.get(0))?;
    Ok(Upkept {
        trimmed,
        kept: usize::try_from(kept).unwrap_or(0),
    })
}

/// The query plans SQLite picks for dynoxide's two per-request stream queries (the next
/// sequence number, GetRecords), for the tests: each must search an index rather than scan.
/// (DescribeStream's MIN and MAX in one SELECT scans even so: the upstream patch splits it; the
/// local poller avoids it instead.)
pub fn stream_query_plans(path: &Path) -> Result<Vec<String>, Error> {
    let conn = Connection::open(path)?;
    let mut plans = Vec::new();
    for query in [
        "SELECT COALESCE(MAX(CAST(sequence_number AS INTEGER)), 0) + 1 FROM _stream_records WHERE table_name = 'AppTable'",
        "SELECT event_name FROM _stream_records WHERE table_name = 'AppTable' AND shard_id = 's' AND CAST(sequence_number AS INTEGER) > 5 ORDER BY CAST(sequence_number AS INTEGER) ASC LIMIT 100",
    ] {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {query}"))?;
        let details: Vec<String> = stmt
            .query_map([], |row| row.get::<_, String>(3))?
            .collect::<Result<_, _>>()?;
        plans.push(details.join("; "));
    }
    Ok(plans)
}
