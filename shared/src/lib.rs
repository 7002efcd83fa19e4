//! The store's shared crate, in three layers; arrows point down into the domain, never up out
//! of it:
//!
//! - [`domain`]: IDs, money, timestamps, order statuses and their transitions, customers,
//!   orders, pages of a listing, statistics, the one error type. No SDK, no HTTP, no status
//!   codes.
//! - [`dynamo`]: the key design (`keys`), how values become attributes (`codec`), one codec per
//!   stored entity (`entities`), transactions and their outcomes (`transaction`), and the store's
//!   requests (one module per concern; every access pattern one request).
//! - [`http`]: API Gateway events and responses, request parameters and bodies, and the one
//!   table from error to status and problem document.
//!
//! The key design is the source design's (the README names it: "DynamoDB Data Modeling for
//! Beginners: Design Your Tables Around Access Patterns", AWS Builder Center), extended; the
//! README numbers the access patterns, and `dynamo::keys` says which key serves which.
//!
//! Beside them: [`media`], the bucket products' pictures live in (S3), [`retry`], the one retry helper, [`bootstrap`], what every Lambda's `main`
//! calls, and [`permissions`], what each Lambda may send (template.yaml's grants are held to it).

// A reference crate: every public item says what it is for.
#![warn(missing_docs)]

pub mod access_patterns;
pub mod bootstrap;
pub mod domain;
pub mod dynamo;
pub mod http;
pub mod listed;
pub mod media;
pub mod metrics;
pub mod permissions;
pub mod retry;

pub use domain::error::AppError;
pub use dynamo::store::Store;

#[cfg(test)]
mod layers {
    use std::path::{Path, PathBuf};

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("a folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// The layers' arrows point down: no domain file names the DynamoDB or HTTP layers (or their
    /// SDKs), and no DynamoDB file names the HTTP edge. Doc comments may point up; code may not.
    #[test]
    fn no_layer_reaches_up() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let rules: [(&str, &[&str]); 3] = [
            (
                "domain",
                &[
                    "crate::dynamo",
                    "crate::http",
                    "crate::bootstrap",
                    "aws_sdk",
                    "lambda_http",
                    "lambda_runtime",
                ],
            ),
            ("dynamo", &["crate::http", "lambda_http", "lambda_runtime"]),
            ("media", &["crate::http", "lambda_http", "lambda_runtime"]),
        ];
        let mut found = Vec::new();
        for (layer, above) in rules {
            let mut files = Vec::new();
            rust_files(&src.join(layer), &mut files);
            assert!(!files.is_empty(), "{layer}");
            for file in files {
                let text = std::fs::read_to_string(&file).expect("readable");
                for (n, line) in text.lines().enumerate() {
                    let code = line.trim_start();
                    if code.starts_with("//") {
                        continue;
                    }
                    for name in above {
                        if code.contains(name) {
                            found.push(format!("{}:{}: {}", file.display(), n + 1, code));
                        }
                    }
                }
            }
        }
        assert!(found.is_empty(), "{}", found.join("\n"));
    }
}
