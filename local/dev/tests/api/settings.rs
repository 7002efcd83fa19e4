//! docs/local-dev.md's table of environment variables is what `make dev` reads: every variable
//! its sources read (store-local, the store's settings, the provider's start) is a row with its
//! default, and every row is read. A setting added without its row, or a row left after its
//! setting went, fails here.

use std::collections::BTreeSet;
use std::path::Path;

/// The functions through which `make dev`'s sources read a variable by name.
const READERS: [&str; 8] = [
    "env_or(",
    "port(",
    "port_from_env(",
    "every(",
    "env_value(",
    "cap_from_env(",
    "env::var(",
    "env::var_os(",
];

/// Variables the scanned files read that `make dev` does not: the Lambda runtime's own.
const LAMBDA_ONLY: [&str; 3] = [
    "AWS_LAMBDA_INITIALIZATION_TYPE",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
    "MEDIA_BUCKET",
];

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The sources `make dev` runs that read settings: store-local's own, the store's settings,
/// the gateway's staff clients and the provider's start.
fn sources() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(root().join("local/dev/src"))
        .expect("local/dev/src")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    for file in [
        "shared/src/bootstrap.rs",
        "shared/src/http/gateway.rs",
        "local/engine/src/provider.rs",
        "local/engine/src/bus.rs",
    ] {
        files.push(root().join(file));
    }
    files
}

/// Each `NAME` a reader is called with as a literal: `env_or("NAME"`.
fn read_in(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for reader in READERS {
        for (at, _) in text.match_indices(reader) {
            let rest = text[at + reader.len()..].trim_start();
            let Some(quoted) = rest.strip_prefix('"') else {
                continue;
            };
            let name: String = quoted.chars().take_while(|c| *c != '"').collect();
            let is_variable = name.len() > 2
                && name.starts_with(|c: char| c.is_ascii_uppercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            if is_variable && !LAMBDA_ONLY.contains(&name.as_str()) {
                names.insert(name);
            }
        }
    }
    if text.contains("EnvFilter::try_from_default_env") {
        names.insert("RUST_LOG".to_owned());
    }
    names
}

/// The table's rows: each variable and its default.
fn rows(doc: &str) -> Vec<(String, String)> {
    let section = doc
        .split("## Environment variables")
        .nth(1)
        .expect("docs/local-dev.md has its table of environment variables");
    section
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            (
                cells[0].trim_matches('`').to_owned(),
                cells.get(1).copied().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn every_variable_make_dev_reads_is_a_row_of_the_table_and_every_row_is_read() {
    let mut read = BTreeSet::new();
    for file in sources() {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|err| panic!("{file:?}: {err}"));
        read.extend(read_in(&text));
    }
    let doc = std::fs::read_to_string(root().join("docs/local-dev.md")).expect("docs/local-dev.md");
    let rows = rows(&doc);
    let listed: BTreeSet<String> = rows.iter().map(|(name, _)| name.clone()).collect();
    assert!(read.len() >= 15, "the scan found only {read:?}");
    let missing: Vec<_> = read.difference(&listed).collect();
    assert!(
        missing.is_empty(),
        "read, and not in docs/local-dev.md's table: {missing:?}"
    );
    let unread: Vec<_> = listed.difference(&read).collect();
    assert!(
        unread.is_empty(),
        "rows of docs/local-dev.md's table nothing reads: {unread:?}"
    );
    for (name, default) in rows {
        assert!(!default.is_empty(), "{name}: the row gives no default");
    }
}

#[test]
fn the_scan_finds_a_variable_read_through_each_reader() {
    let text =
        r#"env_or("A_ONE", "x") port( "B_TWO", "1") env::var("C_3") every("lower") env::var(name)"#;
    assert_eq!(
        read_in(text).into_iter().collect::<Vec<_>>(),
        ["A_ONE", "B_TWO", "C_3"]
    );
}
