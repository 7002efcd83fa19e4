//! That every test holds its requests to the declarations: each handler a test calls runs in
//! its binary's scope (`local_engine::declared`), the routes' through
//! `local_engine::testing::dispatch` (which opens it), the schedules' and the stream consumer's
//! inside `as_function`. A test that called a handler any other way would send requests that
//! nothing holds to a declaration.

use std::path::{Path, PathBuf};

/// Every `.rs` file under the workspace's `tests/` folders.
fn test_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() && name != "target" && !name.to_string_lossy().starts_with('.') {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.components().any(|c| c.as_os_str() == "tests")
            {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for top in [
        "functions",
        "local",
        "template-tests",
        "ops",
        "shared",
        "provider",
    ] {
        walk(&root.join(top), &mut out);
    }
    out
}

/// The calls in `text` that run a handler outside a declaration's scope: `<crate>::handle(`
/// not inside an `as_function(` of the same statement, and the bootstrap's own dispatch.
fn unheld(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("::handle(") {
        let statement = text[..at]
            .rfind([';', '{', '}'])
            .map_or(&text[..at], |start| &text[start..at]);
        if !statement.contains("as_function(") {
            let line = text[..at].lines().count();
            out.push(format!("line {line}: {}", statement.trim()));
        }
    }
    for (at, _) in text.match_indices("serve::dispatch(") {
        out.push(format!(
            "line {}: the bootstrap's dispatch",
            text[..at].lines().count()
        ));
    }
    out
}

#[test]
fn every_handler_a_test_calls_runs_in_its_binarys_declaration() {
    let files = test_files();
    assert!(files.len() > 30, "{files:?}");
    let mut wrong = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read");
        if file.ends_with("template-tests/tests/template/declared.rs") {
            continue;
        }
        for call in unheld(&text) {
            wrong.push(format!("{}: {call}", file.display()));
        }
    }
    assert!(
        wrong.is_empty(),
        "handlers called outside their declaration:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_handler_called_bare_is_found() {
    let bare = "let run = functions::pay_refunds::handle(&payer, BUDGET).await;";
    assert_eq!(unheld(bare).len(), 1);
    let held = "let run = as_function(\"pay-refunds\", functions::pay_refunds::handle(&payer, BUDGET)).await;";
    assert!(unheld(held).is_empty());
    let routed = "parts(dispatch(&app.store, req, functions::get_order::handle).await)";
    assert!(unheld(routed).is_empty());
    assert_eq!(
        unheld("shared::http::serve::dispatch(&store, req, h)").len(),
        1
    );
}
